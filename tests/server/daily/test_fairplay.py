"""Daily fair play through the API (docs/daily.md, "Fair play"): an entry played knowing the
whole order is held for review (not ranked, not counted on the board, shown to its player
with the reason); an entry played by the hint engine from its own view is ranked.

The day's deal is set by writing the day's row before anyone asks for it, so the cards are
known to the test, as to a clairvoyant: the seed ``00..03`` for the tests of the board's
workings, and a seed drawn from the run seed for `test_on_a_deal_no_test_fixes`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from bench.daily_cheaters import clairvoyant
from bench.daily_fairplay import engine
from cardtable.cards import Card
from cardtable.fairness import commitment, fair_deck
from cardtable.server import Settings, create_app
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.daily.public import fairplay, fairplay_reading
from cardtable.server.devices.players import player_key
from cardtable.server.games.public import PS_KIND, records
from tests.server.daily.test_api import DAY1, board, created_at, finish, start
from tests.server.helpers import Api, Clock, store_settings
from tests.support.tiers import Sample

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


def install_day(app: FastAPI, seed: str = SEED) -> Clock:
    """The app's daily clock at DAY1, and that day's deal written with a known seed."""
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
            ("2030-01-01", "american", 0, commitment(seed, SALT), seed, SALT, DAY1.isoformat()),
        )
    return c


def play_cells(api: Api, cells: list[int], cards: list[Card] = CARDS) -> Any:
    game = start(api)["game"]
    assert game["view"]["card"] == str(cards[0])
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
    assert held.held and held.score >= fairplay.load_model("american").threshold
    assert held.total == 154
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


WORTH_CHEATING = 70
"""`test_on_a_deal_no_test_fixes` draws deals until the clairvoyant's grid beats the deal's
par by this much: the check misses about 1 such entry in 1,000 (and about 1 in 100 of all
clairvoyant entries, mostly ones that gain little: docs/daily.md, "Fair play")."""


@pytest.mark.deep  # the fast tier's guard: the test above, on a fixed deal
def test_on_a_deal_no_test_fixes(app: FastAPI, api: Api, other: Api, sample: Sample) -> None:
    """The day's seed is drawn from the run seed, so each run tries other deals."""
    rng = sample.rng("daily fair play")
    for _ in range(50):
        seed = f"{rng.getrandbits(256):064x}"
        cards = fair_deck(seed)[:25]
        seer = clairvoyant("american", cards)
        reading = fairplay_reading.read("american", cards, seer)
        if reading.total - reading.par >= WORTH_CHEATING:
            break
    else:
        pytest.fail("no deal worth cheating on in 50 draws")
    install_day(app, seed)
    for who in (api, other):
        created_at(app, who, DAY1 - timedelta(days=2))
    honest = engine("american", cards, 0)
    done = play_cells(api, seer, cards)
    assert done["view"]["total"] == reading.total
    play_cells(other, honest, cards)
    mine = board(api)["me"]
    theirs = board(other)["me"]
    verdicts = (
        seed,
        fairplay.judge("american", cards, seer),
        fairplay.judge("american", cards, honest),
    )
    assert mine["status"] == "review" and not mine["ranked"], verdicts
    assert mine["review_reason"] == fairplay.REASON
    assert theirs["status"] == "counted" and theirs["ranked"] and theirs["rank"] == 1, verdicts


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
