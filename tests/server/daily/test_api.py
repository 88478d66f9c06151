"""The daily deal over HTTP on SQLite and PostgreSQL: one deal per UTC day and table for
everyone, the first unassisted attempt counted and later ones practice, the board (top,
rank, percentile, histogram) with only ids created before the day began, the day boundary
(an injected clock), streaks, display names, and two players finishing at the same moment."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from cardtable import fairness
from cardtable.server import Settings
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api, Clock, store_settings

DAY1 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=8) as settings:
        yield settings


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    c = Clock(DAY1)
    app.state.daily_clock = c
    return c


def created_at(app: FastAPI, api: Api, at: datetime) -> None:
    """Set when the player id was created (the store writes the real time)."""
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    assert api.player_id is not None
    with store.transaction() as tx:
        tx.execute(
            store._sql("UPDATE players SET created_at = ? WHERE id = ?"),
            (at.isoformat(), player_key(api.player_id)),
        )


def start(api: Api, table: str = "american", status: int = 201) -> Any:
    return api.post(f"/api/daily/{table}/play", status=status)


def finish(api: Api, game: Any, upto: int = 25) -> Any:
    """Place cards row by row until ``upto`` cells are filled."""
    for i in range(game["view"]["placed"], upto):
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
    return game


def board(api: Api, table: str = "american", day: str | None = None) -> Any:
    suffix = "" if day is None else f"?day={day}"
    return api.get(f"/api/daily/{table}{suffix}")


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_first_attempt_counts_and_later_ones_are_practice(
    app: FastAPI, api: Api, other: Api, clock: Clock
) -> None:
    created_at(app, api, DAY1 - timedelta(days=3))
    first = start(api)
    assert first["counted"] and first["day"] == "2030-01-01"
    assert not first["game"]["view"]["practice"]
    # The same deal for everyone that day and table; not the same at the other table.
    assert start(other)["game"]["view"]["card"] == first["game"]["view"]["card"]
    # Playing again before finishing resumes the attempt.
    part = finish(api, first["game"], 3)
    again = start(api)
    assert again["counted"] and again["game"]["id"] == first["game"]["id"]
    assert again["game"]["view"]["placed"] == 3
    done = finish(api, part)
    assert done["view"]["is_over"]

    day = board(api)
    me = day["me"]
    assert me["status"] == "counted" and me["ranked"] and me["eligible"]
    assert me["total"] == done["view"]["total"] and me["rank"] == 1 and me["percentile"] == 100
    assert me["lines"] == done["view"]["line_hands"]
    assert day["board"]["players"] == 1
    assert day["board"]["top"] == [{"rank": 1, "name": None, "total": me["total"], "mine": True}]
    assert day["board"]["histogram"] == [{"total": me["total"], "players": 1}]
    assert day["streak"] == {"current": 1, "best": 1}
    # Open from UTC+14's midnight to UTC-12's (docs/daily.md, "Your own midnight").
    assert day["today"] and day["seconds_left"] == 24 * 3600
    assert day["starts_at"].startswith("2029-12-31T10:00:00")
    assert day["ends_at"].startswith("2030-01-02T12:00:00")

    # A second attempt is practice from its first card, and never counted.
    replay = start(api)
    assert not replay["counted"] and replay["game"]["id"] != first["game"]["id"]
    assert replay["game"]["view"]["practice"] and replay["game"]["view"]["replay"]
    assert replay["game"]["view"]["card"] == first["game"]["view"]["card"]
    finish(api, replay["game"])
    assert board(api)["board"]["players"] == 1
    # The other player's view of the board: not theirs, and they are not on it (yet).
    seen = board(other)
    assert seen["board"]["top"][0]["mine"] is False
    assert seen["me"]["status"] == "open"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_hint_makes_the_attempt_practice(app: FastAPI, api: Api, clock: Clock) -> None:
    created_at(app, api, DAY1 - timedelta(days=2))
    game = start(api, "british")["game"]
    game = api.ps(game, "hint")["game"]
    finish(api, game)
    day = board(api, "british")
    assert day["me"]["status"] == "practice" and not day["me"]["ranked"]
    assert day["me"]["rank"] is None and day["board"]["players"] == 0
    assert day["streak"] == {"current": 0, "best": 0}
    assert not start(api, "british")["counted"]


def test_a_new_deal_asks_before_replacing_the_counted_attempt(
    app: FastAPI, api: Api, clock: Clock
) -> None:
    created_at(app, api, DAY1 - timedelta(hours=1))  # joined today: counted, not ranked
    game = start(api)["game"]
    part = finish(api, game, 2)
    counted = {
        "what": "daily",
        "game_id": game["id"],
        "day": "2030-01-01",
        "table": "american",
        "eligible": False,
    }
    # "Continue" names the unfinished deal as today's counted daily.
    assert api.get("/api/continue")["poker_squares_counted"] == counted
    # A new deal, or the other table's daily, is refused until the player says so ...
    refused = api.ps_new(status=409, table="british", target="easy")
    assert refused["code"] == "replaces_counted" and refused["counted"] == counted
    refused = api.post("/api/daily/british/play", status=409)
    assert refused["code"] == "replaces_counted" and refused["counted"] == counted
    # ... and the attempt is untouched: still open, the same deal, still counted.
    assert board(api)["me"]["status"] == "open"
    again = start(api)
    assert again["counted"] and again["game"]["id"] == game["id"]
    assert again["game"]["view"]["placed"] == 2
    assert api.get("/api/continue")["poker_squares"]["id"] == game["id"]
    # Saying so replaces it: the attempt is lost and a later one is practice.
    api.ps_new(table="american", target="normal", replace_counted=True)
    assert api.get("/api/continue")["poker_squares_counted"] is None
    assert board(api)["me"]["status"] == "lost"
    assert not start(api)["counted"]
    assert part["id"] == game["id"]


def test_a_practice_or_finished_attempt_is_replaced_without_asking(
    app: FastAPI, api: Api, clock: Clock
) -> None:
    # A hint made it practice: nothing left to count, so no question.
    game = api.ps(start(api)["game"], "hint")["game"]
    assert api.get("/api/continue")["poker_squares_counted"] is None
    api.ps_new(table="american", target="normal")
    assert board(api)["me"]["status"] == "lost"
    # The other table's attempt, once finished, counts already: the next deal just deals.
    finish(api, start(api, "british")["game"])
    assert api.ps_new(table="american", target="normal")["view"]["placed"] == 0
    assert board(api, "british")["me"]["status"] == "counted"
    assert game["view"]["practice"]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_day_boundary_and_new_ids(app: FastAPI, api: Api, other: Api, clock: Clock) -> None:
    # `api` existed before the day reached any time zone; `other` was created after UTC+14
    # reached it (but before it reached the next date): counted, not ranked.
    created_at(app, api, DAY1 - timedelta(days=2))
    created_at(app, other, DAY1 - timedelta(hours=3))
    clock.at = datetime(2030, 1, 1, 23, 59, 59, tzinfo=UTC)
    a = finish(api, start(api)["game"])
    b = finish(other, start(other)["game"])
    mine = board(other)
    assert mine["seconds_left"] == 12 * 3600 + 1  # UTC-12 is still on the date
    assert mine["me"]["status"] == "counted" and not mine["me"]["eligible"]
    assert not mine["me"]["ranked"] and mine["me"]["rank"] is None
    assert mine["board"]["players"] == 1 and not mine["board"]["top"][0]["mine"]
    assert mine["streak"]["current"] == 1  # counted, so the streak goes on

    clock.at = datetime(2030, 1, 2, 0, 0, 0, tzinfo=UTC)  # midnight UTC: a new day
    day2 = board(other)
    assert day2["day"] == "2030-01-02" and day2["me"] is None
    assert day2["previous_days"] == ["2030-01-01"] and day2["seconds_left"] == 36 * 3600
    assert day2["streak"] == {"current": 1, "best": 1}  # yesterday's still counts
    second = start(other)
    assert second["counted"] and second["day"] == "2030-01-02"
    assert second["game"]["id"] != b["id"]
    finish(other, second["game"])
    day2 = board(other)
    assert day2["me"]["ranked"]  # created before this day began
    assert day2["streak"] == {"current": 2, "best": 2}
    old = board(api, day="2030-01-01")
    assert old["today"] and old["seconds_left"] == 12 * 3600  # still open in UTC-12
    clock.at = datetime(2030, 1, 2, 12, 0, 0, tzinfo=UTC)  # ended everywhere: closed
    old = board(api, day="2030-01-01")
    assert not old["today"] and old["seconds_left"] == 0
    assert old["me"]["total"] == a["view"]["total"] and old["me"]["rank"] == 1


def test_bad_days(api: Api, clock: Clock) -> None:
    # Tomorrow (UTC) is reached in UTC+14 already; the day after is not reached anywhere.
    assert api.get("/api/daily/american?day=2030-01-03", status=404)["code"] == "not_found"
    assert api.get("/api/daily/american?day=2030-13-01", status=404)
    assert api.get("/api/daily/american?day=2029-02-29", status=404)
    assert api.get("/api/daily/american?day=yesterday", status=422)
    assert api.get("/api/daily/piquet", status=422)


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_two_players_finish_at_the_same_moment(app: FastAPI, client: Any, clock: Clock) -> None:
    players = [Api.new_player(client) for _ in range(2)]
    games = []
    for p in players:
        created_at(app, p, DAY1 - timedelta(days=2))
        games.append(finish(p, start(p)["game"], 24))
    barrier = threading.Barrier(2)
    out: list[Any] = [None, None]
    errors: list[BaseException] = []

    def last(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            finish(players[i], games[i])
            barrier.wait(timeout=10)
            out[i] = board(players[i])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=last, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors
    final = board(players[0])["board"]
    # The same deal played the same way: one total, two players sharing rank 1.
    assert final["players"] == 2
    assert final["histogram"] == [{"total": out[0]["me"]["total"], "players": 2}]
    assert [r["rank"] for r in final["top"]] == [1, 1]
    assert all(o["me"]["rank"] == 1 and o["me"]["percentile"] == 100 for o in out)


def test_display_name(app: FastAPI, api: Api, clock: Clock) -> None:
    created_at(app, api, DAY1 - timedelta(days=2))
    name = "/api/daily/me/name"
    assert api.call("PUT", name, {"name": " ＡＢＣ "}) == {"name": "ABC"}
    finish(api, start(api)["game"])
    assert board(api)["board"]["top"][0]["name"] == "ABC"
    assert board(api)["display_name"] == "ABC"
    # At most 24 characters once normalised; control and format characters are dropped.
    assert api.call("PUT", name, {"name": "x" * 30}) == {"name": "x" * 24}
    assert api.call("PUT", name, {"name": "a\u0000b\u200bc"}) == {"name": "abc"}
    assert api.call("PUT", name, {"name": "   "}) == {"name": None}
    api.call("PUT", name, {"name": "x" * 257}, status=422)
    # Issue 45: a body without a name changes nothing; names that show nothing, pile up
    # accents or are drawn far wider than their length are refused.
    assert api.call("PUT", name, {"name": "Kim"}) == {"name": "Kim"}
    assert api.call("PUT", name, {}, status=422)["code"] == "invalid_request"
    for refused in ("\u0001 ", "\u0301\u0301\u0301", "\u3164\u3164", "\ufdfd" * 10, "a\u2e3b",
                    "Z" + "\u0336\u0334\u0308\u0327\u0335", "\U00012219"):  # fmt: skip
        answer = api.call("PUT", name, {"name": refused}, status=422)
        assert answer["code"] == "invalid_name", refused
    assert board(api)["display_name"] == "Kim"
    # Accents a script needs, and emoji sequences, are kept.
    assert api.call("PUT", name, {"name": "क्षि Ñandú 👩\u200d💻"}) == {
        "name": "क्षि Ñandú 👩\u200d💻"
    }
    # Markup is kept as text: the page shows it with textContent.
    assert api.call("PUT", name, {"name": "<b>&</b>"}) == {"name": "<b>&</b>"}
    assert board(api)["board"]["top"][0]["name"] == "<b>&</b>"
    assert api.call("PUT", name, {"name": None}) == {"name": None}
    assert board(api)["board"]["top"][0]["name"] is None


def test_the_day_is_provably_fair_and_its_seed_waits_for_the_day_to_end(
    app: FastAPI, api: Api, clock: Clock
) -> None:
    """The commitment is published with the first read of the day; the seed and salt are
    in no game answer (not even a finished one, nor its practice replay) until the day is
    over, and then they match the commitment and deal exactly the day's cards."""
    day = board(api)
    fair = day["fairness"]
    assert fair["seed"] is None and fair["salt"] is None and len(fair["commitment"]) == 64
    first = start(api)
    assert first["game"]["view"]["fairness"]["commitment"] == fair["commitment"]
    seen = [first["game"]["view"]["card"]]
    game = first["game"]
    for i in range(25):
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
        assert game["view"]["fairness"]["seed"] is None, "the day's seed left the server"
        if game["view"]["card"] is not None:
            seen.append(game["view"]["card"])
    assert game["view"]["is_over"]
    replay = finish(api, start(api)["game"])
    assert replay["view"]["is_over"] and replay["view"]["fairness"]["seed"] is None
    assert board(api)["fairness"]["seed"] is None

    clock.at = DAY1 + timedelta(days=1)
    past = board(api, day="2030-01-01")["fairness"]
    assert past["commitment"] == fair["commitment"]
    assert fairness.commitment(past["seed"], past["salt"]) == fair["commitment"]
    assert [str(c) for c in fairness.fair_deck(past["seed"])[:25]] == seen
    # The new day has a new commitment, and its seed is not shown.
    today = board(api)["fairness"]
    assert today["commitment"] != fair["commitment"] and today["seed"] is None
