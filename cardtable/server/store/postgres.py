"""The shared store: PostgreSQL through psycopg 3, for several server processes at once.

Connections come from a `psycopg_pool.ConnectionPool` (autocommit, with explicit transactions
for writes): at most ``pool_size`` per process, one kept open when idle and more opened as
requests need them (closed again after ten idle minutes). Each connection is checked before a
request gets it (one empty query), so one that broke while idle (a database restart, a
dropped network) is replaced instead of failing a request; one that breaks during a request
is discarded when it comes back. A request waits at most ``pool_timeout`` seconds for a
connection.

Opening the store first runs the migrations on a connection of its own (a plain connection
fails fast with the server's own reason: bad URL, refused, no such database), each in one
transaction that takes an advisory lock first, so processes starting together never both run
one. Compare-and-set on the game version does the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool

from .base import StoreError, Tx
from .sql import SqlStore

# Held for the length of one migration's transaction ("cardtabl").
_SCHEMA_LOCK = 0x636172647461626C


class PostgresStore(SqlStore):
    placeholder = "%s"
    dialect = "postgresql"

    def __init__(
        self, url: str, *, pool_size: int = 8, connect_timeout: int = 10, pool_timeout: float = 30
    ) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self._schema_conn: psycopg.Connection | None = None
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout) as conn:
                self._schema_conn = conn
                self.migrate()
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the PostgreSQL store: {exc}") from exc
        finally:
            self._schema_conn = None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "connect_timeout": connect_timeout},
            check=ConnectionPool.check_connection,
            timeout=pool_timeout,
            name="cardtable",
            open=True,
        )

    @contextmanager
    def _schema_transaction(self) -> Iterator[Tx]:
        conn = self._schema_conn
        assert conn is not None, "migrations run only while the store opens"
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            yield cur

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        if self._pool.closed:
            raise StoreError("the store is closed")
        with self._pool.connection() as conn:
            yield conn

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
        self._pool.close()
