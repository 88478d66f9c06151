"""The shared store: PostgreSQL through psycopg 3, for several server processes at once.

A small thread-safe pool hands each request a connection (autocommit, with explicit
transactions for writes). Schema creation takes an advisory lock so processes starting
together do not race. Compare-and-set on the game version does the rest.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors

from .base import StoreError
from .sql import SCHEMA, SqlStore, Tx

_SCHEMA_LOCK = 0x636172647461626C  # "cardtabl"


class PostgresStore(SqlStore):
    placeholder = "%s"

    def __init__(self, url: str, *, pool_size: int = 8, connect_timeout: int = 10) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self._idle: queue.LifoQueue[psycopg.Connection] = queue.LifoQueue()
        self._slots = threading.BoundedSemaphore(pool_size)
        self._closed = False
        try:
            self.create_schema()
        except psycopg.Error as exc:
            self.close()
            raise StoreError(f"cannot open the PostgreSQL store: {exc}") from exc

    def create_schema(self) -> None:
        with self.transaction() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in SCHEMA:
                tx.execute(statement)

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        if self._closed:
            raise StoreError("the store is closed")
        self._slots.acquire()
        conn: psycopg.Connection | None = None
        try:
            try:
                conn = self._idle.get_nowait()
            except queue.Empty:
                conn = psycopg.connect(
                    self.url, autocommit=True, connect_timeout=self.connect_timeout
                )
            yield conn
        except psycopg.OperationalError:
            # A broken connection is dropped, never put back.
            if conn is not None:
                conn.close()
                conn = None
            raise
        finally:
            if conn is not None:
                idle = conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
                if conn.closed or not idle or self._closed:
                    conn.close()
                else:
                    self._idle.put(conn)
            self._slots.release()

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            yield cur

    @contextmanager
    def reading(self) -> Iterator[Tx]:
        with self._connection() as conn, conn.cursor() as cur:
            yield cur

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, errors.UniqueViolation)

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                break
