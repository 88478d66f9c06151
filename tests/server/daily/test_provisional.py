"""A player who joined today: their counted daily is not on today's board, but the answer says
where it would rank among the day's ranked entries (a provisional rank and percentile,
computed on the server), and reading it adds nothing to the board. SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI

from cardtable.server import Settings
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.daily.store import DailyStore, Settled
from tests.server.helpers import Api, Clock, store_settings

from .test_api import DAY1, board, created_at, finish, start

DAY = DAY1.date().isoformat()
LINES: list[str | None] = [None] * 10


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=8) as settings:
        yield settings


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    c = Clock(DAY1)
    app.state.daily_clock = c
    return c


def daily_store(app: FastAPI) -> DailyStore:
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    return DailyStore(store)


def entered(
    daily: DailyStore, who: str, total: int, *, eligible: bool = True, practice: bool = False
) -> None:
    """An entry of today's deal at the American table, settled with ``total`` (the store's
    own path: claim, attach, close)."""
    assert daily.claim(who, DAY, "american", eligible)
    daily.attach(who, DAY, "american", f"game-{who}")
    entry = daily.entry(who, DAY, "american")
    assert entry is not None
    daily.close(who, entry, Settled(total, LINES, practice, DAY1.isoformat()))


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_new_players_score_gets_a_provisional_rank_off_the_board(
    app: FastAPI, api: Api, clock: Clock
) -> None:
    created_at(app, api, DAY1 - timedelta(hours=3))  # joined today
    first = start(api)
    assert first["counted"] and not first["eligible"]  # counted, not for the board
    done = finish(api, first["game"])
    total = done["view"]["total"]
    daily = daily_store(app)
    # Five ranked entries around the new player's total: three above, two level.
    for i, t in enumerate([total + 12, total + 5, total + 5, total, total]):
        entered(daily, f"ranked-{i}", t)
    # Neither of these is on the board, so neither counts: a practice entry and another
    # player who joined today, both above.
    entered(daily, "practice", total + 40, practice=True)
    entered(daily, "new-too", total + 30, eligible=False)

    day = board(api)
    me = day["me"]
    assert me["status"] == "counted" and not me["eligible"] and not me["ranked"]
    assert me["rank"] is None and me["percentile"] is None
    assert me["provisional"] == {"rank": 4, "players": 5, "percentile": 40.0}
    # It is not on the board: five players, the top without the player, the histogram too.
    assert day["board"]["players"] == 5
    assert [r["total"] for r in day["board"]["top"]] == [
        total + 12, total + 5, total + 5, total, total
    ]  # fmt: skip
    assert not any(r["mine"] for r in day["board"]["top"])
    assert sum(b["players"] for b in day["board"]["histogram"]) == 5
    assert board(api)["board"]["players"] == 5  # reading it again changes nothing

    # The board grows: one more ranked player below (or level at 0), one level: the figure
    # follows.
    entered(daily, "ranked-5", max(total - 1, 0))
    entered(daily, "ranked-6", total)
    me = board(api)["me"]
    assert me["provisional"] == {"rank": 4, "players": 7, "percentile": 57.1}

    # On the next day the figure stays the same for that day, and the new day has no entry.
    clock.at = DAY1 + timedelta(days=1)
    past = board(api, day=DAY)["me"]
    assert past["provisional"] == {"rank": 4, "players": 7, "percentile": 57.1}
    assert board(api)["me"] is None


def test_alone_on_an_empty_board(app: FastAPI, api: Api, clock: Clock) -> None:
    created_at(app, api, DAY1 - timedelta(minutes=5))
    finish(api, start(api)["game"])
    day = board(api)
    assert day["me"]["provisional"] == {"rank": 1, "players": 0, "percentile": None}
    assert day["board"] == {"players": 0, "top": [], "histogram": []}


def test_no_provisional_rank_for_ranked_practice_or_open_entries(
    app: FastAPI, api: Api, other: Api, clock: Clock
) -> None:
    created_at(app, api, DAY1 - timedelta(days=2))  # an older player: really ranked
    first = start(api)
    assert first["counted"] and first["eligible"]
    part = finish(api, first["game"], 4)
    again = start(api)  # the same attempt again: still counted and for the board
    assert again["counted"] and again["eligible"] and again["game"]["id"] == part["id"]
    finish(api, part)
    replay = start(api)
    assert not replay["counted"] and not replay["eligible"]
    me = board(api)["me"]
    assert me["ranked"] and me["rank"] == 1 and me["provisional"] is None
    # A new player with a hint: practice, so no rank of any kind; unfinished: none either.
    created_at(app, other, DAY1 - timedelta(hours=1))
    game = start(other)["game"]
    assert board(other)["me"]["provisional"] is None
    game = other.ps(game, "hint")["game"]
    finish(other, game)
    me = board(other)["me"]
    assert me["status"] == "practice" and me["provisional"] is None
