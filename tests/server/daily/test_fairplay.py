"""Daily fair play through the API (docs/daily.md, "Fair play"): an entry played knowing the
whole order is held for review (not ranked, not counted on the board, shown to its player
with the reason); an entry played by the hint engine from its own view is ranked.

The day's deal is fixed by writing the day's row before anyone asks for it (the seed
``00..03`` and a fixed salt), so the cards are known to the test, as to a clairvoyant."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from bench.daily_fairplay import clairvoyant, engine
from cardtable.fairness import commitment, fair_deck
from cardtable.server import Settings, create_app
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.daily.public import fairplay
from cardtable.server.devices.players import player_key
from cardtable.server.games.public import PS_KIND, records
from tests.server.daily.test_api import DAY1, board, created_at, finish, start
from tests.server.helpers import Api, Clock, store_settings

SEED = f"{3:064x}"
SALT = f"{9:032x}"
CARDS = fair_deck(SEED)[:25]


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=8) as settings:
        yield settings


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    return install_day(app)


def install_day(app: FastAPI) -> Clock:
    """The app's daily clock at DAY1, and that day's deal written with the known seed."""
    c = Clock(DAY1)
    app.state.daily_clock = c
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    with store.transaction() as tx:
        tx.execute(
            store._sql(
                "INSERT INTO daily_deals (day, variant, seed, commitment, fair_seed, fair_salt, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            ),
            ("2030-01-01", "american", 0, commitment(SEED, SALT), SEED, SALT, DAY1.isoformat()),
        )
    return c


def play_cells(api: Api, cells: list[int]) -> Any:
    game = start(api)["game"]
    assert game["view"]["card"] == str(CARDS[0])
    for cell in cells:
        game = api.ps(game, "moves", row=cell // 5, col=cell % 5)
    assert game["view"]["is_over"]
    return game


def test_a_clairvoyant_entry_is_held_and_an_engine_entry_is_ranked(
    app: FastAPI, api: Api, other: Api, clock: Clock
) -> None:
    seer = clairvoyant("american", CARDS, 40_000)
    honest = engine("american", CARDS, 0)
    # The position the test stands on: the detector's own reading of both grids.
    held = fairplay.judge("american", CARDS, seer)
    assert held.held and held.z >= fairplay.HOLD_Z and held.total == 154
    fine = fairplay.judge("american", CARDS, honest)
    assert not fine.held and fine.total == 106

    for who in (api, other):
        created_at(app, who, DAY1 - timedelta(days=2))
    done = play_cells(api, seer)
    assert done["view"]["total"] == 154
    play_cells(other, honest)

    mine = board(api)
    assert mine["me"]["status"] == "review" and not mine["me"]["ranked"]
    assert mine["me"]["total"] == 154 and mine["me"]["rank"] is None
    assert mine["me"]["review_reason"] == fairplay.REASON
    # Off the board: only the engine's entry is ranked and counted.
    assert mine["board"]["players"] == 1
    assert mine["board"]["top"] == [{"rank": 1, "name": None, "total": 106, "mine": False}]
    assert mine["board"]["histogram"] == [{"total": 106, "players": 1}]
    theirs = board(other)["me"]
    assert theirs["status"] == "counted" and theirs["ranked"] and theirs["rank"] == 1
    assert theirs["review_reason"] is None
    # Settling again (another read, as another process would) changes nothing.
    assert board(api)["board"]["players"] == 1


def entry_status(app: FastAPI, api: Api) -> tuple[str, int]:
    """The daily entry's (status, ranked) as stored: read without settling anything."""
    store = app.state.runtime.store
    assert isinstance(store, SqlStore) and api.player_id is not None
    rows = store._rows(
        "SELECT status, ranked FROM daily_entries WHERE player = ?", (player_key(api.player_id),)
    )
    assert len(rows) == 1, rows
    return rows[0][0], int(rows[0][1])


def test_an_entry_is_judged_when_it_finishes(app: FastAPI, api: Api, clock: Clock) -> None:
    """Issue 45: the finishing move settles the entry, before anyone reads the board."""
    created_at(app, api, DAY1 - timedelta(days=2))
    play_cells(api, clairvoyant("american", CARDS, 40_000))
    assert entry_status(app, api) == ("review", 0)


def test_retention_keeps_an_unsettled_entrys_game(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: an entry left open at its finish (a process that stopped before settling
    it, here: no finish hook) keeps its game through retention, however many deals follow,
    so the read that settles it still judges it: held, not ranked."""
    monkeypatch.setitem(records._FINISHED, PS_KIND, {})
    keep_two = replace(settings, max_finished_games=2, max_unfinished_games=1)
    with TestClient(create_app(keep_two)) as client:
        app = cast(FastAPI, client.app)
        install_day(app)
        api = Api.new_player(client)
        created_at(app, api, DAY1 - timedelta(days=2))
        daily_game = play_cells(api, clairvoyant("american", CARDS, 40_000))
        assert entry_status(app, api) == ("open", 0)
        for _ in range(3):  # three more finished deals, then one more dealt: pruning runs
            game = api.post("/api/poker-squares/games", {"table": "american"}, status=201)
            finish(api, game)
        api.post("/api/poker-squares/games", {"table": "american"}, status=201)
        kept = api.get(f"/api/poker-squares/games/{daily_game['id']}")
        assert kept["view"]["total"] == 154
        mine = board(api)["me"]
        assert mine["status"] == "review" and not mine["ranked"] and mine["rank"] is None
        assert mine["review_reason"] == fairplay.REASON
        # Settled now: the next deal's pruning may remove it.
        api.post("/api/poker-squares/games", {"table": "american"}, status=201)
        api.get(f"/api/poker-squares/games/{daily_game['id']}", status=404)
