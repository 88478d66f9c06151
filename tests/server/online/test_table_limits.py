"""Online tables are bounded per player and their computer steps admitted (issue 27): the
11th unfinished table of one player is refused (429) while another player's is not, a
finished table frees its place, a player's finished tables are pruned to the newest few; the
driver makes at most `computer_steps_rate` advances a second, the longest-waiting table
first; and a table whose computers search advances in the search pool, under a spare search
slot only.

The drivers' rounds are direct `Driver.once()` calls with an injected clock; the apps'
lifespans never start, so no background driver runs beside the test."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.admission import spare_slot
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online import driver as online_driver
from cardtable.server.online.codes import table_key
from cardtable.server.online.store import LOBBY, OVER, PLAY
from cardtable.server.online.tables import OnlineTables
from tests.server.helpers import store_settings

from .helpers import BASE, Device

STEP = 1.0


@pytest.fixture(params=["sqlite", "postgres"])
def limits_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        search_processes=0,
        online=OnlineSettings(
            computer_step_seconds=STEP,
            grace_seconds=60.0,
            max_finished_tables=2,
            computer_steps_rate=1.0,
            computer_steps_burst=3,
        ),
    ) as settings:
        yield settings


@pytest.fixture
def app(limits_settings: Settings) -> Iterator[FastAPI]:
    app = create_app(limits_settings)
    try:
        yield app
    finally:
        app.state.runtime.close()


def rows(online: OnlineTables, creator: str) -> list[tuple[str, str]]:
    """(table key, stage) of ``creator``'s tables."""
    found = online.store._rows(
        "SELECT id, stage FROM online_tables WHERE creator = ? ORDER BY saved_at, id", (creator,)
    )
    return [(r[0], r[1]) for r in found]


def test_the_eleventh_unfinished_table_is_refused(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    online: OnlineTables = app.state.online
    made = [ann.create() for _ in range(10)]
    assert [stage for _, stage in rows(online, ann.key)] == [LOBBY] * 10
    refused = ann.create(status=429)
    assert refused["code"] == "rate_limited"
    assert "10 online tables that are not finished" in refused["message"]
    assert len(rows(online, ann.key)) == 10  # nothing was written
    # Another player is not held back by Ann's tables.
    assert bob.create()["table"]["phase"] == "lobby"
    # A table whose match started still counts; one that is over (everyone left) does not.
    started = ann.act(
        ann.act(made[0]["table"], "seats/1", kind="computer", strength="easy"), "start"
    )
    assert started["phase"] != "lobby"
    assert ann.create(status=429)["code"] == "rate_limited"
    left = ann.act(made[1]["table"], "leave")
    assert left["me"] is None
    assert dict(rows(online, ann.key))[table_key(made[1]["token"])] == OVER
    assert dict(rows(online, ann.key))[table_key(made[0]["token"])] == PLAY
    assert ann.create()["table"]["phase"] == "lobby"
    assert ann.create(status=429)["code"] == "rate_limited"


def test_one_address_opens_a_bounded_number_of_tables(tmp_path: Path) -> None:
    """Issue 45: many player ids from one address open `create_burst` tables, then 429; a
    client at another address is not held back."""
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(create_rate=0.001, create_burst=5),
    )
    app = create_app(settings)
    try:
        crowd = TestClient(app, client=("203.0.113.7", 50000))
        made = [Device(crowd).create()["token"] for _ in range(5)]
        assert len(set(made)) == 5
        refused = Device(crowd).create(status=429)
        assert refused["code"] == "rate_limited"
        elsewhere = TestClient(app, client=("198.51.100.9", 50000))
        assert Device(elsewhere).create()["table"]["phase"] == "lobby"
    finally:
        app.state.runtime.close()


