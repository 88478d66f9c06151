"""The daily deal in the browser: played to the end from the daily page on the Poker Squares
screen, its rank, board and histogram shown, the share text copied with one press, a second
attempt as practice; in English on a desktop and in Japanese on a phone, axe-clean."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, Route, expect

from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices.players import player_key
from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.helpers import cell, place_by_api, wait_held, wait_placed


def old_player(app: FastAPI, url: str) -> str:
    """A player id created two days ago (before any time zone reached today's date, so
    today's daily ranks it), for a page to use."""
    player_id = str(httpx.post(f"{url}/api/players", timeout=30).json()["player_id"])
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    with store.transaction() as tx:
        tx.execute(
            store._sql("UPDATE players SET created_at = ? WHERE id = ?"),
            ((datetime.now(UTC) - timedelta(days=2)).isoformat(), player_key(player_id)),
        )
    return player_id


def as_player(player_id: str) -> str:
    return f"localStorage.setItem('cardtable.player', {player_id!r});"


def play_to_the_end(page: Page) -> None:
    """All but the last card through the API, row by row; the last by a click."""
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#current-card[data-card]")).to_have_count(1)
    place_by_api(page)
    page.locator(cell(page, 4, 4)).click()
    wait_placed(page, 25)
    expect(page.locator("#end")).to_be_visible()


def test_daily_deal_rank_share_and_practice(
    new_page: NewPage, live_app: FastAPI, live_url: str, screenshot_dir: Path
) -> None:
    page = new_page(
        init_script=as_player(old_player(live_app, live_url)),
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto("/")
    expect(page.locator("#daily-countdown")).to_contain_text(":")
    page.locator("#daily-home").click()
    expect(page.locator("#countdown")).to_have_text(re.compile(r"\d\d:\d\d:\d\d"))
    expect(page.locator("#play-btn")).to_have_text("Play today's deal")
    check_screen(page, "daily (en, desktop, before)", phone=False)
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    play_to_the_end(page)
    expect(page.locator("#practice-marker")).to_be_hidden()
    page.locator("#daily-back").click()

    page.wait_for_url("**/daily.html?table=american")
    expect(page.locator("#result-text")).to_contain_text("rank 1")
    expect(page.locator("#board-table tbody tr.mine")).to_have_count(1)
    expect(page.locator("#board-table tbody tr.mine")).to_contain_text("(you)")
    expect(page.locator("#histogram svg rect.bar.mine")).to_have_count(1)
    expect(page.locator("#streak-text")).to_contain_text("Current: 1 day")
    # The day's shuffle is sealed while the day runs; its seed waits for the day's end.
    fair = page.locator("#board-fair")
    expect(fair.locator("p.sealed")).to_contain_text("Deal sealed before its first card.")
    expect(fair.locator("p.sealed code")).to_have_text(re.compile(r"^[0-9a-f]{8}…$"))
    expect(page.locator("#verify-day")).to_have_count(0)
    # No share sheet in a desktop browser: the button copies, with the page's link.
    expect(page.locator("#share-btn")).to_have_text("Copy share text")
    page.locator("#share-btn").click()
    expect(page.locator("#share-status")).to_have_text("Copied, with the link.")
    shared = page.evaluate("navigator.clipboard.readText()")
    assert shared == page.locator("#share-text").text_content()
    title, rows, _cols, legend, total, link = shared.split("\n")
    assert title.startswith("cardtable daily ") and total.startswith("Total ")
    # A mark per line and the legend; what they say: tests/web/daily/test_share_texts.py.
    assert rows.startswith("Rows, top to bottom: ") and legend.startswith("⓪\u00a0nothing")
    assert link == f"{live_url}/daily.html?table=american"
    page.screenshot(path=str(screenshot_dir / "daily-en-desktop.png"), full_page=True)
    check_screen(page, "daily (en, desktop, ranked)", phone=False)

    # A display name shows on the board as text, never as markup.
    page.locator("#name-input").fill("<b>Ann</b>")
    page.locator("#name-form button[type=submit]").click()
    expect(page.locator("#name-status")).to_have_text("Saved.")
    expect(page.locator("#board-table tbody tr.mine td").nth(1)).to_have_text("<b>Ann</b> (you)")

    # A second attempt is practice.
    expect(page.locator("#play-btn")).to_have_text("Play again (practice)")
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#replay-marker")).to_be_visible()


def test_daily_in_japanese_on_a_phone(
    new_page: NewPage, live_app: FastAPI, live_url: str, screenshot_dir: Path
) -> None:
    player = old_player(live_app, live_url)
    page = new_page(phone=True, locale="ja-JP", init_script=as_player(player))
    page.goto("/poker-squares.html")
    page.locator("#daily-btn").click()
    page.wait_for_url("**/daily.html")
    page.locator("input[name=daily-table][value=british]").check()
    expect(page.locator("#play-btn")).to_have_text("今日の配札をプレイ")
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    play_to_the_end(page)
    page.locator("#daily-back").click()
    page.wait_for_url("**/daily.html?table=british")
    expect(page.locator("#result-text")).to_contain_text("位")
    expect(page.locator("#histogram svg rect.bar")).not_to_have_count(0)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"horizontal overflow: {width}px"
    page.screenshot(path=str(screenshot_dir / "daily-ja-phone.png"), full_page=True)
    check_screen(page, "daily (ja, phone)", phone=True)


def test_play_waits_for_the_table_chosen(new_page: NewPage, live_url: str) -> None:
    """Choosing the other table refetches the day; until its answer is in, Play is off (a
    click meanwhile was once dropped without a word), and then it plays the table chosen."""
    page = new_page()
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/daily/british?day=*", hold)
    page.goto("/daily.html?table=american")
    expect(page.locator("#play-btn")).to_be_enabled()
    page.locator("input[name=daily-table][value=british]").check()
    expect(page.locator("#play-btn")).to_be_disabled()
    wait_held(page, held, "the British day")  # asked right after Play turns off
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#play-btn")).to_be_enabled()
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    saved = json.loads(page.evaluate("localStorage.getItem('cardtable.daily')"))
    assert saved["table"] == "british" and saved["counted"] is True


# --- the counted attempt, the provisional rank, sharing, layout shift (issue 29) -----------

SIZES = [("en", False), ("ja", True), ("en", True), ("ja", False)]
LOCALE = {"en": "en-US", "ja": "ja-JP"}
WORDS = {
    "en": {
        "counted": "Counted attempt",
        "counted_board": "Your score goes on today's board.",
        "counted_new": "You joined today",
        "ask_hint": "Use a hint?",
        "ask_undo": "Undo the last card?",
        "provisional": "provisional rank {rank} · as good as or better than {percentile}%",
        "badge": "Joined today: off the board",
        "joined": "You joined today",
        "share": "Share",
        "shared": "Shared.",
        "copied": "Copied, with the link.",
        "sealed": "Deal sealed before its first card. Commitment:",
        "full": "Full commitment",
    },
    "ja": {
        "counted": "記録される挑戦",
        "counted_board": "得点は今日のランキングに載ります。",
        "counted_new": "今日はじめて遊んだ",
        "ask_hint": "ヒントを使いますか？",
        "ask_undo": "最後のカードを元に戻しますか？",
        "provisional": "仮の順位 {rank}位 · ランキングの{percentile}%",
        "badge": "今日参加：ランキング外",
        "joined": "今日はじめて遊んだ",
        "share": "共有",
        "shared": "共有しました。",
        "copied": "リンク付きでコピーしました。",
        "sealed": "配札は最初のカードの前に封印されています。コミットメント：",
        "full": "コミットメント全体",
    },
}


def size_name(phone: bool) -> str:
    return "phone" if phone else "desktop"


def player_api(url: str, player: str, method: str, path: str, body: Any = None) -> Any:
    r = httpx.request(
        method, f"{url}{path}", headers={"X-Player-Id": player}, json=body, timeout=30
    )
    assert r.status_code < 300, r.text
    return r.json()


def finish_daily(url: str, player: str, table: str = "american") -> Any:
    """Today's deal played to the end over HTTP, row by row, unassisted."""
    game = player_api(url, player, "POST", f"/api/daily/{table}/play")["game"]
    for i in range(25):
        game = player_api(
            url,
            player,
            "POST",
            f"/api/poker-squares/games/{game['id']}/moves",
            {"version": game["version"], "row": i // 5, "col": i % 5},
        )
    assert game["view"]["is_over"]
    return game


def page_player(page: Page) -> str:
    player = page.evaluate("localStorage.getItem('cardtable.player')")
    assert isinstance(player, str) and player
    return player


@pytest.mark.parametrize(("lang", "phone"), SIZES)
def test_the_counted_attempt_is_marked_and_hint_and_undo_ask_first(
    new_page: NewPage,
    live_app: FastAPI,
    live_url: str,
    screenshot_dir: Path,
    lang: str,
    phone: bool,
) -> None:
    words = WORDS[lang]
    player = old_player(live_app, live_url)
    page = new_page(phone=phone, locale=LOCALE[lang], init_script=as_player(player))
    page.goto("/daily.html")
    expect(page.locator("#play-note")).to_contain_text(words["counted"])
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#current-card[data-card]")).to_have_count(1)
    # Marked from the first card, above the grid; no card placed yet.
    line = page.locator("#daily-counted")
    expect(line).to_be_visible()
    expect(line).to_contain_text(words["counted"])
    expect(line).to_contain_text(words["counted_board"])
    wait_placed(page, 0)
    line_box, board_box = line.bounding_box(), page.locator("#board").bounding_box()
    assert line_box and board_box
    if phone:
        assert line_box["y"] + line_box["height"] <= board_box["y"]
        # The line is short on a phone: the grid's buttons stay on the first screen.
        controls = page.locator(".controls").bounding_box()
        assert controls is not None and controls["y"] + controls["height"] <= 844, controls
    tag = f"{lang}-{size_name(phone)}"
    page.screenshot(path=str(screenshot_dir / f"daily-counted-{tag}.png"))
    check_screen(page, f"daily counted attempt ({tag})", phone=phone)

    page.locator(cell(page, 0, 0)).click()
    wait_placed(page, 1)
    game_id = player_api(live_url, player, "GET", "/api/daily/american")["me"]["game_id"]

    def practice() -> bool:
        game = player_api(live_url, player, "GET", f"/api/poker-squares/games/{game_id}")
        return bool(game["view"]["practice"])

    # H asks first; Esc keeps the attempt counted (and the server agrees).
    dialog = page.locator("#daily-ask")
    page.locator(cell(page, 0, 1)).focus()
    page.keyboard.press("h")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(words["ask_hint"])
    expect(page.locator("#daily-ask-keep")).to_be_focused()
    page.screenshot(path=str(screenshot_dir / f"daily-ask-{tag}.png"))
    check_screen(page, f"daily hint question ({tag})", phone=phone)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(cell(page, 0, 1))).to_be_focused()
    expect(page.locator("#practice-marker")).to_be_hidden()
    expect(page.locator(".cell.hinted")).to_have_count(0)
    assert not practice()
    assert player_api(live_url, player, "GET", "/api/daily/american")["me"]["status"] == "open"

    # Undo (the button, then Z) asks too; "Keep it counted" leaves the card where it is.
    page.locator("#undo-btn").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(words["ask_undo"])
    page.locator("#daily-ask-keep").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("#undo-btn")).to_be_focused()
    page.locator(cell(page, 0, 1)).focus()
    page.keyboard.press("z")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    wait_placed(page, 1)
    assert not practice()
    expect(line).to_be_visible()

    # The hint button, confirmed: the hint comes and the deal is practice.
    page.locator("#hint-btn").click()
    expect(dialog).to_be_visible()
    page.locator("#daily-ask-yes").click()
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator(".cell.hinted")).to_have_count(1)
    expect(line).to_be_hidden()
    assert practice()
    # Now practice, nothing is left to protect: undo goes straight through.
    page.locator("#undo-btn").click()
    wait_placed(page, 0)
    expect(dialog).to_be_hidden()


