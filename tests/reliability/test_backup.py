"""Backups taken while a real `cardtable serve` plays, restored, and served again (issue 39).

Two clients play through the API (a Poker Squares player deal after deal, a Kings Corner
player against the computer) and record every answer that was 2xx. While they play, the
store is backed up: `cardtable backup` as a process on SQLite, the `pg_dump` command that
`cardtable backup` prints on PostgreSQL. The server is then stopped (SQLite: killed, so its
-wal and -shm are left as a crash leaves them) and the backup restored: `cardtable restore`
on the same data folder, `pg_restore` into a new database. A server started on it serves
every game: each move acknowledged before the backup began is there (the game's version at
least the acknowledged one, every move log row up to it, a Poker Squares card where it was
acknowledged), no move sent after the backup ended is, every game loads and replays from its
log, and each player's game takes a further move. `cardtable restore` is refused while the
server runs. Cheaper checks of both commands: tests/cli/test_backup.py.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest

from cardtable.cli.main import main
from cardtable.server import Settings
from cardtable.server.core.store import open_store
from cardtable.server.core.store.migrations import MIGRATIONS
from cardtable.server.core.store.sql import SqlStore
from tests.reliability.test_crash import check_every_game_loads
from tests.server.kc_driver import simple_person
from tests.support.postgres import fresh_schema, pg_bin_dir, with_search_path
from tests.support.serve_process import ROOT, ServeProcess

KINDS = ("ps", "kc")
PATHS = {"ps": "poker-squares", "kc": "kings-corner"}
PACE = 0.02
"""Seconds between two requests of one client: under the server's 50 requests/s per player."""
BEFORE = 15
"""Answers each client has before the backup starts, and again after it ends."""


@dataclass(frozen=True)
class Ack:
    kind: str
    game_id: str
    version: int
    answer: dict[str, Any]
    sent: float
    """`time.monotonic()` when the request was sent."""
    acked: float
    """... and when its 2xx answer was read."""