def test_creates_at_once_never_go_past_the_cap(app: FastAPI) -> None:
    ann = Device(TestClient(app))
    online: OnlineTables = app.state.online
    start = threading.Barrier(14)
    statuses: list[int] = []

    def create() -> None:
        http = TestClient(app)
        start.wait(10)
        body = {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}]}
        r = http.post(BASE, json=body, headers={"X-Player-Id": ann.player_id})
        statuses.append(r.status_code)

    threads = [threading.Thread(target=create) for _ in range(14)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(statuses) == [201] * 10 + [429] * 4
    assert len(rows(online, ann.key)) == 10


def test_a_players_finished_tables_are_pruned_to_the_newest(app: FastAPI) -> None:
    client = TestClient(app)
    ann = Device(client)
    online: OnlineTables = app.state.online
    finished = []
    for _ in range(4):
        created = ann.create()
        ann.act(created["table"], "leave")  # everyone left the lobby: the table is over
        finished.append(table_key(created["token"]))
    # Each create prunes the finished tables beyond the newest 2 (max_finished_tables).
    fresh = ann.create()
    kept = rows(online, ann.key)
    assert [stage for _, stage in kept] == [OVER, OVER, LOBBY]
    assert [key for key, _ in kept[:2]] == finished[2:]
    assert kept[2][0] == table_key(fresh["token"])


def computer_table(device: Device, strength: str = "easy") -> str:
    """A started table of one person and a computer, due once the person's grace ends."""
    created = device.create(
        seats=[{"kind": "me"}, {"kind": "computer", "strength": strength}], rounds=5
    )
    device.act(created["table"], "start")
    return table_key(created["token"])


def versions(online: OnlineTables, keys: list[str]) -> list[int]:
    found = online.store.versions(keys)
    return [found[k] for k in keys]


def test_the_driver_caps_its_steps_and_serves_the_longest_waiting_first(app: FastAPI) -> None:
    client = TestClient(app, headers={"X-Test-Seed": "7"})
    ann, bob = Device(client), Device(client)
    online: OnlineTables = app.state.online
    keys = [computer_table(ann) for _ in range(3)] + [computer_table(bob) for _ in range(2)]
    t = time.time() + 100.0  # past every grace period: every table is due
    online.driver.clock = lambda: t
    before = versions(online, keys)

    def advanced() -> list[int]:
        now = versions(online, keys)
        return [i for i, (a, b) in enumerate(zip(before, now, strict=True)) if b > a]

    online.driver.once()
    # A burst of 3: the three tables due first (the first made); the other two wait.
    assert advanced() == [0, 1, 2]
    held = online.driver.held
    assert held >= 1
    online.driver.once()  # no time has passed: no token, nothing moves
    assert advanced() == [0, 1, 2] and online.driver.held > held
    # One token a second; each goes to the table that has waited longest (Bob's two), not
    # to the tables served already, which are due again one step after their advance.
    for second, expected in ((1, [0, 1, 2, 3]), (2, [0, 1, 2, 3, 4])):
        t += 1.0
        online.driver.once()
        assert advanced() == expected, second
    t += 1.0
    served = versions(online, keys)
    online.driver.once()
    after = versions(online, keys)
    moved = [i for i, (a, b) in enumerate(zip(served, after, strict=True)) if b > a]
    assert len(moved) == 1 and moved[0] in (0, 1, 2)  # the first served are first again


def test_a_searching_table_advances_in_the_pool_under_a_spare_slot(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = TestClient(app, headers={"X-Test-Seed": "7"})
    ann = Device(client)
    online: OnlineTables = app.state.online
    strong, easy = computer_table(ann, "strong"), computer_table(ann, "easy")
    pooled: list[int] = []
    real = online_driver.advanced

    def advanced(state: dict[str, Any], version: int, now: float) -> Any:
        pooled.append(version)
        return real(state, version, now)

    monkeypatch.setattr(online_driver, "advanced", advanced)
    t = time.time() + 100.0
    online.driver.clock = lambda: t
    admission = app.state.runtime.admission
    slots = admission.settings.max_searches
    before = versions(online, [strong, easy])
    with contextlib.ExitStack() as stack:
        # Every search slot is taken (as by other searches): none is spare for the driver.
        assert all(stack.enter_context(spare_slot(admission)) for _ in range(slots))
        online.driver.once()
    # Every search slot was taken: the strong table waited, the easy one did not.
    after = versions(online, [strong, easy])
    assert after == [before[0], before[1] + 1] and pooled == []
    t += 10.0
    online.driver.once()
    final = versions(online, [strong, easy])
    assert final[0] == before[0] + 1 and pooled == [before[0]]