@pytest.mark.parametrize(("lang", "phone"), SIZES)
def test_a_new_players_first_daily_shows_a_provisional_rank(
    new_page: NewPage,
    live_app: FastAPI,
    live_url: str,
    screenshot_dir: Path,
    lang: str,
    phone: bool,
) -> None:
    words = WORDS[lang]
    finish_daily(live_url, old_player(live_app, live_url))  # someone is on today's board
    page = new_page(phone=phone, locale=LOCALE[lang])  # a new player: joins today
    page.goto("/daily.html")
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#daily-counted")).to_contain_text(words["counted_new"])
    play_to_the_end(page)
    page.locator("#daily-back").click()
    page.wait_for_url("**/daily.html?table=american")

    day = player_api(live_url, page_player(page), "GET", "/api/daily/american")
    me = day["me"]
    assert me["status"] == "counted" and not me["ranked"] and me["rank"] is None
    p = me["provisional"]
    assert p is not None and p["players"] == day["board"]["players"] >= 1
    # The server's figure, shown as it is: the page computes nothing.
    percentile = f"{p['percentile']:g}"
    expect(page.locator("#result-text")).to_contain_text(
        words["provisional"].format(rank=p["rank"], percentile=percentile)
    )
    expect(page.locator("#result-badge")).to_have_text(words["badge"])
    expect(page.locator("#result-note")).to_contain_text(words["joined"])
    expect(page.locator("#board-table tbody tr.mine")).to_have_count(0)
    expect(page.locator("#histogram svg rect.bar.mine")).to_have_count(0)
    text = page.locator("body").inner_text().lower()
    assert "player id" not in text and "プレイヤーid" not in text
    tag = f"{lang}-{size_name(phone)}"
    page.screenshot(path=str(screenshot_dir / f"daily-provisional-{tag}.png"), full_page=True)
    check_screen(page, f"daily provisional rank ({tag})", phone=phone)


