"""A table whose advance keeps failing backs off in the store, on SQLite and on PostgreSQL:
its stored deadline moves 0.5 s, 1 s, 2 s ... up to 30 s past each failure, no driver
(this process's or another's) takes it before then, the other tables keep their own
schedule, the failure is logged once, and the table is back on its normal schedule once an
advance works.

The drivers' rounds are direct `Driver.once()` calls with an injected clock; the apps'
lifespans never start, so no background driver runs beside the test."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.codes import table_key
from cardtable.server.online.driver import MAX_BACKOFF, MIN_BACKOFF
from cardtable.server.online.tables import OnlineTables
from tests.server.helpers import store_settings

from .helpers import Device

STEP = 1.0
"""Seconds between computer steps: a working table is due again one second after each."""


@pytest.fixture(params=["sqlite", "postgres"])
def backoff_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(computer_step_seconds=STEP, grace_seconds=60.0),
    ) as settings:
        yield settings


@pytest.fixture
def apps(backoff_settings: Settings) -> Iterator[tuple[FastAPI, FastAPI]]:
    """Two apps on one store: two server processes serving the same tables."""
    first, second = create_app(backoff_settings), create_app(backoff_settings)
    try:
        yield first, second
    finally:
        for app in (first, second):
            app.state.runtime.close()


def computer_table(device: Device) -> str:
    """A started table whose computer is to move: due again after every step."""
    created = device.create(
        seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"}], rounds=5
    )
    device.act(created["table"], "start")
    return table_key(created["token"])


def row(online: OnlineTables, key: str) -> tuple[int, float | None, int]:
    """The stored (version, due_at, failures) of table ``key``."""
    rows = online.store._rows(
        "SELECT version, due_at, failures FROM online_tables WHERE id = ?", (key,)
    )
    version, due_at, failures = rows[0]
    return int(version), None if due_at is None else float(due_at), int(failures)


def test_a_failing_table_backs_off_in_the_store_and_recovers(
    apps: tuple[FastAPI, FastAPI],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first, second = apps
    device = Device(TestClient(first, headers={"X-Test-Seed": "7"}))
    failing, working = computer_table(device), computer_table(device)
    here: OnlineTables = first.state.online
    there: OnlineTables = second.state.online

    broken = {failing}
    calls: list[tuple[str, str, float]] = []

    def spy(online: OnlineTables, name: str) -> None:
        real = online.advance

        def advance(key: str, now: float) -> bool:
            calls.append((name, key, now))
            if key in broken:
                raise RuntimeError(f"boom {key[:8]}")
            return real(key, now)

        monkeypatch.setattr(online, "advance", advance)

    spy(here, "here")
    spy(there, "there")
    t = time.time() + 100.0  # past every deadline the two tables have now
    here.driver.clock = there.driver.clock = lambda: t

    working_steps = 0

    def round_at(at: float, online: OnlineTables) -> None:
        """One round of ``online``'s driver at ``at``; the working table, when it was due,
        was advanced and is due again a step later."""
        nonlocal t, working_steps
        t = at
        calls.clear()
        version, due_at, _ = row(online, working)
        online.driver.once()
        if due_at is not None and due_at <= at:
            after, due_after, _ = row(online, working)
            assert after > version and due_after == pytest.approx(at + STEP)
            working_steps += 1

    gaps: list[float] = []
    with caplog.at_level(logging.ERROR, logger="cardtable.server.online"):
        due = t
        version = row(here, failing)[0]
        for _ in range(9):
            # Just before the stored deadline neither process touches the failing table.
            if gaps:
                round_at(due - 0.01, there)
                assert failing not in [key for _, key, _ in calls]
                assert row(there, failing)[1] == pytest.approx(due)
            round_at(due, here)
            assert ("here", failing, due) in calls
            now_version, due_at, failures = row(here, failing)
            assert now_version == version  # nothing of the failing table was saved
            assert due_at is not None and failures == len(gaps) + 1
            gaps.append(round(due_at - due, 6))
            due = due_at

        assert gaps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
        assert gaps[0] == MIN_BACKOFF and gaps[-1] == MAX_BACKOFF
        assert working_steps >= 6  # the working table went on at its own pace meanwhile
        logged = [r for r in caplog.records if f"boom {failing[:8]}" in (r.exc_text or "")]
        assert len(logged) == 1  # once, however many failures

        # The other process takes it when its stored deadline comes, and logs it once too.
        round_at(due, there)
        assert ("there", failing, due) in calls
        assert row(there, failing)[2] == 10
        due = row(there, failing)[1] or 0.0

        # It works again: its advance is saved and it is back on its normal schedule.
        broken.clear()
        round_at(due, here)
        now_version, due_at, failures = row(here, failing)
        assert now_version == version + 1 and failures == 0
        assert due_at == pytest.approx(due + STEP)

        # A new failure starts the back-off from the beginning, and is logged again.
        broken.add(failing)
        round_at(due_at, here)
        assert row(here, failing)[1:] == (pytest.approx(due_at + MIN_BACKOFF), 1)
        logged = [r for r in caplog.records if f"boom {failing[:8]}" in (r.exc_text or "")]
        assert len(logged) == 3


def test_a_backoff_does_not_overwrite_a_newer_save(apps: tuple[FastAPI, FastAPI]) -> None:
    """A back-off of a version another process has moved past changes nothing: that table
    is on the newer save's schedule."""
    first, _ = apps
    device = Device(TestClient(first, headers={"X-Test-Seed": "7"}))
    key = computer_table(device)
    online: OnlineTables = first.state.online
    store = online.store
    stale = next(d for d in store.due(time.time() + 100.0, 10) if d.key == key)
    assert online.advance(key, time.time() + 100.0)
    version, due_at, failures = row(online, key)
    assert version == stale.version + 1
    assert store.back_off(stale, time.time(), first=MIN_BACKOFF, most=MAX_BACKOFF) is None
    assert row(online, key) == (version, due_at, failures)
