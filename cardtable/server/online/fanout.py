"""The fan-out between server processes (docs/online.md "Fan-out"): `make_fanout(settings)`.

With PostgreSQL (`PgFanout`), a save sends ``pg_notify('cardtable_online', '<key>:<version>')``
inside its own transaction (PostgreSQL delivers it when the transaction commits, never for
one rolled back), and every process keeps ONE dedicated autocommit connection that
``LISTEN``s on the channel and tells its hub. When that connection drops, it comes back with
a growing pause (0.5 s doubling to 30 s); on every (re)connect it reads the stored version of
each table this process watches and wakes those that moved, since notifications sent while it
was away are lost. A silent connection is checked with a ``SELECT 1`` every 30 s. Nothing
here ever stops the app: a failure is logged (once per run of failures) and retried, and the
fallback poll (`poll.py`) covers the gap.

The same connection also ``LISTEN``s on ``cardtable_reactions`` and hands those notifications
to the hub's relay (relay.py): preset reactions, which change no table.

With SQLite (`LocalFanout`) there is one process: the saving process's own wake is enough.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import psycopg

from cardtable.server.online import relay

if TYPE_CHECKING:
    from cardtable.server.core.settings import Settings
    from cardtable.server.online.hub import Fanout, Hub

log = logging.getLogger("cardtable.server.online")

CHANNEL = "cardtable_online"
CHUNK = 500
"""Tables per catch-up query."""


class LocalFanout:
    """One process: nothing to send, nothing to hear."""

    def published(self, tx: Any, table: str, version: int) -> None:
        pass

    async def run(self, hub: Hub) -> None:
        await asyncio.Event().wait()


class PgFanout:
    """LISTEN/NOTIFY on PostgreSQL (see the module's docstring)."""

    def __init__(
        self,
        url: str,
        *,
        retry_first: float = 0.5,
        retry_most: float = 30.0,
        check_seconds: float = 30.0,
        connect_timeout: int = 10,
    ) -> None:
        self.url = url
        self.retry_first = retry_first
        self.retry_most = retry_most
        self.check_seconds = check_seconds
        self.connect_timeout = connect_timeout
        self.listening = asyncio.Event()
        """Set while the listener connection is up (after its catch-up); for tests."""
        self.connects = 0
        """Times the listener connection was opened."""
        self.backend_pid: int | None = None
        """The listener connection's server process (``pg_stat_activity.pid``)."""

    def published(self, tx: Any, table: str, version: int) -> None:
        tx.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table}:{version}"))

    async def run(self, hub: Hub) -> None:
        delay = self.retry_first
        failing = False
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, connect_timeout=self.connect_timeout
                )
            except psycopg.Error as exc:
                failing = _failed(failing, "cannot connect", exc)
            else:
                try:
                    async with conn:
                        await conn.execute(f"LISTEN {CHANNEL}")
                        await conn.execute(f"LISTEN {relay.CHANNEL}")  # reactions (relay.py)
                        await _catch_up(conn, hub)
                        self.connects += 1
                        self.backend_pid = conn.info.backend_pid
                        if failing:
                            log.warning(
                                "online fan-out: listening again (connection %d)", self.connects
                            )
                        failing = False
                        delay = self.retry_first
                        self.listening.set()
                        await self._listen(conn, hub)
                except psycopg.Error as exc:
                    failing = _failed(failing, "the listener connection failed", exc)
                finally:
                    self.listening.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.retry_most)

    async def _listen(self, conn: psycopg.AsyncConnection[Any], hub: Hub) -> None:
        """Hand every notification to ``hub`` until the connection fails."""
        while True:
            async for note in conn.notifies(timeout=self.check_seconds):
                if note.channel == relay.CHANNEL:
                    hub.reactions.heard(note.payload)
                else:
                    _deliver(hub, note.payload)
            await conn.execute("SELECT 1")  # a connection gone quiet: is it still there?


def _deliver(hub: Hub, payload: str) -> None:
    table, _, version = payload.rpartition(":")
    try:
        number = int(version)
    except ValueError:
        log.debug("online fan-out: ignored a notification %r", payload[:80])
        return
    if table:
        hub.changed(table, number)


async def _catch_up(conn: psycopg.AsyncConnection[Any], hub: Hub) -> None:
    """Wake every watched table whose stored version is newer than the hub has heard of."""
    watched = hub.watched()
    keys = sorted(watched)
    for i in range(0, len(keys), CHUNK):
        cur = await conn.execute(
            "SELECT id, version FROM online_tables WHERE id = ANY(%s)", (keys[i : i + CHUNK],)
        )
        for key, version in await cur.fetchall():
            if int(version) > watched[key]:
                hub.changed(key, int(version))


def _failed(failing: bool, what: str, exc: Exception) -> bool:
    """Log the first failure of a run of them as a warning, the rest for debugging only."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if failing:
        log.debug("online fan-out: %s: %s", what, first)
    else:
        log.warning("online fan-out: %s (%s); retrying, the poll covers the gap", what, first)
    return True


def make_fanout(settings: Settings) -> Fanout:
    """`PgFanout` when the store is PostgreSQL, else `LocalFanout`."""
    if settings.uses_postgres and settings.database_url:
        return PgFanout(settings.database_url)
    return LocalFanout()
