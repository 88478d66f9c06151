"""`Driver`: in every process, applies what is due at the online tables (docs/online.md
"Timers are stored deadlines").

It takes the tables whose stored ``due_at`` has come and saves ``Room.advance(now)`` with
compare-and-set: when two processes race for the same computer step both compute the same
move from the same version and only one save succeeds; the other changes nothing. It sleeps
until the earliest stored deadline (at most `driver_idle_seconds`), and this process's own
saves wake it early. It also refreshes this process's presence rows and sweeps rows left by
a process that stopped. Every failure is logged; the loop goes on.

A table whose advance fails (a bug, a row the code cannot handle) backs off in the store,
not in this process: `OnlineStore.back_off` counts the failure on the row and moves its
``due_at`` 0.5 s ahead, twice as far after each further failure, up to 30 s, so no process
retries it in a tight loop and a process that starts later honours the same wait. The first
save of the table (the advance working again, or any change a device makes) sets the count
back to 0 and stores the table's real deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.store import Due, OnlineStore

log = logging.getLogger("cardtable.server.online")
BATCH = 50
MIN_WAIT = 0.02
MIN_BACKOFF = 0.5
MAX_BACKOFF = 30.0
FAILING_REMEMBERED = 1000
"""After a failed round (the store unreachable, say) the driver waits 0.5 s, then twice as
long each time up to 30 s, and logs the first failure of the streak only. A table whose
advance fails gets the same schedule as its stored deadline (`OnlineStore.back_off`) and is
logged once per process until it works again."""


class Tables(Protocol):
    """What the driver needs of `service.Online`."""

    @property
    def settings(self) -> OnlineSettings: ...
    @property
    def store(self) -> OnlineStore: ...
    def advance(self, key: str, now: float) -> bool: ...
    def presence_upkeep(self, now: float) -> None: ...


class Driver:
    def __init__(self, online: Tables) -> None:
        self.online = online
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup: asyncio.Event | None = None
        self._next: float | None = None
        self._presence_at = 0.0
        self.clock: Callable[[], float] = time.time
        """Epoch seconds (a test injects its own)."""
        self._failing: dict[str, None] = {}
        """Tables whose last advance failed (logged once until one succeeds)."""

    def wake(self, at: float | None) -> None:
        """A deadline at ``at`` was just saved here: look again by then. Any thread."""
        loop, event = self._loop, self._wakeup
        if at is None or loop is None or event is None:
            return
        if self._next is not None and at >= self._next:
            return
        self._next = at
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            event.set()
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed: the app stopped
                loop.call_soon_threadsafe(event.set)

    async def run(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        wakeup = self._wakeup = asyncio.Event()
        try:
            await self._run(wakeup)
        finally:
            if self._loop is loop:
                self._loop = self._wakeup = None

    async def _run(self, wakeup: asyncio.Event) -> None:
        settings = self.online.settings
        failures = 0
        while True:
            try:
                await run_in_threadpool(self.once)
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                if failures == 1:  # once per streak: a store that is down must not flood the log
                    log.exception("online driver: a round failed (retrying with backoff)")
            else:
                if failures:
                    log.warning("online driver: working again after %d failed rounds", failures)
                failures = 0
            now = self.clock()
            wait = settings.driver_idle_seconds
            if failures:
                wait = min(MAX_BACKOFF, MIN_BACKOFF * 2 ** min(failures - 1, 8))
            elif self._next is not None:
                # A deadline still in the past (another process is on it, or its back-off
                # could not be stored) waits a little rather than spinning.
                wait = min(wait, max(MIN_WAIT, self._next - now))
            wakeup.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wakeup.wait(), wait)

    def once(self) -> None:
        """One round: presence upkeep when it is time, then every due table."""
        online = self.online
        now = self.clock()
        if now - self._presence_at >= online.settings.presence_refresh_seconds:
            self._presence_at = now
            online.presence_upkeep(now)
        store = online.store
        for _ in range(100):  # bounded: what falls due meanwhile waits for the next round
            now = self.clock()
            due = store.due(now, BATCH)
            for table in due:
                try:
                    online.advance(table.key, now)
                except Exception:
                    self._failed(store, table, now)
                else:
                    self._failing.pop(table.key, None)
            if len(due) < BATCH:
                break
        self._next = store.next_due()

    def _failed(self, store: OnlineStore, table: Due, now: float) -> None:
        """Log the table's failure (once until it works again here) and store its back-off."""
        if table.key not in self._failing:
            log.exception("online driver: table %s (backing off)", table.key[:8])
        self._failing[table.key] = None
        if len(self._failing) > FAILING_REMEMBERED:
            self._failing.pop(next(iter(self._failing)))
        store.back_off(table, now, first=MIN_BACKOFF, most=MAX_BACKOFF)
