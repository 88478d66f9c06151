"""The embedded store: one SQLite file (stdlib `sqlite3`) in WAL mode.

Each server thread gets its own connection (FastAPI runs the endpoints in a threadpool).
Writes take the lock up front (``BEGIN IMMEDIATE``), so a move is one short transaction and
a writer never fails on a lock upgrade; within one process writers queue on a mutex.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .base import StoreError
from .sql import SqlStore, Tx


class SqliteStore(SqlStore):
    def __init__(self, path: Path, *, busy_ms: int = 10_000) -> None:
        self.path = Path(path)
        self.busy_ms = busy_ms
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        # SQLite has one writer at a time. Within this process writers queue on this lock
        # (woken at once); the busy timeout, which sleeps and polls, is left for the rare
        # writer in another process.
        self._write = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.create_schema()
        except (OSError, sqlite3.Error) as exc:
            self.close()
            raise StoreError(f"cannot open the SQLite store at {self.path}: {exc}") from exc

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=self.busy_ms / 1000,
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL is safe in WAL mode: a power cut may lose the last moves, never the file.
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        conn = self._conn()
        with self._write:
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                conn.rollback()
                raise
            else:
                conn.commit()
            finally:
                cur.close()

    @contextmanager
    def reading(self) -> Iterator[Tx]:
        cur = self._conn().cursor()
        try:
            yield cur
        finally:
            cur.close()

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
        self._local = threading.local()
