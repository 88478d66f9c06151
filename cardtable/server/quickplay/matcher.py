"""The matcher: background work in every server process (started with the app) that seats
the stored queue (docs/quickplay.md, "Matching").

Admitted work, off every request path: one round at a time per process, in a worker thread,
woken by a join in this process and otherwise every `QuickSettings.poll_seconds` (a join on
another process, a fill deadline come); a round makes at most `tables_per_round` tables.
Every process reads the same queue and may find the same tables: each table's players are
claimed in the transaction that inserts it (store.py, `claim`), so a player is seated once
however many processes race, and the losers' tables are never written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from cardtable.kings_corner.cpu import STRENGTHS
from cardtable.server.core.quick_config import QuickSettings
from cardtable.server.core.store.base import Tx
from cardtable.server.online.public import (
    OnlineTables,
    QuickOptions,
    QuickSeat,
    QuickTable,
    create_quick,
)
from cardtable.server.quickplay.matching import Group, groups, rated, strength_for
from cardtable.server.quickplay.store import Lost, QuickStore
from cardtable.server.rating.public import computer_rating

log = logging.getLogger("cardtable.server.quickplay")
DAY = 86400.0


class Quick(Protocol):
    """What the matcher reads of `service.QuickPlay`."""

    @property
    def store(self) -> QuickStore: ...
    @property
    def online(self) -> OnlineTables: ...
    @property
    def settings(self) -> QuickSettings: ...
    @property
    def clock(self) -> Callable[[], float]: ...


class Matcher:
    def __init__(self, quick: Quick) -> None:
        self.quick = quick
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self.made = 0
        """Tables this process made (tests and the benchmark)."""
        self.lost = 0
        """Tables another process (or a leave) claimed first."""
        self._failing = False

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def wake(self) -> None:
        """Look at the queue now (from any thread): a player joined here."""
        loop, event = self._loop, self._wake
        if loop is not None and event is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(event.set)

    async def run(self) -> None:
        assert self._wake is not None
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.quick.settings.poll_seconds)
            self._wake.clear()
            try:
                await asyncio.to_thread(self.once)
                self._failing = False
            except RuntimeError:  # the threads are shut down: the app is stopping
                return
            except Exception:  # the store is down: try again at the next poll (logged once)
                if not self._failing:
                    log.exception("quick play: matching failed (retrying every poll)")
                self._failing = True

    # -- one round ---------------------------------------------------------------------------
    def once(self) -> int:
        """One round: the tables due now, made; how many this process made."""
        quick = self.quick
        now = quick.clock()
        store = quick.store
        waiting = store.waiting(seen_after=now - quick.settings.stale_seconds)
        if not waiting:
            return 0
        blocked = store.blocked_pairs([w.player for w in waiting])
        made = 0
        for group in groups(waiting, blocked, now, quick.settings)[
            : quick.settings.tables_per_round
        ]:
            if self.seat(group, now):
                made += 1
        return made

    def seat(self, group: Group, now: float) -> bool:
        """Make ``group``'s table; False when one of its players was claimed first."""
        quick = self.quick
        s = quick.settings
        members = group.members
        pairs = quick.store.pairs_since([m.player for m in members], now - DAY)
        options = QuickOptions(
            preset=members[0].preset, rounds=s.rounds, turn_timer=s.turn_timer,
            stand_in=s.stand_in, rated=rated(members, pairs, s.repeat_pairs),
        )  # fmt: skip
        seats = [QuickSeat(player=m.player, name=m.name) for m in members]
        if group.computers:
            strength = strength_for([m.rating for m in members], STRENGTHS, computer_rating)
            seats += [QuickSeat(strength=strength)] * group.computers

        def claim(tx: Tx, table: QuickTable) -> None:
            quick.store.claim(tx, members, table.key, table.token, now)

        try:
            create_quick(quick.online, seats, options, now, claim)
        except Lost:
            self.lost += 1
            return False
        self.made += 1
        return True