SHARE_SHEET = """
window.__shared = [];
navigator.share = async (data) => { window.__shared.push(data); };
"""


@pytest.mark.parametrize(("lang", "phone"), SIZES)
def test_share_sheet_with_the_link_and_the_sealed_deal(
    new_page: NewPage,
    live_app: FastAPI,
    live_url: str,
    screenshot_dir: Path,
    lang: str,
    phone: bool,
) -> None:
    words = WORDS[lang]
    player = old_player(live_app, live_url)
    finish_daily(live_url, player, "british")
    page = new_page(phone=phone, locale=LOCALE[lang], init_script=as_player(player) + SHARE_SHEET)
    page.goto("/daily.html?table=british")
    share = page.locator("#share-btn")
    expect(share).to_have_text(words["share"])
    share.click()
    expect(page.locator("#share-status")).to_have_text(words["shared"])
    shared = page.evaluate("window.__shared")
    link = f"{live_url}/daily.html?table=british"
    assert len(shared) == 1 and shared[0]["url"] == link
    assert page.locator("#share-text").text_content() == f"{shared[0]['text']}\n{link}"
    assert link not in shared[0]["text"] and len(shared[0]["text"].split("\n")) == 5

    # The fairness line in words: the start of the commitment, the whole of it on request,
    # and how to check it on the verify page.
    commitment = player_api(live_url, player, "GET", "/api/daily/british")["fairness"]["commitment"]
    sealed = page.locator("#board-fair p.sealed")
    expect(sealed).to_contain_text(words["sealed"])
    expect(sealed.locator("code")).to_have_text(f"{commitment[:8]}…")
    expect(sealed.locator("code")).to_have_attribute("title", commitment)
    expect(page.locator("#commitment-full")).to_be_hidden()
    page.locator("#board-fair summary").click()
    expect(page.locator("#board-fair summary")).to_have_text(words["full"])
    expect(page.locator("#commitment-full")).to_have_text(commitment)
    href = page.locator("#check-day").get_attribute("href")
    assert href == f"verify.html#commitment={commitment}&game=ps"
    tag = f"{lang}-{size_name(phone)}"
    page.locator("#board-fair").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / f"daily-share-{tag}.png"), full_page=True)
    check_screen(page, f"daily share and sealed deal ({tag})", phone=phone)
    page.locator("#check-day").click()
    page.wait_for_url("**/verify.html#*")
    expect(page.locator("#f-commitment")).to_have_value(commitment)


