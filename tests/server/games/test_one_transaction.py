"""One move path (docs: cardtable/server/games/service.py, `play_move`): a Poker Squares
placement and a Kings Corner play on one device each run exactly one store transaction, the
caller's credential read in it, and read nothing else from the store (no separate credential
check, load or save)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from fastapi import FastAPI

from cardtable.server.core.store.sql import SqlStore
from tests.server.helpers import Api


class Counted:
    """Counts the store's write transactions and reading cursors opened by the moves' threads
    (`records.MoveRoute` runs each move in a thread named ``move…``; the online tables' driver
    reads the store in threads of its own meanwhile)."""

    def __init__(self, store: SqlStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.writes = 0
        self.reads = 0
        transaction, reading = store.transaction, store.reading

        def counted_transaction() -> AbstractContextManager[Any]:
            self.writes += _in_a_move()
            return transaction()

        def counted_reading() -> AbstractContextManager[Any]:
            self.reads += _in_a_move()
            return reading()

        monkeypatch.setattr(store, "transaction", counted_transaction)
        monkeypatch.setattr(store, "reading", counted_reading)

    def reset(self) -> None:
        self.writes = self.reads = 0


def _in_a_move() -> int:
    return int(threading.current_thread().name.startswith("move"))


@pytest.fixture
def counted(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counted]:
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    yield Counted(store, monkeypatch)


@contextmanager
def one_request(counted: Counted) -> Iterator[None]:
    counted.reset()
    yield
    assert (counted.writes, counted.reads) == (1, 0), (counted.writes, counted.reads)


def test_a_poker_squares_placement_is_one_transaction(api: Api, counted: Counted) -> None:
    game = api.ps_new()
    with one_request(counted):
        game = api.ps(game, "moves", row=0, col=0)
    assert game["view"]["placed"] == 1
    with one_request(counted):
        game = api.ps(game, "undo")
    assert game["view"]["placed"] == 0 and game["view"]["practice"]


def test_a_kings_corner_play_is_one_transaction(api: Api, counted: Counted) -> None:
    move = None
    for _ in range(50):  # a deal where the person to play has a card or pile to move
        game = api.kc_new(seats=[{"kind": "human"}, {"kind": "human"}])
        if game["phase"] == "handoff":
            with one_request(counted):
                game = api.post(
                    f"/api/kings-corner/games/{game['id']}/reveal", {"version": game["version"]}
                )
        assert game["phase"] == "play", game["phase"]
        move = next((m for m in game["view"]["legal_moves"] if m != "end"), None)
        if move is not None:
            break
    assert move is not None, "no deal with a move to undo"
    with one_request(counted):
        played = api.post(
            f"/api/kings-corner/games/{game['id']}/moves",
            {"version": game["version"], "move": move},
        )
    assert played["version"] == game["version"] + 1
    with one_request(counted):
        undone = api.post(
            f"/api/kings-corner/games/{game['id']}/undo", {"version": played["version"]}
        )
    assert undone["view"]["hand"] == game["view"]["hand"]
