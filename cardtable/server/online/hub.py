"""`Hub`: wakes this process's live connections when a table they watch changes.

A table's row in the store is the truth; the hub only says "look again". It is told about a
change three ways, each enough on its own to deliver it (docs/online.md):

- `changed` from this process, right after a save it made (no round trip);
- a `Fanout` (PostgreSQL's LISTEN/NOTIFY) for saves made by other processes;
- the fallback poll, which compares stored versions with the last version each table was
  seen at, so a lost notification only delays a device.

A watcher keeps the last version it has sent; being woken with a version it has already sent
is harmless (it loads the table, sees nothing new, and sends nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Fanout(Protocol):
    """Carries "table T is now at version V" between server processes."""

    def published(self, tx: Any, table: str, version: int) -> None:
        """Called inside the transaction that saved ``table`` at ``version`` (PostgreSQL:
        ``NOTIFY``, delivered when it commits). Must not block beyond the statement."""

    async def run(self, hub: Hub) -> None:
        """Deliver other processes' changes to ``hub.changed`` until cancelled."""


class Watch:
    """One live connection's interest in one table: `wait` returns when it may have changed."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def wake(self) -> None:
        self._event.set()

    async def wait(self, timeout: float | None = None) -> bool:
        """True when woken (and re-armed), False after ``timeout`` seconds without a wake."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class Hub:
    """The watchers of this process, by table id (the store's key of the table)."""

    def __init__(self) -> None:
        self._watches: dict[str, set[Watch]] = {}
        self._versions: dict[str, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop that runs the watchers (so threads can call `changed`)."""
        self._loop = loop

    @contextmanager
    def watch(self, table: str) -> Iterator[Watch]:
        w = Watch()
        self._watches.setdefault(table, set()).add(w)
        try:
            yield w
        finally:
            group = self._watches.get(table)
            if group is not None:
                group.discard(w)
                if not group:
                    del self._watches[table]
                    self._versions.pop(table, None)

    def watched(self) -> dict[str, int]:
        """Each watched table and the newest version this hub has heard of (-1: none yet)."""
        return {t: self._versions.get(t, -1) for t in self._watches}

    def changed(self, table: str, version: int) -> None:
        """``table`` reached ``version``: wake its watchers. Safe from any thread."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop:
            # A loop that has closed (the app stopped) has nobody left to wake.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake, table, version)
        else:
            self._wake(table, version)

    def _wake(self, table: str, version: int) -> None:
        if table not in self._watches:
            return
        if version <= self._versions.get(table, -1):
            return
        self._versions[table] = version
        for w in list(self._watches[table]):
            w.wake()

    def connections(self) -> int:
        return sum(len(g) for g in self._watches.values())