def test_without_a_share_sheet_it_copies_with_the_link(
    new_page: NewPage, live_app: FastAPI, live_url: str
) -> None:
    """A share sheet that refuses (not allowed here) falls back to the copy, in Japanese on a
    phone."""
    player = old_player(live_app, live_url)
    finish_daily(live_url, player)
    refuse = "navigator.share = async () => { throw new DOMException('no', 'NotAllowedError'); };"
    page = new_page(
        phone=True,
        locale="ja-JP",
        init_script=as_player(player) + refuse,
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto("/daily.html")
    page.locator("#share-btn").click()
    expect(page.locator("#share-status")).to_have_text(WORDS["ja"]["copied"])
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#share-text").text_content()
    assert copied.endswith(f"\n{live_url}/daily.html?table=american")


LAYOUT_SHIFT = """
window.__cls = 0;
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.hadRecentInput) continue;
    window.__cls += e.value;
    window.__shifts.push({ value: e.value, sources: (e.sources || []).map(
      (s) => (s.node && (s.node.id || s.node.className)) || "?") });
  }
}).observe({ type: "layout-shift", buffered: true });
"""


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("who", ["new", "ranked"])
def test_the_page_does_not_shift_while_it_loads_on_a_phone(
    new_page: NewPage, live_app: FastAPI, live_url: str, lang: str, who: str
) -> None:
    """Cumulative layout shift while the daily page loads on a phone, measured in the page
    (layout-shift entries without recent input): a first visit, and a ranked player whose
    result, share text and board all arrive with the data."""
    script = LAYOUT_SHIFT
    if who == "ranked":
        player = old_player(live_app, live_url)
        finish_daily(live_url, player)
        script = as_player(player) + script
    page = new_page(phone=True, locale=LOCALE[lang], init_script=script)
    page.goto("/daily.html")
    page.wait_for_function(
        "() => performance.getEntriesByName('daily-ready').length > 0", timeout=20_000
    )
    if who == "ranked":
        expect(page.locator("#share-box")).to_be_visible()
    # Two frames after the data is drawn: any shift it caused has been reported.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_timeout(300)
    cls = page.evaluate("window.__cls")
    shifts = page.evaluate("window.__shifts")
    assert cls < 0.1, f"layout shift {cls:.3f} on the daily page ({lang}, {who}): {shifts}"


# --- a new deal over the counted attempt (issue 44) -----------------------------------------

REPLACE_WORDS = {
    "en": {
        "title": "Replace your counted attempt?",
        "name": "today's daily deal (American)",
        "continue": "Unfinished: today's daily deal (American)",
        "note": "A new deal asks first",
    },
    "ja": {
        "title": "記録される挑戦を置き換えますか？",
        "name": "今日のデイリー（米国式）",
        "continue": "途中の配札：今日のデイリー（米国式）",
        "note": "新しく配る前に確認します",
    },
}


@pytest.mark.parametrize(("lang", "phone"), SIZES)
def test_a_new_deal_asks_before_replacing_todays_daily(
    new_page: NewPage,
    live_app: FastAPI,
    live_url: str,
    screenshot_dir: Path,
    console_guard: ConsoleGuard,
    lang: str,
    phone: bool,
) -> None:
    """The attempt was dealt elsewhere (another device: this browser has no note of it); the
    server names it, both pages ask before a deal would replace it, and keeping it keeps it
    counted on the server too."""
    console_guard.allow("409")  # the server's answer that the deal would replace it
    words = REPLACE_WORDS[lang]
    player = old_player(live_app, live_url)
    attempt = player_api(live_url, player, "POST", "/api/daily/american/play")["game"]
    attempt = player_api(
        live_url,
        player,
        "POST",
        f"/api/poker-squares/games/{attempt['id']}/moves",
        {"version": attempt["version"], "row": 0, "col": 0},
    )

    def status() -> str:
        return str(player_api(live_url, player, "GET", "/api/daily/american")["me"]["status"])

    def current() -> str:
        return str(player_api(live_url, player, "GET", "/api/continue")["poker_squares"]["id"])

    page = new_page(phone=phone, locale=LOCALE[lang], init_script=as_player(player))
    tag = f"{lang}-{size_name(phone)}"
    dialog = page.locator("#daily-ask")

    # The daily page: the other table's Play asks; keeping the daily stays on the page.
    page.goto("/daily.html?table=british")
    expect(page.locator("#play-btn")).to_be_enabled()
    page.locator("#play-btn").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(words["title"])
    expect(dialog.locator("#daily-ask-text")).to_contain_text(words["name"])
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator("#play-btn")).to_be_focused()
    assert current() == attempt["id"] and status() == "open"

    # The Poker Squares screen comes back to the attempt, marked as counted.
    page.goto("/poker-squares.html")
    wait_placed(page, 1)
    expect(page.locator("#daily-counted")).to_be_visible()
    page.locator("#new-deal-btn").click()
    expect(page.locator("#continue-box h2")).to_have_text(words["continue"])
    expect(page.locator("#new-note")).to_contain_text(words["note"])
    page.locator("#deal-btn").click()
    expect(dialog).to_be_visible()
    expect(dialog.locator("#daily-ask-text")).to_contain_text(words["name"])
    expect(page.locator("#daily-ask-keep")).to_be_focused()
    page.screenshot(path=str(screenshot_dir / f"daily-replace-{tag}.png"))
    check_screen(page, f"daily replace question ({tag})", phone=phone)
    page.locator("#daily-ask-keep").click()
    expect(dialog).to_be_hidden()
    # "Keep the daily" goes back to it, where the player left off.
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#daily-counted")).to_be_visible()
    wait_placed(page, 1)
    assert current() == attempt["id"] and status() == "open"

    # Saying yes deals the new deal; the attempt is then lost, and the server says so.
    page.locator("#new-deal-btn").click()
    page.locator("#deal-btn").click()
    page.locator("#daily-ask-yes").click()
    wait_placed(page, 0)
    expect(page.locator("#daily-counted")).to_be_hidden()
    assert current() != attempt["id"] and status() == "lost"


