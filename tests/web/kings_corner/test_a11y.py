"""The end of a 5-round, 4-player match at 1280x800: the results fit the window with their
totals, the winner and New match, and the screen passes axe-core. (Every other state of the
screen is checked with axe and for tap targets in tests/web/kings_corner/test_screens.py, at both
sizes and in both languages, as it is photographed.)"""

from __future__ import annotations

from fastapi import FastAPI
from playwright.sync_api import Page, expect

from tests.web.a11y import check_screen
from tests.web.kc_helpers import (
    Seat,
    last_turn,
    page_version,
    play_turns,
    seeded_match,
)

FOUR: tuple[Seat, ...] = (
    ("human", None),
    ("computer", "easy"),
    ("computer", "normal"),
    ("computer", "easy"),
)


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
    check_screen(page, "end of a 5-round, 4-player match (desktop)", phone=False)


def assert_in_window(page: Page, locator: object) -> None:
    """Visible and inside the window's width (scrolling down to it is fine)."""
    expect(locator).to_be_visible()  # type: ignore[arg-type]
    box = locator.bounding_box()  # type: ignore[attr-defined]
    assert box is not None
    width = page.viewport_size["width"] if page.viewport_size else 1280
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
