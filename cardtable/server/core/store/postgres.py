"""The shared store: PostgreSQL through psycopg 3, for several server processes at once.

Connections come from a `psycopg_pool.ConnectionPool` (autocommit, with explicit transactions
for writes): at most ``pool_size`` per process, one kept open when idle and more opened as
requests need them (closed again after ten idle minutes); a request waits at most
``pool_timeout`` seconds for one.

Broken connections are replaced. One that breaks during a request fails that request and is
discarded when it comes back (the pool sees it is no longer usable). One that the server
closed while it sat idle (a restart, an administrator, an idle timeout) is caught before a
request uses it: an idle connection has nothing to read unless the server has spoken, which
then is almost always its last word, so a poll of the socket (no round trip) finds it; it is
dropped, the other idle connections are checked at once (`ConnectionPool.check`, one round
trip each, only then), and the request takes a fresh one. The pool's own ``check=`` option
is not used: it costs a round trip on every borrow, and after a restart it sleeps 1, 2, 4 ...
seconds per broken connection before the next, so a full pool would run past the timeout.

Opening the store first runs the migrations on a connection of its own (a plain connection
fails fast with the server's own reason: bad URL, refused, no such database), each in one
transaction that takes an advisory lock first, so processes starting together never both run
one. Compare-and-set on the game version does the rest.
"""

from __future__ import annotations

import select
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool, PoolTimeout

from cardtable.server.core.store.base import StoreBusy, StoreError, Tx
from cardtable.server.core.store.sql import SqlStore

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
            timeout=pool_timeout,
            name="cardtable",
            open=True,
        )

    @contextmanager
    def _schema_transaction(self) -> Iterator[Tx]:
        # While opening: the connection of its own; later (`migrate()` again): the pool's.
        conn = self._schema_conn
        with (
            nullcontext(conn) if conn is not None else self._connection() as conn,
            conn.transaction(),
            conn.cursor() as cur,
        ):
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            yield cur

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        if self._pool.closed:
            raise StoreError("the store is closed")
        try:
            conn = self._pool.getconn()
            if _closed_by_server(conn):
                conn.close()
                self._pool.putconn(conn)  # discarded; the pool opens another
                self._pool.check()  # the other idle ones most likely went the same way
                conn = self._pool.getconn()
        except PoolTimeout:
            raise StoreBusy("every database connection stayed busy") from None
        try:
            yield conn
        finally:
            self._pool.putconn(conn)

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


def _closed_by_server(conn: psycopg.Connection) -> bool:
    """True if the idle ``conn`` has input waiting (the server's goodbye, or end of file) or
    is unusable; a poll with no wait, not a round trip."""
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, psycopg.Error):
        return True
