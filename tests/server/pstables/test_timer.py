"""The card timer and away seats with a moved clock (docs/ps-tables.md "Timers"): the hint
places the card on show for the late player once the timer has run out, the log says so,
the next card comes; an away seat is placed for at once on every card; each placement is made
once however often the driver looks. The driver's rounds are called directly (`Driver.once`
with its clock moved, or `advance`), as the Kings Corner driver tests do, on an app whose own
driver is not running (a client that never starts the app's lifespan)."""

from __future__ import annotations

import time

from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.core.metrics import MOVES
from cardtable.server.online.codes import table_key
from cardtable.server.pstables.driver import advance
from cardtable.server.pstables.lifecycle import tables_of

from .helpers import Device, cell, table_of

HINTED = MOVES.labels(game="poker_squares_table", by="hint")


def test_the_timer_places_for_the_late_player(quiet: TestClient, app: FastAPI) -> None:
    ann, bea = Device(quiet, "Ann"), Device(quiet, "Bea")
    token = table_of([ann, bea], card_seconds=15)
    started = ann.act(token, "start")
    assert started["deadline"] is not None
    ann.act(token, "place", card=0, cell="a1")
    tables = tables_of(app)
    key = table_key(token)
    now = time.time()
    assert not advance(tables, key, now + 5)  # not yet: nothing happens
    assert bea.get(token)["card"]["index"] == 0
    before = HINTED._value.get()
    driver = tables.driver
    driver.clock = lambda: now + 16
    driver.once()
    assert HINTED._value.get() == before + 1
    seen = bea.get(token)
    assert seen["card"]["index"] == 1
    [entry] = seen["log"]
    assert entry["kind"] == "hint_placed" and entry["reason"] == "timer"
    assert (entry["seat"], entry["card"]) == (1, 0)
    placed_at = entry["cell"]
    grid = seen["game"]["grid"]
    assert grid[int(placed_at[1]) - 1]["abcde".index(placed_at[0])] == started["card"]["card"]
    assert sum(c is not None for row in grid for c in row) == 1
    # Looking again changes nothing: the placement was made once.
    driver.once()
    assert not advance(tables, key, now + 16)
    assert HINTED._value.get() == before + 1 and bea.get(token)["version"] == seen["version"]
    # Every device reads the same story; the cell only on the hinted player's own device.
    assert ann.get(token)["log"] == [{**entry, "cell": None}]


def test_an_away_player_is_placed_for_at_once_on_every_card(
    quiet: TestClient, app: FastAPI
) -> None:
    ann, bea, cy = Device(quiet, "Ann"), Device(quiet, "Bea"), Device(quiet, "Cy")
    token = table_of([ann, bea, cy])
    ann.act(token, "start")
    cy.act(token, "leave")
    tables = tables_of(app)
    key = table_key(token)
    for k in range(25):
        ann.act(token, "place", card=k, cell=cell(k))
        last = bea.act(token, "place", card=k, cell=cell(24 - k))
        assert last["card"] is not None and last["card"]["index"] == k  # Cy's is the driver's
        assert advance(tables, key, time.time())
    over = ann.get(token)
    assert over["phase"] == "over"
    hints = [e for e in over["log"] if e["seat"] == 2]
    assert len(hints) == min(25, 50) and {e["reason"] for e in hints} == {"away"}
    assert [e["card"] for e in hints] == list(range(25))
    cy_grid = next(r for r in over["result"]["ranking"] if r["seat"] == 2)["game"]
    assert cy_grid["is_over"] and sorted(c for row in cy_grid["grid"] for c in row) == sorted(
        over["result"]["cards"]
    )
