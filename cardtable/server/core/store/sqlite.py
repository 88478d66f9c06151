"""The embedded store: one SQLite file (stdlib `sqlite3`) in WAL mode.

Connections are pooled, not tied to threads: the threadpool's threads come and go (an idle
worker thread exits), and a connection per thread would leak. The pool is deliberately tiny
and hand-written: `psycopg_pool` pools psycopg connections only, and SQLite needs none of what
a server pool does (no connection limit to respect, no network that drops connections, no
reconnecting). It is a stack of idle connections: a request takes one (or opens one), uses it
for one transaction or read, and puts it back; at most `max_idle` are kept, a connection
returned mid-transaction or after `close` is closed instead.

Writes take the lock up front (``BEGIN IMMEDIATE``), so a move is one short transaction and a
writer never fails on a lock upgrade; within one process writers queue on a mutex. The same
write lock keeps a second process out while a migration runs (`migrations.py`).

An open store holds a shared lock on ``cardtable.sqlite3.lock`` beside the file until it is
closed, so that `cardtable restore` can tell that a server is using it (`lockfile.py`).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cardtable.server.core.store.base import StoreError, Tx
from cardtable.server.core.store.lockfile import SharedLock
from cardtable.server.core.store.sql import SqlStore

WAL_RETRY = 0.005
"""Seconds between two tries of the switch to write-ahead logging (`SqliteStore._wal`)."""


class SqliteStore(SqlStore):
    dialect = "sqlite"
    driver_errors = (sqlite3.Error,)

    def __init__(self, path: Path, *, busy_ms: int = 10_000, max_idle: int = 8) -> None:
        self.path = Path(path)
        self.busy_ms = busy_ms
        self._idle: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue(maxsize=max_idle)
        self._closed = False
        # SQLite has one writer at a time. Within this process writers queue on this lock
        # (woken at once); the busy timeout, which sleeps and polls, is left for the rare
        # writer in another process.
        self._write = threading.Lock()
        self._users: SharedLock | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._users = SharedLock(self.path, wait_s=busy_ms / 1000)
            self.migrate()
        except (OSError, sqlite3.Error) as exc:
            self.close()
            raise StoreError(f"cannot open the SQLite store at {self.path}: {exc}") from exc
        except StoreError:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=self.busy_ms / 1000
        )
        conn.execute(f"PRAGMA busy_timeout = {int(self.busy_ms)}")
        self._wal(conn)
        # NORMAL is safe in WAL mode: a power cut may lose the last moves, never the file.
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _wal(self, conn: sqlite3.Connection) -> None:
        """Switches the file to write-ahead logging. SQLite answers "database is locked" at
        once, without its busy handler, when another connection opens the same file in the
        same instant (four openers of an old store lost one in about eight tries):
        tried again, within the busy timeout."""
        deadline = time.monotonic() + self.busy_ms / 1000
        while True:
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(WAL_RETRY)

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise StoreError("the store is closed")
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._connect()
        try:
            yield conn
        finally:
            if conn.in_transaction or self._closed:
                conn.close()
            else:
                try:
                    self._idle.put_nowait(conn)
                except queue.Full:
                    conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[Tx]:
        with self._write, self._connection() as conn:
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
    def _reading(self) -> Iterator[Tx]:
        with self._connection() as conn:
            cur = conn.cursor()
            try:
                yield cur
            finally:
                cur.close()

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break
        if self._users is not None:
            self._users.release()
