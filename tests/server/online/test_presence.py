"""Presence rows, leaving during play, the host removing an away seat, and the driver's
resilience (in-process; the live tests cover the same over real WebSockets)."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.online.codes import table_key
from cardtable.server.online.store import Due
from cardtable.server.online.tables import OnlineTables

from .helpers import Device, Recorder


@pytest.fixture
def online(app: FastAPI) -> OnlineTables:
    o: OnlineTables = app.state.online
    return o


@pytest.fixture
def devices(client: TestClient, app: FastAPI) -> tuple[Device, Device]:
    recorder = Recorder(app)
    return Device(client, recorder), Device(client, recorder)


def test_a_stopped_process_presence_is_swept(
    online: OnlineTables, devices: tuple[Device, Device]
) -> None:
    """A connection whose process stopped refreshing it counts as gone: the seat starts its
    grace period; a refreshed one stays."""
    ann, bob = devices
    created = ann.create()
    bob.act(created["table"], "join", name="Bob")
    key = table_key(created["token"])
    now = time.time()
    store = online.store
    store.present("old", key, bob.key, seated=True, process="gone", at=now - 100)
    store.present("mine", key, ann.key, seated=True, process=online.process, at=now - 100)
    online.live.add("mine")
    online.change(key, lambda room: room.connected(ann.key, now))
    online.change(key, lambda room: room.connected(bob.key, now))
    assert [s["connection"] for s in ann.get(created["token"])["seats"]] == ["online"] * 2
    online.presence_upkeep(now)
    seats = ann.get(created["token"])["seats"]
    assert seats[0]["connection"] == "online"  # this process refreshed Ann's row
    assert seats[1]["connection"] == "reconnecting" and seats[1]["deadline"] > now
    assert store.connections(key, bob.key, now - 30) == 0
    assert store.connections(key, ann.key, now - 30) == 1
    online.live.discard("mine")


def test_leave_in_play_and_the_host_gives_the_seat_away(
    online: OnlineTables, devices: tuple[Device, Device]
) -> None:
    # Slow computer steps: the stand-in must not move while the test looks.
    online.settings = replace(online.settings, computer_step_seconds=60.0)
    ann, bob = devices
    created = ann.create()
    table = bob.act(created["table"], "join", name="Bob")
    table = ann.act(table, "start")
    left = bob.act(table, "leave")
    assert left["seats"][1]["connection"] == "away" and left["seats"][1]["stand_in"]
    assert left["me"]["seats"] == [1]  # still his seat until the host gives it away
    assert ann.act(left, "seats/0", kind="computer", status=409)["code"] == "seat_taken"
    given = ann.act(left, "seats/1", kind="computer", strength="strong")
    assert given["seats"][1] == {**given["seats"][1], "kind": "computer", "strength": "strong"}
    assert bob.get(created["token"])["me"] is None  # now a spectator


def test_the_driver_logs_and_goes_on(
    online: OnlineTables,
    devices: tuple[Device, Device],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ann, _ = devices
    created = ann.create(seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"}])
    ann.act(created["table"], "start")

    def broken(key: str, now: float) -> bool:
        raise RuntimeError("boom")

    monkeypatch.setattr(online, "advance", broken)
    due = [Due(table_key(created["token"]), created["table"]["version"])]
    monkeypatch.setattr(online.store, "due", lambda at, limit: due)
    with caplog.at_level(logging.ERROR, logger="cardtable.server.online"):
        online.driver.once()  # raises nothing
    assert any("boom" in (r.exc_text or "") for r in caplog.records)


def test_a_damaged_table_is_refused_and_its_deadline_dropped(
    online: OnlineTables, devices: tuple[Device, Device]
) -> None:
    ann, _ = devices
    created = ann.create()
    key = table_key(created["token"])
    record = online.store.load(key)
    assert record is not None
    store = online.store
    store.save(record, {"format": "nonsense"}, due_at=time.time() - 1, keep_code=True)
    assert ann.get(created["token"], status=409)["code"] == "damaged_game"
    assert online.advance(key, time.time()) is False
    assert key not in [d.key for d in online.store.due(time.time(), 10)]
