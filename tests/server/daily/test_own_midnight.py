"""The daily on the player's own calendar (docs/daily.md, "Your own midnight"), with the
daily's injected clock: a player in Tokyo (UTC+9) and one in New York (UTC-5) each get the
deal of their own date at the same moment; a date opens when UTC+14 reaches it and its board
stays open until UTC-12 has left it, then takes no new entry and publishes its seed; a date
no time zone has reached is refused; the next date's commitment is out before anyone can play
it; the streak counts the player's own dates; an entry finished after the close is not
ranked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from cardtable import fairness
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.daily.store import DailyStore, draw_upcoming
from cardtable.server.games import records
from cardtable.server.games.public import PS_KIND
from tests.server.helpers import Api, Clock

from .test_api import board, created_at, finish

# 20:00 UTC on 1 January: 05:00 on 2 January in Tokyo, 15:00 on 1 January in New York.
EVENING = datetime(2030, 1, 1, 20, 0, tzinfo=UTC)
OLD = EVENING - timedelta(days=3)


def play(api: Api, day: str, table: str = "american", status: int = 201) -> Any:
    return api.post(f"/api/daily/{table}/play", {"day": day}, status=status)


def test_each_player_gets_the_deal_of_their_own_date(
    app: FastAPI, api: Api, other: Api, client: TestClient
) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    tokyo, new_york = api, other
    for who in (tokyo, new_york):
        created_at(app, who, OLD)
    jan2 = play(tokyo, "2030-01-02")
    jan1 = play(new_york, "2030-01-01")
    assert jan2["day"] == "2030-01-02" and jan2["counted"] and jan2["eligible"]
    assert jan1["day"] == "2030-01-01" and jan1["counted"] and jan1["eligible"]
    # The same date is the same deal for everyone, wherever they are.
    third = Api.new_player(client)
    assert play(third, "2030-01-02")["game"]["view"]["card"] == jan2["game"]["view"]["card"]
    t_done = finish(tokyo, jan2["game"])
    n_done = finish(new_york, jan1["game"])

    # Each board has its own player; both dates are still open, their seeds withheld.
    day2 = board(tokyo, day="2030-01-02")
    day1 = board(new_york, day="2030-01-01")
    assert day2["today"] and day1["today"]
    assert day2["me"]["rank"] == 1 and day2["me"]["total"] == t_done["view"]["total"]
    assert day1["me"]["rank"] == 1 and day1["me"]["total"] == n_done["view"]["total"]
    assert day1["fairness"]["seed"] is None and day2["fairness"]["seed"] is None
    assert day2["streak"] == {"current": 1, "best": 1}
    # The first time zone reached 2 January at 10:00 UTC on 1 January; the last leaves it at
    # 12:00 UTC on 3 January.
    assert day2["starts_at"].startswith("2030-01-01T10:00:00")
    assert day2["ends_at"].startswith("2030-01-03T12:00:00")

    # At each date's end its board is closed as it stands, with the seed published.
    for end, day, who, done in (
        (datetime(2030, 1, 2, 12, 0, tzinfo=UTC), "2030-01-01", new_york, n_done),
        (datetime(2030, 1, 3, 12, 0, tzinfo=UTC), "2030-01-02", tokyo, t_done),
    ):
        clock.at = end - timedelta(seconds=1)
        assert board(who, day=day)["today"]
        clock.at = end
        closed = board(who, day=day)
        assert not closed["today"] and closed["fairness"]["seed"] is not None
        assert closed["board"]["players"] == 1
        assert closed["board"]["top"] == [
            {"rank": 1, "name": None, "total": done["view"]["total"], "mine": True}
        ]
        assert play(third, day, status=409)["code"] == "day_closed"


def test_boards_close_when_the_date_has_ended_everywhere(
    app: FastAPI, api: Api, other: Api, client: TestClient
) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    created_at(app, api, OLD)
    created_at(app, other, OLD)
    first = finish(api, play(api, "2030-01-01")["game"])
    # One second before UTC-12 leaves 1 January, a player there still enters it.
    clock.at = datetime(2030, 1, 2, 11, 59, 59, tzinfo=UTC)
    late = play(other, "2030-01-01")
    assert late["counted"] and late["eligible"]
    last = finish(other, late["game"])
    # At 12:00 UTC on 2 January the date has ended everywhere: no new entry, no replay ...
    clock.at = datetime(2030, 1, 2, 12, 0, tzinfo=UTC)
    newcomer = Api.new_player(client)
    assert play(newcomer, "2030-01-01", status=409)["code"] == "day_closed"
    assert play(api, "2030-01-01", status=409)["code"] == "day_closed"
    # ... and its board is what it was: both players, and the seed published.
    closed = board(newcomer, day="2030-01-01")
    assert not closed["today"] and closed["seconds_left"] == 0
    totals = sorted([first["view"]["total"], last["view"]["total"]], reverse=True)
    assert [r["total"] for r in closed["board"]["top"]] == totals
    fair = closed["fairness"]
    assert fair["seed"] and fairness.commitment(fair["seed"], fair["salt"]) == fair["commitment"]
    # 2 January is still open (until 12:00 UTC on 3 January), with its seed withheld.
    day2 = board(newcomer, day="2030-01-02")
    assert day2["today"] and day2["fairness"]["seed"] is None
    assert day2["seconds_left"] == 24 * 3600


def test_a_date_no_time_zone_has_reached_is_refused(app: FastAPI, api: Api) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    # At 20:00 UTC on 1 January, UTC+14 is at 10:00 on 2 January: 3 January is nowhere yet.
    assert api.get("/api/daily/american?day=2030-01-03", status=404)["code"] == "not_found"
    assert play(api, "2030-01-03", status=404)["code"] == "not_found"
    assert play(api, "2030-02-30", status=404)["code"] == "not_found"
    assert api.post("/api/daily/american/play", {"day": "soon"}, status=422)
    # Its commitment is out already, before any time zone can play it ...
    upcoming = board(api, day="2030-01-02")["upcoming"]
    assert upcoming["day"] == "2030-01-03" and len(upcoming["commitment"]) == 64
    # ... and it is the commitment of the deal dealt once UTC+14 reaches the date.
    clock.at = datetime(2030, 1, 2, 9, 59, 59, tzinfo=UTC)
    assert play(api, "2030-01-03", status=404)["code"] == "not_found"
    clock.at = datetime(2030, 1, 2, 10, 0, tzinfo=UTC)
    dealt = play(api, "2030-01-03")
    assert dealt["game"]["view"]["fairness"]["commitment"] == upcoming["commitment"]
    assert board(api, day="2030-01-03")["fairness"]["commitment"] == upcoming["commitment"]


def test_the_sweep_draws_the_next_dates_deal_when_nobody_reads_the_daily(
    app: FastAPI, api: Api
) -> None:
    """The retention sweep draws the deals of the date no zone has reached, so its commitment
    is out a day ahead even with no reader; the deal dealt at the date is that one."""
    at = datetime(2030, 1, 1, 10, 0, tzinfo=UTC)  # UTC+14 has just reached 2 January
    draw_upcoming(app.state.runtime, at.timestamp())  # as the sweep runs it
    drawn = {
        table: DailyStore(app.state.runtime.store).stored("2030-01-03", table)
        for table in ("american", "british")
    }
    assert all(d is not None and d.commitment for d in drawn.values())
    app.state.daily_clock = Clock(datetime(2030, 1, 2, 10, 0, tzinfo=UTC))
    dealt = play(api, "2030-01-03", table="british")
    british = drawn["british"]
    assert british is not None
    assert dealt["game"]["view"]["fairness"]["commitment"] == british.commitment


def test_ids_made_after_the_first_zone_reached_the_date_are_off_its_board(
    app: FastAPI, api: Api, other: Api
) -> None:
    """Tokyo saw the cards of 2 January from 15:00 UTC on 1 January (and UTC+14 from 10:00):
    an id made after 10:00 UTC that day is counted on 2 January but not ranked."""
    app.state.daily_clock = Clock(EVENING)
    created_at(app, api, datetime(2030, 1, 1, 9, 59, tzinfo=UTC))
    created_at(app, other, datetime(2030, 1, 1, 10, 0, tzinfo=UTC))
    assert play(api, "2030-01-02")["eligible"]
    assert not play(other, "2030-01-02")["eligible"]


def test_the_streak_counts_the_players_own_dates(app: FastAPI, api: Api) -> None:
    """A Tokyo player plays 2 January at 05:00 and 3 January at 01:00 their time: both on 1-2
    January in UTC, two dates in a row for them."""
    clock = Clock(EVENING)  # 05:00 on 2 January in Tokyo
    app.state.daily_clock = clock
    created_at(app, api, OLD)
    finish(api, play(api, "2030-01-02")["game"])
    clock.at = datetime(2030, 1, 2, 16, 0, tzinfo=UTC)  # 01:00 on 3 January in Tokyo
    assert board(api, day="2030-01-03")["streak"] == {"current": 1, "best": 1}
    finish(api, play(api, "2030-01-03")["game"])
    assert board(api, day="2030-01-03")["streak"] == {"current": 2, "best": 2}
    # A day later in Tokyo, 3 January's still counts while 4 January's is to play.
    clock.at = datetime(2030, 1, 3, 16, 0, tzinfo=UTC)
    assert board(api, day="2030-01-04")["streak"] == {"current": 2, "best": 2}
    # Missing 4 January breaks it once 5 January comes.
    clock.at = datetime(2030, 1, 4, 16, 0, tzinfo=UTC)
    assert board(api, day="2030-01-05")["streak"] == {"current": 0, "best": 2}


def test_an_entry_finished_after_the_close_counts_but_is_not_ranked(
    app: FastAPI, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Begun before 1 January closed, finished after it (its seed public by then): the
    board closed as it stood; the date still counts for the streak."""
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    created_at(app, api, OLD)
    game = finish(api, play(api, "2030-01-01")["game"], 24)
    # The finish is judged when the daily is next read, as after a stopped process ...
    monkeypatch.setitem(records._FINISHED[PS_KIND], "daily", lambda store, player: None)
    done = finish(api, game)
    monkeypatch.undo()
    # ... and the finish came after the close (the store writes the real time: moved here).
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    with store.transaction() as tx:
        tx.execute(
            store._sql("UPDATE finishes SET finished_at = ? WHERE game_id = ?"),
            ("2030-01-02T12:00:01.000000+00:00", done["id"]),
        )
    clock.at = datetime(2030, 1, 2, 12, 0, 5, tzinfo=UTC)
    closed = board(api, day="2030-01-01")
    assert closed["me"]["status"] == "counted" and not closed["me"]["ranked"]
    assert closed["me"]["total"] == done["view"]["total"]
    assert closed["board"]["players"] == 0
    assert board(api, day="2030-01-02")["streak"] == {"current": 1, "best": 1}
