"""Online tables expire (issue 27, cardtable/server/core/retention.py and online/store.py): the
retention sweep deletes a lobby whose match never started `lobby_hours` after it was made,
a finished table `finished_hours` after its last change and any table unchanged for
`idle_hours`, with its presence rows, and leaves the others; on SQLite and PostgreSQL.
Tables stored before migration 11 get their stage and last save from their row."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core import retention
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.store import migrations
from cardtable.server.online.codes import table_key
from cardtable.server.online.store import LOBBY, OVER, PLAY
from cardtable.server.online.tables import OnlineTables
from tests.server.helpers import store_settings
from tests.server.online.helpers import Device

HOUR = 3600.0


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FastAPI]:
    with store_settings(
        request,
        tmp_path,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(
            grace_seconds=60.0, lobby_hours=24.0, finished_hours=24.0, idle_hours=48.0
        ),
    ) as settings:
        app = create_app(settings)
        try:
            yield app
        finally:
            app.state.runtime.close()


def tables(online: OnlineTables) -> dict[str, str]:
    """Every stored table: key -> stage."""
    return dict(online.store._rows("SELECT id, stage FROM online_tables"))


def presence(online: OnlineTables) -> set[str]:
    return {r[0] for r in online.store._rows("SELECT table_id FROM online_presence")}


def test_an_unstarted_lobby_goes_after_its_time_and_a_fresh_one_stays(app: FastAPI) -> None:
    online: OnlineTables = app.state.online
    ann = Device(TestClient(app))
    old, fresh = (table_key(ann.create()["token"]) for _ in range(2))
    now = time.time()
    made = datetime.fromtimestamp(now, UTC) - timedelta(hours=24, minutes=1)
    with online.store.sql.transaction() as tx:
        online.store._exec(
            tx, "UPDATE online_tables SET created_at = ? WHERE id = ?", (made.isoformat(), old)
        )
    for key in (old, fresh):
        online.store.present(f"c-{key}", key, ann.key, seated=True, process="p", at=now)
    assert tables(online) == {old: LOBBY, fresh: LOBBY}

    assert retention.sweep(app.state.runtime, now) == 0  # (no idle player)
    assert tables(online) == {fresh: LOBBY}
    assert presence(online) == {fresh}
    # The fresh one goes once its own day is over.
    retention.sweep(app.state.runtime, now + 24 * HOUR + 60)
    assert tables(online) == {}


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_finished_table_expires_after_its_time_and_an_abandoned_one_later(
    app: FastAPI,
) -> None:
    online: OnlineTables = app.state.online
    ann = Device(TestClient(app, headers={"X-Test-Seed": "7"}))
    created = ann.create()
    ann.act(created["table"], "leave")  # everyone left the lobby: over
    over = table_key(created["token"])
    created = ann.create(seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"}])
    ann.act(created["table"], "start")
    playing = table_key(created["token"])
    now = time.time()
    assert tables(online) == {over: OVER, playing: PLAY}

    retention.sweep(app.state.runtime, now + 23 * HOUR)
    assert tables(online) == {over: OVER, playing: PLAY}
    retention.sweep(app.state.runtime, now + 25 * HOUR)
    assert tables(online) == {playing: PLAY}  # finished 24 h ago: gone
    retention.sweep(app.state.runtime, now + 47 * HOUR)
    assert tables(online) == {playing: PLAY}
    retention.sweep(app.state.runtime, now + 49 * HOUR)
    assert tables(online) == {}  # nobody changed it for 48 h: abandoned


def test_tables_stored_before_migration_11_get_their_stage_and_age(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=None)
    settings.data_dir.mkdir(parents=True)
    conn = sqlite3.connect(settings.sqlite_path, isolation_level=None)

    @contextmanager
    def transaction() -> Iterator[Any]:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        yield cur
        conn.commit()

    saved = datetime(2026, 11, 30, 12, 0, 0, 250000, tzinfo=UTC)
    states = {
        "lobby": {"game": None, "closed": False},
        "closed": {"game": None, "closed": True},
        "playing": {"game": {"format": "x"}, "closed": False},
    }
    try:
        assert migrations.migrate(transaction, "sqlite", migrations.MIGRATIONS[:10])
        with transaction() as cur:
            for key, state in states.items():
                cur.execute(
                    "INSERT INTO online_tables (id, code, code_until, version, state, due_at, "
                    "created_at, updated_at) VALUES (?, NULL, NULL, 1, ?, NULL, ?, ?)",
                    (key, json.dumps(state, separators=(",", ":"), sort_keys=True),
                     saved.isoformat(), saved.isoformat()),
                )  # fmt: skip
        assert migrations.migrate(transaction, "sqlite") == [
            m.version for m in migrations.MIGRATIONS[10:]
        ]
        rows = conn.execute("SELECT id, stage, saved_at, creator FROM online_tables").fetchall()
    finally:
        conn.close()
    found = {r[0]: (r[1], r[2], r[3]) for r in rows}
    assert {k: v[0] for k, v in found.items()} == {"lobby": LOBBY, "closed": OVER, "playing": PLAY}
    for _, at, creator in found.values():
        assert at == pytest.approx(saved.timestamp(), abs=0.01) and creator is None
