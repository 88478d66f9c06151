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

Computer steps are admitted (docs/reliability.md, "Admission"): a process's driver makes at
most `OnlineSettings.computer_steps_rate` advances a second over all its tables (after a
burst of `computer_steps_burst`); beyond that the due tables simply wait, and since the
driver takes them earliest deadline first, the table that has waited longest goes next:
every table gets its turn, none gets ahead by having more computers. At a table whose
computers search (a strong one, `SEARCHING`) each advance runs in the search pool
(`Admission.run`) under a spare search slot (`spare_slot`: one no request is waiting for):
when there is none, that table waits a little (`SLOT_RETRY`) and the driver tries it
again, so computer steps never hold a person's hint back or take the server's own CPU for
a search.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.admission import spare_slot
from cardtable.server.core.metrics import MOVES
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.ratelimit import TokenBuckets
from cardtable.server.core.store import StaleVersion
from cardtable.server.online.room import Room
from cardtable.server.online.store import Due, OnlineStore, RoomRecord

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

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
SEARCHING = frozenset({"strong"})
"""Computer strengths whose step is a search (run in the search pool)."""
SLOT_RETRY = 0.05
"""Seconds a searching step waits for a spare search slot before the driver tries again."""
ADVANCES = MOVES.labels(game="kings_corner_online", by="computer")
"""Advances this process saved: computer steps, and the timed changes (a seat handed to the
computer when its grace ran out, a turn timer)."""


class Counted(Protocol):
    def inc(self) -> None: ...


class Tables(Protocol):
    """What the driver needs of `tables.OnlineTables`."""

    @property
    def settings(self) -> OnlineSettings: ...
    @property
    def store(self) -> OnlineStore: ...
    @property
    def runtime(self) -> Runtime: ...
    def advance(self, key: str, now: float) -> bool: ...
    def save(self, record: RoomRecord, room: Any) -> RoomRecord: ...
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
        settings = online.settings
        self.steps = (
            None
            if settings.computer_steps_rate is None
            else TokenBuckets(
                settings.computer_steps_rate,
                settings.computer_steps_burst,
                clock=lambda: self.clock(),
            )
        )
        """The cap on this process's advances (module docstring)."""
        self.held = 0
        """Due tables that waited for the cap or a search slot (a count, for tests)."""
        self.advances: Counted | None = ADVANCES
        """Counts the advances saved (None: the tables count their own, pstables)."""

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
        retry: float | None = None
        for _ in range(100):  # bounded: what falls due meanwhile waits for the next round
            now = self.clock()
            due = store.due(now, BATCH)
            for table in due:
                wait = 0.0 if self.steps is None else self.steps.take("all")
                if wait > 0:  # the cap: this table and the rest wait, earliest first
                    self.held += 1
                    retry = now + wait
                    break
                try:
                    stepped = self._step(table, now)
                    if stepped is None:
                        self.held += 1
                        retry = now + SLOT_RETRY if retry is None else retry
                    elif stepped and self.advances is not None:
                        self.advances.inc()
                except Exception:
                    self._failed(store, table, now)
                else:
                    self._failing.pop(table.key, None)
            else:
                if len(due) == BATCH:
                    continue
            break
        following = store.next_due()
        if retry is not None and following is not None:
            following = max(following, retry)  # held tables are still due: not before then
        self._next = following

    def _step(self, table: Due, now: float) -> bool | None:
        """Advance ``table``: at a table whose computers search, in the search pool (None
        when no search slot is spare: it waits); anything else here (`Tables.advance`)."""
        online = self.online
        record = online.store.load(table.key)
        if record is None:
            return False
        if not searching(record.state):
            return online.advance(table.key, now)
        admission = online.runtime.admission
        with spare_slot(admission) as held:
            if not held:
                return None
            out = admission.run(advanced, record.state, record.version, now)
        if out is None:
            return online.advance(table.key, now)  # nothing due after all: it stores why
        state, version = out
        try:
            online.save(record, Room.from_dict(state, version))
        except StaleVersion:
            return False  # another process saved first: that is this step
        return True

    def _failed(self, store: OnlineStore, table: Due, now: float) -> None:
        """Log the table's failure (once until it works again here) and store its back-off."""
        if table.key not in self._failing:
            log.exception("online driver: table %s (backing off)", table.key[:8])
        self._failing[table.key] = None
        if len(self._failing) > FAILING_REMEMBERED:
            self._failing.pop(next(iter(self._failing)))
        store.back_off(table, now, first=MIN_BACKOFF, most=MAX_BACKOFF)


def searching(state: dict[str, Any]) -> bool:
    """Whether a stored table's computer steps may search: a computer seat or the stand-in
    strength is one of `SEARCHING` (read from the row, nothing decoded). Every advance of
    such a table runs in the search pool; which process runs it never changes the result."""
    try:
        seats = state["seats"]
        strengths = [s["strength"] for s in seats if s["kind"] == "computer"]
        strengths.append(state["config"]["stand_in"])
    except (KeyError, TypeError):
        return False  # the table does not load: `Tables.advance` deals with it
    return any(s in SEARCHING for s in strengths)


def advanced(state: dict[str, Any], version: int, now: float) -> tuple[dict[str, Any], int] | None:
    """``Room.advance(now)`` of a stored table, as (state, version) to save; None when
    nothing is due. Run in the search pool: a pure function of what it is sent."""
    new = Room.from_dict(state, version).advance(now)
    return None if new is None else (new.to_dict(), new.version)
