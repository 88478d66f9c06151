"""The daily archive over HTTP (docs/daily.md, "The archive"): a past date dealt again as
practice, its board and the streak unchanged after, the calendar showing the player's own
practice score (and nobody else's), dates still open or not reached refused, dates without a
stored deal not available."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import FastAPI

from cardtable import fairness
from tests.server.helpers import Api, Clock

from .test_api import board, created_at, finish

EVENING = datetime(2030, 1, 1, 20, 0, tzinfo=UTC)
LATER = datetime(2030, 1, 3, 9, 0, tzinfo=UTC)  # 1 January has ended everywhere
CAL = "/api/daily/archive/american?month=2030-01"


def archive_play(api: Api, day: str, status: int = 201, **body: Any) -> Any:
    return api.post(f"/api/daily/american/archive/{day}/play", body or None, status=status)


def calendar(api: Api, month: str = "2030-01") -> dict[str, Any]:
    answer = api.get(f"/api/daily/archive/american?month={month}")
    return {d["day"]: d for d in answer["days"]}


def test_a_past_date_plays_as_practice_and_changes_no_board_or_streak(
    app: FastAPI, api: Api, other: Api
) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    created_at(app, api, EVENING - timedelta(days=3))
    entry = api.post("/api/daily/american/play", {"day": "2030-01-01"}, status=201)
    done = finish(api, entry["game"])
    clock.at = LATER
    before = board(api, day="2030-01-01")
    assert before["me"]["rank"] == 1 and before["board"]["players"] == 1
    streak = board(api, day="2030-01-03")["streak"]

    dealt = archive_play(api, "2030-01-01")
    game = dealt["game"]
    assert dealt["day"] == "2030-01-01" and not dealt["counted"] and not dealt["eligible"]
    assert game["view"]["practice"] and game["view"]["replay"]
    # The same deal, still one card at a time, its seed not shown before the end.
    assert game["view"]["card"] == entry["game"]["view"]["card"] and game["view"]["placed"] == 0
    assert game["view"]["fairness"]["seed"] is None
    over = finish(api, game)
    assert over["view"]["is_over"]
    # The date is over everywhere: its published seed deals exactly these cards.
    fair = over["view"]["fairness"]
    assert fairness.commitment(fair["seed"], fair["salt"]) == before["fairness"]["commitment"]

    after = board(api, day="2030-01-01")
    assert after["board"] == before["board"] and after["me"] == before["me"]
    assert board(api, day="2030-01-03")["streak"] == streak
    # The calendar marks the date with the practice score, for this player only.
    days = calendar(api)
    assert days["2030-01-01"]["best"] == over["view"]["total"]
    assert days["2030-01-01"]["plays"] == 1 and days["2030-01-01"]["playable"]
    assert calendar(other)["2030-01-01"]["best"] is None
    assert calendar(other)["2030-01-01"]["plays"] == 0
    # Played again and left unfinished: the best stays, the deal is counted as dealt.
    archive_play(api, "2030-01-01")
    assert calendar(api)["2030-01-01"] == {**days["2030-01-01"], "plays": 2}
    # It is the player's data: in their export, and nobody else's.
    best = over["view"]["total"]
    assert api.get("/api/stats/export")["daily_archive"] == [
        {"day": "2030-01-01", "table": "american", "best": best, "plays": 2}
    ]
    assert other.get("/api/stats/export")["daily_archive"] == []
    # "Delete my data" deletes it with the rest.
    assert api.client.delete("/api/stats/data", headers=api.headers).status_code == 204
    store = app.state.runtime.store
    with store.reading() as tx:
        assert tx.execute("SELECT COUNT(*) FROM daily_practice").fetchone()[0] == 0
    assert done["view"]["is_over"]


def test_dates_still_open_not_reached_or_never_dealt_are_refused(app: FastAPI, api: Api) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    api.get("/api/daily/american?day=2030-01-01")  # draws 1 January's deal (and 3 January's)
    # Still open somewhere: played from the daily, not the archive.
    assert archive_play(api, "2030-01-01", status=409)["code"] == "day_open"
    clock.at = LATER
    # Not reached by any time zone yet (4 January starts at 10:00 UTC on 3 January).
    assert archive_play(api, "2030-01-05", status=404)["code"] == "not_found"
    assert archive_play(api, "2030-01-04", status=404)["code"] == "not_found"
    # A date nobody asked for has no deal: none is drawn for it now.
    assert archive_play(api, "2029-12-31", status=404)["code"] == "not_found"
    assert archive_play(api, "2030-02-30", status=404)["code"] == "not_found"
    api.post("/api/daily/american/archive/soon/play", status=422)
    days = calendar(api)
    assert len(days) == 31
    assert days["2030-01-01"]["playable"] and not days["2030-01-01"]["open"]
    assert days["2030-01-02"]["open"] and not days["2030-01-02"]["playable"]
    assert days["2030-01-03"]["open"] and not days["2030-01-03"]["playable"]
    assert not days["2030-01-20"]["playable"] and not days["2030-01-20"]["open"]
    whole = api.get(CAL)
    assert whole["first_day"] == "2030-01-01" and whole["newest_closed"] == "2030-01-01"
    # A month no time zone has reached, or not a month, is refused.
    assert api.get("/api/daily/archive/american?month=2030-02", status=404)
    assert api.get("/api/daily/archive/american?month=2030-13", status=404)
    assert api.get("/api/daily/archive/american?month=2030-1", status=422)


def test_an_archive_deal_asks_before_replacing_a_counted_attempt(app: FastAPI, api: Api) -> None:
    clock = Clock(EVENING)
    app.state.daily_clock = clock
    api.get("/api/daily/american?day=2030-01-01")
    clock.at = LATER
    attempt = api.post("/api/daily/american/play", {"day": "2030-01-03"}, status=201)
    refused = archive_play(api, "2030-01-01", status=409)
    assert refused["code"] == "replaces_counted"
    assert refused["counted"]["game_id"] == attempt["game"]["id"]
    assert archive_play(api, "2030-01-01", replace_counted=True)["day"] == "2030-01-01"
    assert board(api, day="2030-01-03")["me"]["status"] == "lost"
