"""Rated online tables end to end, on both stores: two apps over one store (two processes),
each device on its own; a whole one-round match played through the API ends in one save,
and that save rates it once, with the library's figures from the match's own totals; a
person who leaves is rated last while the stand-in finishes their seat."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.online.codes import table_key
from cardtable.server.online.tables import OnlineTables
from cardtable.server.rating.store import RatingStore
from tests.server.online.helpers import JSON, Device

from .helpers import LIBRARY


@pytest.fixture
def second(rating_settings: Settings) -> Iterator[FastAPI]:
    app = create_app(rating_settings)
    try:
        yield app
    finally:
        app.state.runtime.close()


def rated_table(ann: Device, bob: Device, online: OnlineTables) -> JSON:
    """Ann's table of Ann and Bob, one round, marked rated as the queue would, then dealt."""
    made = ann.create(rounds=1, rules={"preset": "simple"})
    key = table_key(made["token"])
    online.change(key, lambda room: dataclasses.replace(
        room, config=dataclasses.replace(room.config, rated=True)))  # fmt: skip
    table = bob.act(ann.get(made["token"]), "join", name="Bob")
    return ann.act(table, "start")


def play_out(devices: dict[int, Device], token: str, online: OnlineTables) -> JSON:
    """Each person plays a placing move when there is one, else ends the turn; a seat the
    stand-in plays is stepped by the deadline driver's own call."""
    ann = devices[0]
    for _ in range(800):
        table = ann.get(token)
        if table["phase"] == "match_over":
            return table
        seat = table["turn"]["seat"]
        if seat not in devices:
            online.advance(table_key(token), time.time() + 1)
            continue
        mine = devices[seat].get(token)
        moves = mine["view"]["legal_moves"]
        devices[seat].act(mine, "moves", move=next((m for m in moves if m != "end"), "end"))
    raise AssertionError("the match did not end")


def test_a_rated_match_over_two_processes_is_rated_once(app: FastAPI, second: FastAPI) -> None:
    ann, bob = Device(TestClient(app)), Device(TestClient(second))
    table = rated_table(ann, bob, app.state.online)
    final = play_out({0: ann, 1: bob}, table["token"], second.state.online)
    totals = final["match"]["totals"]
    store = RatingStore(app.state.runtime.store)
    got = store.ratings([ann.key, bob.key])
    after = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]],
                         ranks=[float(t) for t in totals])  # fmt: skip
    assert (got[ann.key].mu, got[ann.key].sigma) == (after[0][0].mu, after[0][0].sigma)
    assert (got[bob.key].mu, got[bob.key].sigma) == (after[1][0].mu, after[1][0].sigma)
    assert got[ann.key].matches == got[bob.key].matches == 1
    assert got[bob.key].name == "Bob" and len(store.history(ann.key)) == 1
    # Later saves of the finished table (a rematch asked) rate nothing more.
    bob.act(bob.get(table["token"]), "rematch")
    assert store.ratings([ann.key])[ann.key].matches == 1


def test_a_person_who_leaves_a_rated_match_is_rated_last(app: FastAPI, second: FastAPI) -> None:
    ann, bob = Device(TestClient(app)), Device(TestClient(second))
    table = rated_table(ann, bob, app.state.online)
    bob.act(bob.get(table["token"]), "leave")
    final = play_out({0: ann}, table["token"], second.state.online)
    assert final["phase"] == "match_over"
    store = RatingStore(app.state.runtime.store)
    got = store.ratings([ann.key, bob.key])
    after = LIBRARY.rate([[LIBRARY.rating()], [LIBRARY.rating()]], ranks=[0.0, 1.0])
    assert (got[bob.key].mu, got[bob.key].sigma) == (after[1][0].mu, after[1][0].sigma)
    assert [p.place for p in store.history(bob.key)] == [2]
    assert [p.place for p in store.history(ann.key)] == [1]