@pytest.fixture
def yesterday(live_app: FastAPI) -> Iterator[None]:
    """The daily's clock a day back: nobody else played that day, and a player made now
    joined after it began (counted, off the board)."""
    live_app.state.daily_clock = lambda: datetime.now(UTC) - timedelta(days=1)
    yield
    live_app.state.daily_clock = None


@pytest.mark.parametrize(("lang", "phone"), [("ja", True), ("en", False)])
def test_first_on_an_empty_board_claims_no_rank(
    new_page: NewPage, live_url: str, yesterday: None, lang: str, phone: bool
) -> None:
    """A new player alone on the day: the result says there is no one to compare with, never
    "rank 1" beside "off the board"."""
    player = str(httpx.post(f"{live_url}/api/players", timeout=30).json()["player_id"])
    finish_daily(live_url, player)
    me = player_api(live_url, player, "GET", "/api/daily/american")["me"]
    assert me["provisional"]["players"] == 0 and me["provisional"]["rank"] == 1
    page = new_page(phone=phone, locale=LOCALE[lang], init_script=as_player(player))
    page.clock.set_fixed_time(datetime.now(UTC) - timedelta(days=1))  # the page's own date too
    page.goto("/daily.html")
    text = page.locator("#result-text")
    expect(text).to_contain_text(str(me["total"]))
    rank_words = ["rank 1", "1位"]
    for word in rank_words:
        expect(text).not_to_contain_text(word)
    expect(text).to_contain_text("no rank" if lang == "en" else "比べる順位はありません")
    expect(page.locator("#result-badge")).to_have_text(WORDS[lang]["badge"])
    expect(page.locator("#result-note")).not_to_contain_text(
        "provisional" if lang == "en" else "仮の順位"
    )
    check_screen(page, f"daily, alone on the board ({lang})", phone=phone)


