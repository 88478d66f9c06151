"""The daily archive in the browser (docs/daily.md, "The archive"): the calendar, moved
through with the keyboard, plays a past date as practice on the Poker Squares screen; back on
the daily page the date shows the practice score beside that date's own board, and the board
and the streak are what they were. Both languages and sizes, axe-clean."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from cardtable.server.core.store.sql import SqlStore
from cardtable.server.daily.store import DailyStore, Settled
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.helpers import cell, place_by_api, wait_placed

from .test_daily import LOCALE, as_player, old_player, player_api

BOARD = [131, 117, 96]


def past_date_with_a_board(app: FastAPI) -> str:
    """A date that has ended everywhere (three days back), its deal drawn and three players
    ranked on its American board."""
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    daily = DailyStore(store)
    # The browser's calendar is on the machine's zone; three days back is past in any zone.
    day = (datetime.now(UTC) - timedelta(days=3)).date().isoformat()
    daily.deal(day, "american")
    for i, total in enumerate(BOARD):
        who = f"archive-board-{day}-{i}"
        if daily.claim(who, day, "american", True):
            daily.attach(who, day, "american", f"game-{who}")
            entry = daily.entry(who, day, "american")
            assert entry is not None
            daily.close(who, entry, Settled(total, [None] * 10, False, f"{day}T12:00:00+00:00"))
    return day


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("ja", True)])
def test_the_calendar_plays_a_past_day_as_practice(
    new_page: NewPage, live_app: FastAPI, live_url: str, lang: str, phone: bool
) -> None:
    day = past_date_with_a_board(live_app)
    player = old_player(live_app, live_url)
    before = player_api(live_url, player, "GET", f"/api/daily/american?day={day}")
    streak = player_api(live_url, player, "GET", "/api/daily/american")["streak"]
    page = new_page(phone=phone, locale=LOCALE[lang], init_script=as_player(player))
    page.goto("/daily.html")
    archive = page.locator("#archive")
    expect(archive).to_be_visible()
    # The calendar starts on yesterday; two days back with the arrow keys is the date.
    archive.locator("button[data-day][tabindex='0']").focus()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    date = archive.locator(f"button[data-day='{day}']")
    expect(date).to_be_focused()
    label = date.locator(".archive-name").text_content() or ""
    assert ("not played yet" if lang == "en" else "まだ遊んでいません") in label
    page.keyboard.press("Enter")
    expect(page.locator("#archive-play")).to_be_visible()
    expect(page.locator("#archive-board-summary")).to_contain_text("3")
    check_screen(page, f"daily archive, a date chosen ({lang})", phone=phone)

    page.locator("#archive-play").click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#daily-counted")).to_have_count(0)
    place_by_api(page)
    page.locator(cell(page, 4, 4)).click()
    wait_placed(page, 25)
    page.locator("#daily-back").click()

    page.wait_for_url(f"**/daily.html?table=american&archive={day}")
    expect(page.locator("#archive-day-title")).to_be_focused()
    best = player_api(live_url, player, "GET", f"/api/daily/archive/american?month={day[:7]}")
    played = next(d for d in best["days"] if d["day"] == day)
    assert played["plays"] == 1 and played["best"] is not None
    expect(page.locator("#archive-day-text")).to_contain_text(str(played["best"]))
    assert str(played["best"]) in (date.locator(".archive-name").text_content() or "")
    # The date's own board beside it: its three players, unchanged, and where the score sits.
    rows = page.locator("#archive-board-box tbody tr")
    expect(rows).to_have_count(len(BOARD))
    after = player_api(live_url, player, "GET", f"/api/daily/american?day={day}")
    assert after["board"] == before["board"] and after["me"] is None
    assert player_api(live_url, player, "GET", "/api/daily/american")["streak"] == streak
    check_screen(page, f"daily archive, after a practice ({lang})", phone=phone)
