"""The rating routes (docs/rating.md, "API") on both stores: a new player's rating is 1500
and provisional; the mark goes away at exactly the match where the library's sigma falls
below the threshold; the history is the chart's points; the board lists the settled ratings
of the last 30 days (a moved clock), by name only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.devices.players import player_key
from cardtable.server.rating.computers import COMPUTERS
from cardtable.server.rating.rate import Rater
from cardtable.server.rating.scale import PROVISIONAL_SIGMA, shown
from tests.server.helpers import Api, Clock

from .helpers import LIBRARY, computer, finish, person

START = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


def test_the_provisional_mark_goes_when_the_library_says(client: TestClient, rater: Rater) -> None:
    api = Api.new_player(client)
    me = api.get("/api/ratings/me")
    assert me == {"rating": 1500, "provisional": True, "matches": 0, "history": []}
    key = player_key(api.player_id)
    mine = LIBRARY.rating()
    flips = []
    for i in range(40):
        totals = (0, 5) if i % 3 else (9, 1)  # wins two of three against normal
        finish(rater, f"t{i}", (person(key, "Ann"), computer("normal")), totals)
        new = LIBRARY.rate([[mine], [LIBRARY.rating(*COMPUTERS["normal"])]],
                           ranks=[float(t) for t in totals])  # fmt: skip
        mine = new[0][0]
        me = api.get("/api/ratings/me")
        assert me["provisional"] == (mine.sigma >= PROVISIONAL_SIGMA), i
        assert me["rating"] == shown(mine.mu) and me["matches"] == i + 1
        flips.append(me["provisional"])
        if not me["provisional"]:
            break
    assert flips[0] and not flips[-1], "the rating settled within 40 matches"
    assert [p["provisional"] for p in me["history"]] == flips
    assert [p["place"] for p in me["history"]][:3] == [2, 1, 1]
    assert me["history"][-1]["rating"] == me["rating"]


def settle(rater: Rater, key: str, name: str, strength: str) -> None:
    """``key`` beats ``strength`` until their rating is no longer provisional."""
    for i in range(40):
        finish(rater, f"{key}-{i}", (person(key, name), computer(strength)), (0, 9))
        sigma = rater.store.ratings([key])[key].sigma
        if sigma < PROVISIONAL_SIGMA:
            return
    raise AssertionError("never settled")


def test_the_board_keeps_30_days_of_settled_ratings_by_name(
    client: TestClient, rater: Rater, app: FastAPI
) -> None:
    api = Api.new_player(client)
    me = player_key(api.player_id)
    rater.clock = Clock(START)
    settle(rater, me, "Ann", "normal")
    settle(rater, "bob", "Bob", "strong")
    finish(rater, "new", (person("carl", "Carl"), computer("easy")), (0, 9))  # provisional
    rater.clock = Clock(START + timedelta(days=10))
    settle(rater, "dora", "\u3164", "easy")  # a name no one can see is not shown
    settle(rater, "ed", "Shit", "easy")  # nor a name no one should have to read
    app.state.rating_clock = Clock(START + timedelta(days=29))
    board = api.get("/api/ratings/board")
    rows = board["rows"]
    assert [r["name"] for r in rows] == ["Bob", "Ann", None, None]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert [r["mine"] for r in rows] == [False, True, False, False]
    assert all(set(r) == {"rank", "name", "rating", "matches", "mine"} for r in rows)
    assert rows[0]["rating"] > rows[1]["rating"] > rows[2]["rating"] >= rows[3]["rating"]
    app.state.rating_clock = Clock(START + timedelta(days=31))
    assert [r["name"] for r in api.get("/api/ratings/board")["rows"]] == [None, None]
    app.state.rating_clock = Clock(START + timedelta(days=41))
    assert api.get("/api/ratings/board")["rows"] == []
    # Someone's board does not depend on who asks, but needs a player.
    assert client.get("/api/ratings/board").status_code == 401


def test_my_rating_is_in_my_data_export_and_deleted_with_it(
    client: TestClient, rater: Rater
) -> None:
    api = Api.new_player(client)
    key = player_key(api.player_id)
    finish(rater, "t", (person(key, "Ann"), person("bob", "Bob")), (0, 9))
    assert api.get("/api/ratings/me")["matches"] == 1
    kept = api.get("/api/stats/export")["ratings"]
    assert kept["rating"]["matches"] == 1 and kept["rating"]["name"] == "Ann"
    assert [p["place"] for p in kept["history"]] == [1]
    assert client.delete("/api/stats/data", headers=api.headers).status_code == 204
    assert rater.store.ratings([key, "bob"]).keys() == {"bob"}
    assert rater.store.history(key) == []
