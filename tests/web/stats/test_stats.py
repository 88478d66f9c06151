"""Statistics and history in the browser after a few games of each kind (played through the
API for speed): the tables and the SVG histogram, a history replay as practice, then the
settings dialog's export (a JSON download) and delete (with its confirmation); in Japanese
on a phone and in English on a desktop, axe-clean."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.server.helpers import Api
from tests.server.kc_driver import play_match
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage


def games_played(url: str) -> tuple[str, int]:
    """A new player with two Poker Squares deals and one Kings Corner match; the id and the
    first deal's total."""
    with httpx.Client(base_url=url, timeout=30) as client:
        api = Api.new_player(client)  # type: ignore[arg-type]
        totals = []
        for _ in range(2):
            game = api.ps_new(table="american", target="normal")
            for i in range(25):
                game = api.ps(game, "moves", row=i // 5, col=i % 5)
            totals.append(game["view"]["total"])
        play_match(api, api.kc_new(rounds=1))
    assert api.player_id is not None
    return api.player_id, totals[0]


@pytest.fixture(scope="module")
def played(live_url: str) -> tuple[str, int]:
    """One player for both tests (the first replays a deal, the second deletes it all)."""
    return games_played(live_url)


def open_stats(new_page: NewPage, played: tuple[str, int], **options: object) -> tuple[Page, int]:
    player_id, total = played
    # Once per tab: the page's own reload after "delete" must not bring the deleted id back
    # (the server refuses it at once, and Chromium logs that 401).
    script = (
        "if (!sessionStorage.getItem('seeded')) {"
        f" localStorage.setItem('cardtable.player', {player_id!r});"
        " sessionStorage.setItem('seeded', '1'); }"
    )
    page = new_page(init_script=script, **options)
    page.goto("/stats.html")
    return page, total


def test_statistics_history_replay_in_japanese_on_a_phone(
    new_page: NewPage, played: tuple[str, int], screenshot_dir: Path
) -> None:
    page, _ = open_stats(new_page, played, phone=True, locale="ja-JP")
    # Recent games come first; the table never played is one line, after the one played.
    expect(page.locator("#ps-british")).to_contain_text("この得点表の配札はまだありません。")
    order = page.evaluate(
        "() => [...document.querySelectorAll('#history-box, #ps-american, #ps-british')]"
        ".map((e) => e.id)"
    )
    assert order == ["history-box", "ps-american", "ps-british"], order
    expect(page.locator("#ps-summary-british")).to_have_count(0)
    summary = page.locator("#ps-summary-american tbody tr").first
    expect(summary).to_contain_text("2")
    expect(page.locator("#ps-chart-american svg.histogram rect.bar")).not_to_have_count(0)
    expect(page.locator("#kc-table tbody tr")).not_to_have_count(0)
    expect(page.locator("#history li")).to_have_count(3)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"horizontal overflow: {width}px"
    page.screenshot(path=str(screenshot_dir / "stats-ja-phone.png"), full_page=True)
    check_screen(page, "stats (ja, phone)", phone=True)
    check_history_links(page, played[0])
    page.locator("#history li[data-game=poker-squares] button.replay").first.click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#replay-marker")).to_be_visible()


def check_history_links(page: Page, player_id: str) -> None:
    """Every finished deal offers its review and every match its rounds' replay, each a link
    to its page, beside "Replay as practice"; games dealt from a fair shuffle offer Verify."""
    items = page.request.get("/api/stats/history", headers={"X-Player-Id": player_id}).json()
    items = items["items"]
    for item in items:
        li = page.locator(f"#history li[data-id='{item['id']}']")
        if item["game"] == "poker-squares":
            assert item["reviewable"]
            expect(li.locator("a.review")).to_have_attribute(
                "href", f"ps-review.html?game={item['id']}"
            )
            expect(li.locator("button.replay")).to_be_visible()
        else:
            assert item["replay_rounds"] == 1
            expect(li.locator("a.round-replay")).to_have_attribute(
                "href", f"kc-replay.html?game={item['id']}&round=1"
            )
        expect(li.locator("button.verify")).to_have_count(1 if item["checkable"] else 0)


def test_history_verify_opens_the_checked_shuffle(
    new_page: NewPage, played: tuple[str, int]
) -> None:
    page, _ = open_stats(new_page, played)
    li = page.locator("#history li[data-game=poker-squares]").first
    expect(li.locator("button.verify")).to_be_visible()
    li.locator("button.verify").click()
    page.wait_for_url("**/verify.html#*")
    expect(page.locator("#verdict")).to_have_attribute("data-ok", "true")


@pytest.mark.parametrize(("lang", "phone"), [("en", True), ("ja", True), ("ja", False)])
def test_no_word_breaks_and_no_cut_labels(
    new_page: NewPage, played: tuple[str, int], screenshot_dir: Path, lang: str, phone: bool
) -> None:
    """At 390 px and 1280 px, in both languages: no label of the page is broken inside a word
    ("Americ|an", "勝ったマ|ッチ") and no histogram label runs past its drawing ("112–11")."""
    page, _ = open_stats(new_page, played, phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    expect(page.locator("#history li")).to_have_count(3)
    broken = page.evaluate(WORD_BREAKS)
    assert broken == [], f"words broken across lines: {broken}"
    for chart in page.locator("svg.histogram").all():
        box = chart.bounding_box()
        assert box is not None
        for tick in chart.locator("text.tick").all():
            t = tick.bounding_box()
            assert t is not None
            inside = (
                t["x"] >= box["x"] - 0.5 and t["x"] + t["width"] <= box["x"] + box["width"] + 0.5
            )
            assert inside, (tick.text_content(), t, box)
    size = "phone" if phone else "desktop"
    page.screenshot(path=str(screenshot_dir / f"stats-words-{lang}-{size}.png"), full_page=True)


PAGES = [
    "/",
    "/daily.html",
    "/poker-squares.html",
    "/kings-corner.html",
    "/rules-poker-squares.html",
    "/rules-kings-corner.html",
    "/verify.html",
]


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_no_page_breaks_a_word_on_a_phone(
    new_page: NewPage, played: tuple[str, int], lang: str
) -> None:
    """Japanese breaks between phrases (base.css) and tables wrap between words: at 390 px no
    page of the site shows a word broken across two lines, and none is wider than the phone."""
    page, _ = open_stats(new_page, played, phone=True, locale="ja-JP" if lang == "ja" else "en-US")
    for path in PAGES:
        page.goto(path)
        expect(page.locator("body.ready")).to_have_count(1)
        page.wait_for_load_state("networkidle")
        assert page.evaluate(WORD_BREAKS) == [], path
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, path


WORD_BREAKS = """() => {
  // Each text node's words: a word whose characters lie on more than one line is broken.
  // Japanese "words" are the runs of katakana (a break inside one reads as a broken word);
  // the middle dot "・" (U+30FB) is punctuation between words, not part of one.
  const out = [];
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    // Codes (a commitment's 64 hex digits) are values, not words: they may wrap anywhere.
    if (!el || el.closest("svg, .visually-hidden, [hidden], code")) continue;
    if (!el.getClientRects().length) continue;
    const re = /[A-Za-z]{4,}|[\u30a0-\u30fa\u30fc-\u30ff]{3,}/g;
    for (const m of n.data.matchAll(re)) {
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) out.push(m[0]);
    }
  }
  return out;
}"""


def test_export_then_delete_from_the_settings_dialog(
    new_page: NewPage, played: tuple[str, int], screenshot_dir: Path
) -> None:
    page, total = open_stats(new_page, played, accept_downloads=True)
    expect(page.locator("#history li")).to_have_count(3)
    page.screenshot(path=str(screenshot_dir / "stats-en-desktop.png"), full_page=True)
    check_screen(page, "stats (en, desktop)", phone=False)
    page.locator("#settings-open").click()
    with page.expect_download() as info:
        page.locator("#data-export").click()
    data = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert len(data["games"]) >= 3 and data["results"][0]["total"] == total
    assert len(data["results"]) == 3
    expect(page.locator("#data-status")).to_have_text("Saved as a JSON file.")
    page.locator("#data-delete").click()
    expect(page.locator("#data-confirm")).to_be_visible()
    check_screen(page, "settings dialog, delete confirmation", phone=False)
    page.locator("#data-delete-no").click()
    expect(page.locator("#data-confirm")).to_be_hidden()
    page.locator("#data-delete").click()
    page.locator("#data-delete-yes").click()
    expect(page.locator("#data-status")).to_contain_text("Deleted.")
    # At once, nothing of the deleted games shows on the page behind the dialog.
    expect(page.locator("#main")).to_be_hidden()
    expect(page.locator("#history li").first).to_be_hidden()
    check_screen(page, "settings dialog after delete (en, desktop)", phone=False)
    page.locator("#settings-dialog [data-close]").click()
    # The page starts again with a new player: nothing played.
    expect(page.locator("#history-empty")).to_be_visible()
    expect(page.locator("#history li")).to_have_count(0)
    # Nothing played: one line for Kings Corner, not a table of zeros.
    expect(page.locator("#kc-stats")).to_have_text("No Kings Corner matches yet.")
    expect(page.locator("#kc-table")).to_have_count(0)
