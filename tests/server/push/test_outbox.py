"""The outbox on both stores: rows claimed by one sender at a time, so two server processes
sending from one PostgreSQL database deliver each row exactly once; and the same claims
between two senders of one SQLite file."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import open_store
from cardtable.server.push.service import Push, new_keys
from cardtable.server.push.store import Outgoing, PushStore
from tests.support.postgres import fresh_schema
from tests.support.push_senders import settings
from tests.support.push_service import PushService

ROOT = Path(__file__).resolve().parents[3]
ROWS = 120
PLAYERS = 6


def fill(store: PushStore, service: PushService) -> set[str]:
    """``ROWS`` notifications for ``PLAYERS`` players' devices; their bodies, each unique."""
    sql = store.sql
    bodies: set[str] = set()
    creds = []
    for _ in range(PLAYERS):
        player = secrets.token_hex(32)
        sql.create_player(player)
        sub = service.new_subscription().as_json()
        store.subscribe(player, player, sub["endpoint"], sub["keys"]["p256dh"],
                        sub["keys"]["auth"], lang="en", all_tables=True, events=["turn"],
                        table=None)  # fmt: skip
        creds.append(player)
    rows = []
    for i in range(ROWS):
        cred = creds[i % PLAYERS]
        body = f"row {i}"
        bodies.add(body)
        rows.append(
            Outgoing(f"r{i}", cred, cred, {"title": "t", "body": body, "url": "/", "tag": "x"})
        )
    with sql.transaction() as tx:
        store.enqueue(tx, rows, time.time())
    return bodies


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_processes_send_each_row_once(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    service = PushService().start()
    try:
        with _url(backend, request) as url:
            s = settings(url, tmp_path / "data")
            store = open_store(s)
            try:
                bodies = fill(PushStore(store), service)
            finally:
                store.close()
            procs = [
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.support.push_senders",
                        url or "",
                        str(tmp_path / "data"),
                    ],
                    cwd=ROOT,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                for _ in range(2)
            ]
            outs = [p.communicate(timeout=120) for p in procs]
            assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
            sent = [int(o[0].decode().split()[-1]) for o in outs]
        got = [r.payload["body"] for r in service.received]
        assert sorted(got) == sorted(bodies), "each row exactly once"
        assert sum(sent) == ROWS
        assert service.refused == []
    finally:
        service.stop()


class _url:
    """The store URL of ``backend``: None (SQLite in the data folder) or a fresh schema."""

    def __init__(self, backend: str, request: pytest.FixtureRequest) -> None:
        self.backend, self.request = backend, request
        self._cm = None

    def __enter__(self) -> str | None:
        if self.backend == "sqlite":
            return None
        self._cm = fresh_schema(self.request.getfixturevalue("postgres_url"))
        return self._cm.__enter__()

    def __exit__(self, *exc: object) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)


def test_the_key_pair_is_made_once_and_kept(tmp_path: Path) -> None:
    runtime = Runtime(settings(None, tmp_path / "data"))
    try:
        first = Push(runtime).public_key()
        assert Push(runtime).public_key() == first  # another process reads the same pair
        assert PushStore(runtime.store).keys(new_keys)[1] == first
    finally:
        runtime.close()


def test_an_operators_own_key_is_used(tmp_path: Path) -> None:
    private, public = new_keys()
    s = settings(None, tmp_path / "data")
    runtime = Runtime(replace(s, push=replace(s.push, vapid_private_key=private)))
    try:
        assert Push(runtime).public_key() == public
        assert PushStore(runtime.store).waiting() == 0
    finally:
        runtime.close()