EVENING = datetime(2030, 1, 1, 20, 0, tzinfo=UTC)
"""05:00 on 2 January in Tokyo, 15:00 on 1 January in New York."""


@pytest.fixture
def evening(live_app: FastAPI) -> Iterator[None]:
    """The daily's clock at `EVENING` (each test's page is set to the same moment)."""
    live_app.state.daily_clock = lambda: EVENING
    yield
    live_app.state.daily_clock = None


@pytest.mark.parametrize(("lang", "phone"), [("ja", True), ("en", False)])
def test_the_next_deal_comes_at_the_players_own_midnight(
    new_page: NewPage, evening: None, lang: str, phone: bool
) -> None:
    """At one moment a page in Tokyo is on 2 January and one in New York on 1 January: each
    shows its own date's deal, and the countdown runs to its own midnight (docs/daily.md,
    "Your own midnight")."""
    days = {}
    for zone, date, left in (("Asia/Tokyo", 2, "19:00:00"), ("America/New_York", 1, "09:00:00")):
        page = new_page(phone=phone, locale=LOCALE[lang], timezone_id=zone, fresh=True)
        page.clock.set_fixed_time(EVENING)
        with page.expect_response(lambda r: "/api/daily/american?day=" in r.url) as asked:
            page.goto("/daily.html")
        days[zone] = asked.value.json()["day"]
        expect(page.locator("#countdown")).to_have_text(left)
        title = f"Jan {date}, 2030" if lang == "en" else f"2030/01/0{date}"
        expect(page.locator("#today-title")).to_contain_text(title)
        expect(page.locator("#daily-intro")).to_contain_text(
            "midnight, your time" if lang == "en" else "あなたの地域の午前0時"
        )
        check_screen(page, f"daily at its own midnight ({zone}, {lang})", phone=phone)
    assert days == {"Asia/Tokyo": "2030-01-02", "America/New_York": "2030-01-01"}
