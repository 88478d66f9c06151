"""Accessibility of every Kings Corner screen state, at desktop and phone size: axe-core on the
whole page (no violation of any impact) and tap targets of at least 44x44 px inside `<main>`
(the shared header is checked by the site-wide sweep). Also the end of a 5-round, 4-player
match at 1280x800: the results fit the window with their totals, the winner and New match."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable import kings_corner as kc
from tests.web.a11y import assert_no_axe_violations, small_tap_targets
from tests.web.conftest import NewPage
from tests.web.kc_helpers import (
    CENTRE,
    KC,
    Seat,
    card,
    last_turn,
    page_version,
    pile,
    pile_move_seed,
    play_turns,
    quick_seed,
    seeded_match,
    set_speed,
    settle,
)

FOUR: tuple[Seat, ...] = (
    ("human", None),
    ("computer", "easy"),
    ("computer", "normal"),
    ("computer", "easy"),
)
SIZES = ["desktop", "phone"]


def assert_main_tap_targets(page: Page, where: str) -> None:
    """Every visible control inside <main> is at least 44x44 px (the header, skip link and
    storage notice outside <main> are left inert while measuring)."""
    page.evaluate(
        """() => { for (const el of document.querySelectorAll('body > :not(main)')) {
            if (!el.inert) { el.inert = true; el.dataset.kcMeasure = ''; } } }"""
    )
    try:
        found = small_tap_targets(page)
    finally:
        page.evaluate(
            """() => { for (const el of document.querySelectorAll('[data-kc-measure]')) {
                el.inert = false; delete el.dataset.kcMeasure; } }"""
        )
    assert not found, f"tap targets under 44 px on {where}:\n" + "\n".join(found)


# axe-core's experimental rule that a control's name contains the words it shows (voice
# control users say what they see) runs too: the piles and hand cards show short words.
def check(page: Page, where: str, *, phone: bool) -> None:
    assert_no_axe_violations(page, where)  # label-content-name-mismatch turned on
    if phone:
        assert_main_tap_targets(page, where)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_every_state_passes_axe_and_tap_targets(
    new_page: NewPage, live_app: FastAPI, size: str, locale: str
) -> None:
    phone = size == "phone"
    page = new_page(phone=phone, locale=locale)
    tag = f"{locale}, {size}"

    page.goto(KC)
    expect(page.locator("#setup")).to_be_visible()
    check(page, f"setup ({tag})", phone=phone)
    page.locator("input[name=players][value='4']").check()
    page.locator("input[name=preset][value=custom]").check()
    check(page, f"setup, custom rules ({tag})", phone=phone)

    seed = pile_move_seed()
    seeded_match(page, live_app, seed, rounds=3, speed="slow")
    state = settle(page, live_app).match.state
    moves = [str(m) for m in kc.legal_moves(state)]
    check(page, f"table ({tag})", phone=phone)
    first_play = next(m for m in moves if m != "end" and m.split(">")[0] not in CENTRE)
    card(page, first_play.split(">")[0]).click()
    expect(page.locator("#cross .pile.target").first).to_be_visible()
    check(page, f"a card chosen ({tag})", phone=phone)
    page.keyboard.press("Escape")
    first_shift = next(m for m in moves if m.split(">")[0] in CENTRE)
    pile(page, first_shift.split(">")[0]).click()
    expect(page.locator("#cross .pile.target").first).to_be_visible()
    check(page, f"a pile chosen ({tag})", phone=phone)
    page.keyboard.press("Escape")

    page.locator("#end-btn").click()
    expect(page.locator("#next-btn")).to_be_visible()
    check(page, f"next player ({tag})", phone=phone)
    page.locator("#next-btn").click()
    page.keyboard.press("p")  # slow: the computer waits 1.6 s before its first step
    expect(page.locator("#pause-overlay")).to_be_visible()
    expect(page.locator("#table")).to_have_attribute("data-phase", "computer")
    check(page, f"computer turn, paused ({tag})", phone=phone)
    set_speed(page, "instant")

    seeded_match(page, live_app, seed, seats=(("human", None), ("human", None)))
    expect(page.locator("#handoff")).to_be_visible()
    check(page, f"hand-off ({tag})", phone=phone)

    seeded_match(page, live_app, quick_seed(rounds=3).seed, rounds=3)
    play_turns(page, live_app)
    expect(page.locator("#next-round-btn")).to_be_visible()
    check(page, f"end of a round ({tag})", phone=phone)

    seeded_match(page, live_app, None, seats=FOUR, rounds=5, table=last_turn(FOUR, 5))
    play_turns(page, live_app, until=("match_over",))
    expect(page.locator("#new-match-btn")).to_be_visible()
    check(page, f"end of the match ({tag})", phone=phone)


def test_five_round_four_player_result_fits_1280(page: Page, live_app: FastAPI) -> None:
    """After 5 rounds with 4 players the results fit a 1280x800 window: no sideways scroll,
    and the totals, the winner and New match can be seen."""
    seeded_match(page, live_app, None, seats=FOUR, rounds=5, table=last_turn(FOUR, 5))
    table = play_turns(page, live_app, until=("match_over",))
    assert table.phase == "match_over"
    expect(page.locator("#end-table td[data-round]")).to_have_count(5 * 4)
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"
    winners = table.match.winners or ()
    for seat in range(4):
        total = page.locator(f"#end-table tr[data-seat='{seat}'] td.total")
        expect(total).to_have_text(str(table.match.totals[seat]))
        assert_in_window(page, total)
    for seat in winners:
        mark = page.locator(f"#end-table tr[data-seat='{seat}'] .win-mark")
        assert_in_window(page, mark)
    summary = page.locator("#end-summary")
    expect(summary).to_be_visible()
    assert_in_window(page, summary)
    assert_in_window(page, page.locator("#new-match-btn"))
    # The summary sentence is said once on the screen, in the end panel.
    text = summary.inner_text()
    assert page.locator("#table").inner_text().count(text) == 1
    assert page_version(page) > 0


def assert_in_window(page: Page, locator: object) -> None:
    """Visible and inside the window's width (scrolling down to it is fine)."""
    expect(locator).to_be_visible()  # type: ignore[arg-type]
    box = locator.bounding_box()  # type: ignore[attr-defined]
    assert box is not None
    width = page.viewport_size["width"] if page.viewport_size else 1280
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
