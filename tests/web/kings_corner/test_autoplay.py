"""One person against computers (issue 29, item 9): after End turn the computers' turns play on
by themselves at the chosen pace, each step announced and logged, with no "Next player" to
press (that step is kept for handing one device between people,
tests/web/kings_corner/test_kings_corner.py).
And every hand card has one accessible name ("King of diamonds", not "K king of diamonds").
In English and Japanese, at 390x844 and 1280x800, photographed and checked with axe-core."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.server.games.saved_match import SavedMatch
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.kc_helpers import (
    Seat,
    hand_cards,
    page_version,
    seeded_match,
    settle,
    shot,
    wait_version_change,
)

FOUR: tuple[Seat, ...] = (
    ("human", None),
    ("computer", "easy"),
    ("computer", "normal"),
    ("computer", "easy"),
)
LANGS = {"en": "en-US", "ja": "ja-JP"}
BUNDLES = Path(__file__).resolve().parents[3] / "cardtable" / "web" / "assets" / "i18n"
FAST_DELAY_MS = 350  # main.js SPEEDS.fast: the wait before each computer step

# Records the time of every new version the page shows (each computer step is one).
WATCH = """() => {
  window.__versions = [];
  const table = document.getElementById('table');
  new MutationObserver(() => window.__versions.push([table.dataset.version, performance.now()]))
    .observe(table, {attributes: true, attributeFilter: ['data-version']});
}"""


def round_back_to_me() -> int:
    """A four-player deal where the person starts, ends the turn at once, and the three
    computers' turns after it hand the play back to the person (the round goes on)."""
    for seed in range(1, 200):
        table = SavedMatch.new(FOUR, kc.Rules(), 1, seed)
        if table.match.state.to_play != 0:
            continue
        table, _, _ = table.played(0, "end", computer=False)
        while table.phase == "computer":
            seat = table.match.state.to_play
            move = choose_move(
                table.match.view(seat), FOUR[seat][1] or "normal", table.computer_rng()
            )
            table, _, _ = table.played(seat, move, computer=True)
        if table.phase == "play":
            return seed
    raise AssertionError("no seed")


def card_name(lang: str, code: str) -> str:
    words = json.loads((BUNDLES / f"{lang}.json").read_text(encoding="utf-8"))
    name = words["card.name"].format(rank=words[f"rank.{code[0]}"], suit=words[f"suit.{code[1]}"])
    return str(name[:1].upper() + name[1:])


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_computers_play_on_without_next_player(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, phone: bool, lang: str
) -> None:
    page = new_page(phone=phone, locale=LANGS[lang])
    size = "phone" if phone else "desktop"
    seeded_match(page, live_app, round_back_to_me(), seats=FOUR, speed="fast")
    start = settle(page, live_app)
    assert start.phase == "play" and start.match.state.to_play == 0

    # One accessible name per hand card: the card's name, its index not said twice.
    for code in hand_cards(page):
        label = page.locator(f"#hand .hand-card[data-card='{code}']").get_attribute("aria-label")
        assert label is not None and label.startswith(card_name(lang, code)), (code, label)
        if code[0] in "JQKA":
            assert not label.startswith(f"{code[0]} "), label

    page.evaluate(WATCH)
    before = page_version(page)
    page.locator("#end-btn").click()
    # The click's answer first (settle alone could return the table as it was before it).
    wait_version_change(page, before)
    table = settle(page, live_app)
    expect(page.locator("#next-btn")).to_be_hidden()
    steps = [e for e in table.log if e["seat"] != 0]
    assert steps, "no computer moved"
    # Every computer step was shown, one at a time, at the chosen pace.
    versions = page.evaluate("() => window.__versions")
    times = [t for _, t in versions]
    assert len(times) >= len(steps) + 1, (versions, steps)
    gaps = [b - a for a, b in itertools.pairwise(times)]
    # Each step waits the delay, then asks the server, then draws. A time is taken when the
    # observer is told, after the rest of that step's drawing, so a gap may look shorter by a
    # draw's time on a busy machine, and a timer may fire a little early; over all the steps
    # the delays add up (steps drawn together, unpaced, would be a few ms apart).
    assert gaps and min(gaps) >= FAST_DELAY_MS / 2, gaps
    assert times[-1] - times[0] >= 0.9 * FAST_DELAY_MS * len(gaps), gaps
    # The log lists the computers' moves, and the turn coming back is announced.
    computer = "Computer" if lang == "en" else "CPU"
    expect(page.locator("#move-log li").first).to_contain_text(computer)
    if table.phase == "play":
        turn_back = page.locator("#live-log p").last
        expect(turn_back).to_contain_text("Your turn" if lang == "en" else "あなたの番")
        expect(page.locator("#hand .hand-card").first).to_be_focused()
    # The line under the board no longer speaks of the computers' turn.
    expect(page.locator("#message")).to_have_text("")
    shot(page, screenshot_dir, f"after-computers-{size}-{lang}")
    check_screen(page, f"kings corner, after the computers' turns ({size}, {lang})", phone=phone)