class Clients:
    """One Poker Squares and one Kings Corner player, each in a thread, recording every
    2xx answer until `stop`."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.players = {
            kind: httpx.post(f"{base}/api/players", timeout=30).json()["player_id"]
            for kind in KINDS
        }
        self.acks: list[Ack] = []
        self.errors: list[BaseException] = []
        self.lock = threading.Lock()
        self.halt = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(kind,)) for kind in KINDS]

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        self.halt.set()
        for t in self.threads:
            t.join(60)
        assert not self.errors, self.errors

    def count(self, kind: str) -> int:
        with self.lock:
            return sum(1 for a in self.acks if a.kind == kind)

    def wait_for(self, n: int) -> None:
        """Until each client has ``n`` more answers than now."""
        goal = {kind: self.count(kind) + n for kind in KINDS}
        while any(self.count(kind) < goal[kind] for kind in KINDS):
            assert not self.errors, self.errors
            assert all(t.is_alive() for t in self.threads)
            time.sleep(0.01)

    def run(self, kind: str) -> None:
        try:
            with httpx.Client(
                base_url=self.base, headers={"X-Player-Id": self.players[kind]}, timeout=30
            ) as http:
                game: dict[str, Any] | None = None
                while not self.halt.is_set():
                    sent = time.monotonic()
                    game = step(http, kind, game)
                    ack = Ack(kind, game["id"], game["version"], game, sent, time.monotonic())
                    with self.lock:
                        self.acks.append(ack)
                    time.sleep(PACE)
        except BaseException as exc:
            self.errors.append(exc)


def step(http: httpx.Client, kind: str, game: dict[str, Any] | None) -> dict[str, Any]:
    """The next request of a player of ``kind`` who last saw ``game`` (None: none yet)."""
    if kind == "ps":
        if game is None or game["view"]["is_over"]:
            return ok(http.post("/api/poker-squares/games", json={}))
        grid = game["view"]["grid"]
        row, col = next((r, c) for r in range(5) for c in range(5) if grid[r][c] is None)
        body = {"version": game["version"], "row": row, "col": col}
        return ok(http.post(f"/api/poker-squares/games/{game['id']}/moves", json=body))
    if game is None or game["phase"] == "match_over":
        seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
        return ok(http.post("/api/kings-corner/games", json={"seats": seats}))
    path = f"/api/kings-corner/games/{game['id']}/"
    body: dict[str, Any] = {"version": game["version"]}
    if game["phase"] == "computer":
        path += "computer-step"
    elif game["phase"] == "round_over":
        path += "next-round"
    elif game["phase"] == "handoff":
        path += "reveal"
    else:
        path += "moves"
        body["move"] = simple_person(game)
    return ok(http.post(path, json=body))


def ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code < 300, f"{r.request.url}: {r.status_code} {r.text}"
    answer: dict[str, Any] = r.json()
    return answer


def back_up_while_playing(clients: Clients, back_up: Callable[[], None]) -> tuple[float, float]:
    """``back_up()`` while both clients play; (when it began, when it ended)."""
    clients.start()
    clients.wait_for(BEFORE)
    began = time.monotonic()
    during = len(clients.acks)
    back_up()
    ended = time.monotonic()
    # The clients played on while the backup ran (a new process starting, then copying).
    assert len(clients.acks) > during
    clients.wait_for(BEFORE)
    clients.stop()
    return began, ended


def check_restored(
    base: str, settings: Settings, clients: Clients, began: float, ended: float
) -> None:
    """The restored store, served at ``base``, against what the clients were told."""
    acks = clients.acks
    store = open_store(settings)
    assert isinstance(store, SqlStore)
    try:
        logged = {
            game_id: {int(v) for (v,) in store._rows(
                "SELECT DISTINCT version FROM moves WHERE game_id = ?", (game_id,))}
            for game_id in {a.game_id for a in acks}
        }  # fmt: skip
    finally:
        store.close()
    with httpx.Client(base_url=base, timeout=30) as http:
        saved: dict[str, dict[str, Any] | None] = {}
        for a in acks:
            if a.game_id not in saved:
                r = http.get(
                    f"/api/{PATHS[a.kind]}/games/{a.game_id}",
                    headers={"X-Player-Id": clients.players[a.kind]},
                )
                assert r.status_code in (200, 404), r.text
                saved[a.game_id] = r.json() if r.status_code == 200 else None
        before = [a for a in acks if a.acked < began]
        after = [a for a in acks if a.sent > ended]
        assert before and after
        for a in before:
            game = saved[a.game_id]
            assert game is not None, f"{a.kind} game {a.game_id} acknowledged but not restored"
            assert game["version"] >= a.version
            assert set(range(1, a.version + 1)) <= logged[a.game_id]
            if a.kind == "ps":  # no undo here: every placed card stays where it was put
                for r, row in enumerate(a.answer["view"]["grid"]):
                    for c, card in enumerate(row):
                        if card is not None:
                            assert game["view"]["grid"][r][c] == card
            elif game["version"] == a.version:
                assert game == {**a.answer, "step": None, "events": []}
        for a in after:  # sent after the backup's snapshot: never in it
            game = saved[a.game_id]
            assert game is None or game["version"] < a.version
        # Each player's newest restored game takes a further move.
        for kind in KINDS:
            newest = max((a for a in before if a.kind == kind), key=lambda a: (a.acked, a.version))
            game = saved[newest.game_id]
            assert game is not None
            http.headers["X-Player-Id"] = clients.players[kind]
            moved = step(http, kind, game)
            assert moved["version"] > game["version"] or moved["id"] != game["id"]
    check_every_game_loads(settings)


def test_sqlite_backup_while_serving_restores_every_acknowledged_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    out = tmp_path / "backups" / "cardtable.sqlite3"
    out.parent.mkdir()
    server = ServeProcess(data, tmp_path / "serve.log")
    base = server.start()
    try:
        clients = Clients(base)
        listed: list[list[str]] = []

        def back_up() -> None:
            done = subprocess.run(
                [sys.executable, "-m", "cardtable.cli.main", "backup", "--data", str(data),
                 str(out)],
                cwd=ROOT, capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            assert f"written to {out}" in done.stdout and "integrity ok" in done.stdout
            listed.append(sorted(p.name for p in out.parent.iterdir()))

        began, ended = back_up_while_playing(clients, back_up)
        assert listed == [["cardtable.sqlite3"]]
        # Refused while the server serves: nothing is touched.
        assert main(["restore", "--data", str(data), str(out)]) == 1
        err = capsys.readouterr().err
        assert f"(process {server.pid})" in err and "Stop it first" in err
        assert not any("before-restore" in p.name for p in data.iterdir())
        server.kill()  # a crash: the -wal and -shm stay
        assert (data / "cardtable.sqlite3-wal").exists()
        assert (data / "cardtable.sqlite3-shm").exists()

        assert main(["restore", "--data", str(data), str(out)]) == 0
        assert "the store it replaced is kept as" in capsys.readouterr().out
        assert not (data / "cardtable.sqlite3-wal").exists()
        assert not (data / "cardtable.sqlite3-shm").exists()
        [aside] = [p for p in data.iterdir() if "before-restore" in p.name and "-wal" not in p.name]
        check_kept(aside, clients)

        base = server.start()
        check_restored(base, Settings(data_dir=data, database_url=None), clients, began, ended)
    finally:
        server.stop()


def check_kept(aside: Path, clients: Clients) -> None:
    """The store the restore replaced, kept with its -wal: every acknowledged move is in it
    (the crash lost none), so undoing the restore loses nothing either."""
    copy = aside.with_name("kept-copy.sqlite3")
    for suffix in ("", "-wal"):  # read a copy: the kept files stay as the restore left them
        if Path(f"{aside}{suffix}").exists():
            shutil.copyfile(f"{aside}{suffix}", f"{copy}{suffix}")
    conn = sqlite3.connect(copy)
    try:
        versions = dict(conn.execute("SELECT id, version FROM games").fetchall())
    finally:
        conn.close()
    for a in clients.acks:
        assert versions[a.game_id] >= a.version


def test_postgres_dump_while_serving_restores_every_acknowledged_move(
    tmp_path: Path,
    postgres_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bindir = pg_bin_dir()
    pg_dump = shutil.which("pg_dump", path=str(bindir)) if bindir else shutil.which("pg_dump")
    if pg_dump is None:
        pytest.skip("pg_dump is not installed")
    tools = str(Path(pg_dump).parent)
    dump = tmp_path / "cardtable.dump"
    with fresh_schema(postgres_url) as url:
        schema = url.split("application_name=")[1]
        server = ServeProcess(tmp_path / "data", tmp_path / "serve.log", url)
        base = server.start()
        try:
            clients = Clients(base)

            def back_up() -> None:
                # `cardtable backup` names the command to run; the test runs that one.
                monkeypatch.setenv("DATABASE_URL", url)
                assert main(["backup", str(dump)]) == 2
                told = capsys.readouterr().err
                assert f"schema {schema}, version {len(MIGRATIONS)}" in told
                [command] = [ln.strip() for ln in told.splitlines() if "pg_dump --" in ln]
                assert f"--schema={schema} " in command
                env = {**os.environ, "PATH": f"{tools}:{os.environ.get('PATH', '')}"}
                done = subprocess.run(
                    ["sh", "-c", command], env=env, capture_output=True, text=True, timeout=300
                )
                assert done.returncode == 0, done.stderr

            began, ended = back_up_while_playing(clients, back_up)
        finally:
            server.stop()
        listed = subprocess.run(
            [f"{tools}/pg_restore", "--list", str(dump)], capture_output=True, text=True
        )
        assert f"TABLE DATA {schema} schema_version" in listed.stdout

        with new_database(postgres_url) as target:
            restored = subprocess.run(
                [f"{tools}/pg_restore", "--exit-on-error", "--no-owner", f"--dbname={target}",
                 str(dump)],
                capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            assert restored.returncode == 0, restored.stderr
            served = with_search_path(target, schema)
            again = ServeProcess(tmp_path / "data2", tmp_path / "serve2.log", served)
            base = again.start()
            try:
                check_restored(base, Settings(database_url=served), clients, began, ended)
            finally:
                again.stop()


@contextlib.contextmanager
def new_database(url: str) -> Iterator[str]:
    """An empty database on ``url``'s server (its URL), dropped afterwards."""
    name = f"restored_{os.urandom(6).hex()}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    try:
        yield urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
