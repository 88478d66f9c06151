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

An unreachable database (docs/reliability.md, "Database down") costs a request at most about
1.5 s, never the 30 s of psycopg's defaults: a request waits at most ``pool_timeout`` (1.5 s)
for a connection (`StoreBusy`), a connection attempt gives up after ``connect_timeout`` (2 s,
libpq's least), and a connection whose sent data stays unacknowledged for
``tcp_user_timeout_ms`` (1.5 s: a blackholed network) is dropped by the kernel. A lost
connection (class 08, or the server shutting down: 57P01-57P03) is a `StoreError`; both are
answered 503 ``unavailable`` with ``Retry-After`` (errors.py). Either failure also starts a
*probe* (one thread): it tries a pooled connection, then a new one; while neither works the
store is marked unreachable (`reachable`, which `/healthz` reports) and every request is
refused at once instead of waiting, and once the database answers again the pool is replaced
by a fresh one (the old one's reconnection attempts back off exponentially, to minutes) and
requests flow again: recovery takes at most about `PROBE_EVERY` after the database is back.
"""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from cardtable.server.core.store.base import StoreBusy, StoreError, Tx
from cardtable.server.core.store.sql import SqlStore

log = logging.getLogger("cardtable.server")

# Held for the length of one migration's transaction ("cardtabl").
_SCHEMA_LOCK = 0x636172647461626C
# admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down).
_GOING_AWAY = {"57P01", "57P02", "57P03"}
PROBE_EVERY = 0.5
"""Seconds between two probes of an unreachable database."""


class PostgresStore(SqlStore):
    placeholder = "%s"
    dialect = "postgresql"
    driver_errors = (psycopg.Error,)

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 8,
        connect_timeout: int = 2,
        pool_timeout: float = 1.5,
        tcp_user_timeout_ms: int = 1500,
    ) -> None:
        self.url = url
        self.pool_size = pool_size
        self.connect_timeout = connect_timeout
        self.pool_timeout = pool_timeout
        self._connect_kwargs = {
            "autocommit": True,
            "connect_timeout": connect_timeout,
            "tcp_user_timeout": tcp_user_timeout_ms,
        }
        self.reachable = True
        """False from a failed probe until the database answers again (never blocks)."""
        self._closed = threading.Event()
        self._probe_lock = threading.Lock()
        self._probing = False
        self._schema_conn: psycopg.Connection | None = None
        try:
            with psycopg.connect(url, **self._connect_kwargs) as conn:  # type: ignore[arg-type]
                self._schema_conn = conn
                self.migrate()
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the PostgreSQL store: {exc}") from exc
        finally:
            self._schema_conn = None
        self._pool = self._new_pool()

    def _new_pool(self) -> ConnectionPool:
        return ConnectionPool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            kwargs=dict(self._connect_kwargs),
            timeout=self.pool_timeout,
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
        if self._closed.is_set():
            raise StoreError("the store is closed")
        if not self.reachable:
            self._suspect()  # a probe is running (this starts one if the last one failed)
            raise StoreError("the database is unreachable")
        pool = self._pool
        try:
            try:
                conn = self._borrow(pool)
            except PoolClosed:
                if self._pool is pool:
                    raise StoreError("the store is closed") from None
                pool = self._pool  # replaced by the probe while this request waited
                conn = self._borrow(pool)
        except PoolTimeout:
            self._suspect()
            raise StoreBusy("every database connection stayed busy") from None
        except PoolClosed:
            raise StoreError("the store is closed") from None
        try:
            yield conn
        except psycopg.OperationalError as exc:
            if not _lost(conn, exc):
                raise
            self._suspect()
            raise StoreError(f"the database connection was lost: {exc}") from exc
        finally:
            pool.putconn(conn)

    def _borrow(self, pool: ConnectionPool) -> psycopg.Connection:
        conn = pool.getconn()
        if _closed_by_server(conn):
            conn.close()
            pool.putconn(conn)  # discarded; the pool opens another
            self._suspect()  # a restart, or the server going away
            pool.check()  # the other idle ones most likely went the same way
            conn = pool.getconn()
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[Tx]:
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            yield cur

    @contextmanager
    def _reading(self) -> Iterator[Tx]:
        with self._connection() as conn, conn.cursor() as cur:
            yield cur

    def _is_conflict(self, exc: Exception) -> bool:
        return isinstance(exc, errors.UniqueViolation)

    def close(self) -> None:
        self._closed.set()
        self._pool.close()

    # -- reachability (see the module's docstring) ---------------------------------------
    def _suspect(self) -> None:
        """A request could not get or keep a connection: check the database in the
        background (one probe at a time)."""
        with self._probe_lock:
            if self._probing or self._closed.is_set():
                return
            self._probing = True
        threading.Thread(target=self._probe, name="cardtable-store-probe", daemon=True).start()

    def _probe(self) -> None:
        try:
            while not self._closed.is_set():
                if self._probe_once():
                    return
                self._closed.wait(PROBE_EVERY)
        except Exception:  # pragma: no cover - a bug; the next request starts another
            log.exception("store probe failed")
        finally:
            with self._probe_lock:
                self._probing = False

    def _probe_once(self) -> bool:
        """True once the database answers (through the pool, or a fresh pool)."""
        if self._pool_answers():
            self._set_reachable(True)
            return True
        if not self._database_answers():
            self._set_reachable(False)
            return False
        # The database answers but the pool did not. After an outage the pool is backing
        # off its reconnections (to minutes): start a fresh one. Otherwise it is only busy,
        # or still reconnecting after a restart it noticed at once.
        if not self.reachable:
            old, self._pool = self._pool, self._new_pool()
            old.close(timeout=1)  # a request waiting on it tries the new one
        self._set_reachable(True)
        return True

    def _set_reachable(self, reachable: bool) -> None:
        if reachable != self.reachable:
            if reachable:
                log.warning("store: the database answers again")
            else:
                log.warning("store: the database is unreachable; requests get 503 until it answers")
        self.reachable = reachable

    def _pool_answers(self) -> bool:
        try:
            with self._pool.connection(timeout=0.5) as conn:
                conn.execute("SELECT 1")
            return True
        except (PoolTimeout, psycopg.Error):
            return False

    def _database_answers(self) -> bool:
        try:
            with psycopg.connect(self.url, **self._connect_kwargs) as conn:  # type: ignore[arg-type]
                conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False


def _lost(conn: psycopg.Connection, exc: psycopg.OperationalError) -> bool:
    """The connection failed or the server is going away (not a query's own error, such as a
    statement timeout or a serialization failure)."""
    state = exc.sqlstate or ""
    return conn.broken or conn.closed or state.startswith("08") or state in _GOING_AWAY


def _closed_by_server(conn: psycopg.Connection) -> bool:
    """True if the idle ``conn`` has input waiting (the server's goodbye, or end of file) or
    is unusable; a poll with no wait, not a round trip."""
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OSError, psycopg.Error):
        return True