SPOKEN = {
    "en": {"ended": ", then ended its turn.", "none": " ended its turn without playing."},
    "ja": {"ended": "、手番を終えました。", "none": "は何も出さずに手番を終えました。"},
}


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("ja", True)])
def test_a_screen_reader_hears_each_computer_turn_once(
    new_page: NewPage, live_app: FastAPI, lang: str, phone: bool
) -> None:
    """At the instant pace (reduced motion forces it) three computers play one after the
    other within a fraction of a second; each turn is said once, as one sentence, queued in
    the log region after the person's own end of turn, never cut short by the next."""
    page = new_page(phone=phone, locale=LANGS[lang], reduced_motion="reduce")
    seeded_match(page, live_app, round_back_to_me(), seats=FOUR, speed="slow")
    settle(page, live_app)
    expect(page.locator("#speed")).to_have_value("instant")
    # The line under the table shows the same words: it is not a second live region.
    assert page.locator("#message").get_attribute("aria-live") is None
    before = page_version(page)
    page.locator("#end-btn").click()
    wait_version_change(page, before)
    table = settle(page, live_app)
    assert table.phase == "play"
    turns: list[list[dict[str, object]]] = []
    for entry in table.log:
        if entry["seat"] == 0:
            continue
        if not turns or turns[-1][-1]["move"] == "end":
            turns.append([])
        turns[-1].append(entry)
    assert len(turns) == 3 and all(t[-1]["move"] == "end" for t in turns), turns
    spoken = page.locator("#live-log p")
    expect(spoken).to_have_count(1 + len(turns))
    said = spoken.all_inner_texts()
    you = "You" if lang == "en" else "あなた"
    assert said[0].startswith(you), said
    words = SPOKEN[lang]
    name = "Computer {n}" if lang == "en" else "CPU {n}"
    for sentence, turn in zip(said[1:], turns, strict=True):
        seat = int(str(turn[0]["seat"]))
        assert sentence.startswith(name.format(n=seat + 1)), sentence
        plays = [str(e["move"]) for e in turn if ">" in str(e["move"])]
        cards = [m.split(">")[0] for m in plays if not m.startswith(("N", "E", "S", "W"))]
        for code in cards:
            assert card_name(lang, code).lower() in sentence.lower(), (code, sentence)
        assert ", ," not in sentence and "、、" not in sentence, sentence
        ending = words["ended"] if len(turn) > 1 else words["none"]
        assert ending in sentence, sentence
        # One sentence: one full stop before what follows the turn (the person's turn).
        assert sentence.count("." if lang == "en" else "。") >= 1
        head = sentence.split(ending)[0]
        assert ("." if lang == "en" else "。") not in head, sentence
    assert ("Your turn" if lang == "en" else "あなたの番") in said[-1]
    # Nothing of the computers' turns was said step by step in the other live region.
    assert name.format(n=2) not in (page.locator("#live").text_content() or "")
