"""`Hub`: wakes this process's live connections when a table they watch changes;
`CredentialGuard`: checks their credentials (a device signed out or deleted stops receiving at
once); `Sockets`: counts them against the caps per address, device and table, and while they
wait for their hello (docs/online.md "Live channel limits").

A table's row in the store is the truth; the hub only says "look again". It is told about a
change three ways, each enough on its own to deliver it (docs/online.md):

- `changed` from this process, right after a save it made (no round trip);
- a `Fanout` (PostgreSQL's LISTEN/NOTIFY) for saves made by other processes;
- the fallback poll, which compares stored versions with the last version each table was
  seen at, so a lost notification only delays a device.

A watcher keeps the last version it has sent; being woken with a version it has already sent
is harmless (it loads the table, sees nothing new, and sends nothing).

The guard (docs/online.md "Signed out while connected") reads credentials from the store, never
from memory: before every push, and in a sweep every `CredentialGuard.every` seconds over every
open connection of the process. Checks are batched: one query (per 500 credentials) answers
every check asked while no query was running, and a check is only ever answered by a query that
began after it was asked, so a push that follows a sign-out always sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from cardtable.server.online.relay import Relay

log = logging.getLogger("cardtable.server.online")


@contextmanager
def member(
    groups: dict[str, set[Any]], key: str, item: Any, emptied: Callable[[], object] | None = None
) -> Iterator[None]:
    """``item`` is in ``groups[key]`` while the block runs; a group left empty is removed
    (and ``emptied`` called)."""
    groups.setdefault(key, set()).add(item)
    try:
        yield
    finally:
        group = groups.get(key)
        if group is not None:
            group.discard(item)
            if not group:
                del groups[key]
                if emptied is not None:
                    emptied()


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
        self.reactions = Relay()
        """The reactions said at the watched tables (relay.py): no change of a table."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop that runs the watchers (so threads can call `changed`)."""
        self._loop = loop
        self.reactions.bind(loop)

    @contextmanager
    def watch(self, table: str) -> Iterator[Watch]:
        w = Watch()
        with member(self._watches, table, w, lambda: self._versions.pop(table, None)):
            yield w

    def watched(self) -> dict[str, int]:
        """Each watched table and the newest version this hub has heard of (-1: none yet)."""
        return {t: self._versions.get(t, -1) for t in self._watches}

    def heard(self, table: str) -> int:
        """The newest version of ``table`` this hub has woken its watchers for (-1: none)."""
        return self._versions.get(table, -1)

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


Standing = Callable[[list[str]], dict[str, str]]
"""The store's answer for some credentials: "ok", "revoked" or "gone" for each (blocking)."""
OnRefused = Callable[[str], None]
"""Told a connection's credential is no longer "ok" (with its standing)."""


class CredentialGuard:
    """The credentials of this process's open live connections, checked in the store."""

    def __init__(self, standing: Standing, every: float = 0.5) -> None:
        self._standing = standing
        self.every = every
        """Seconds between sweeps over every open connection."""
        self._open: dict[str, set[OnRefused]] = {}
        self._waiting: dict[str, list[asyncio.Future[str]]] = {}
        self._batch: asyncio.Task[None] | None = None
        self.queries = 0
        """Batches read from the store (for tests)."""

    @contextmanager
    def guard(self, cred: str, refused: OnRefused) -> Iterator[None]:
        """While the block runs, a sweep that finds ``cred`` signed out or deleted calls
        ``refused`` with its standing."""
        with member(self._open, cred, refused):
            yield

    async def standing(self, cred: str) -> str:
        """``cred``'s standing, read by a query that began after this call."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        self._waiting.setdefault(cred, []).append(future)
        batch = self._batch
        if batch is None or batch.done() or batch.get_loop() is not loop:
            self._batch = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        """Answer every waiting check, one batch at a time, until none is waiting."""
        while self._waiting:
            waiting, self._waiting = self._waiting, {}
            self.queries += 1
            try:
                found = await asyncio.to_thread(self._standing, sorted(waiting))
            except Exception as exc:
                for futures in waiting.values():
                    for f in futures:
                        if not f.done():
                            f.set_exception(exc)
                continue
            for cred, futures in waiting.items():
                for f in futures:
                    if not f.done():
                        f.set_result(found.get(cred, "gone"))

    async def sweep(self) -> int:
        """Check every open connection's credential once, by a read of its own (begun after
        the sweep was); tell the refused ones. How many credentials were refused. The read
        is one call, not a check per credential: a sweep of 600 connections twice a second
        as 600 tasks cost a sixth of the server's CPU at 200 tables (docs/online.md)."""
        creds = sorted(self._open)
        if not creds:
            return 0
        self.queries += 1
        found = await asyncio.to_thread(self._standing, creds)
        refused = 0
        for cred in creds:
            standing = found.get(cred, "gone")
            if standing != "ok":
                refused += 1
                for tell in list(self._open.get(cred, ())):
                    tell(standing)
        return refused

    async def run(self) -> None:
        """Sweep every `every` seconds until cancelled; a failure is logged once per run of
        failures (the pushes still check for themselves)."""
        failing = False
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                if not failing:
                    log.exception("online: checking live credentials failed; retrying")
                failing = True
            else:
                failing = False


# -- live connection caps ------------------------------------------------------------------
WAITING, CROWDED, REPLACED, BUSY = 4408, 4409, 4429, 1013
"""Close codes of the caps (docs/online.md "Live channel limits"): 4408 too many
connections waiting for their hello, 4409 the table is crowded, 4429 a newer connection of
the same device took this one's place, 1013 (try again later) too many live connections
from this address, or in this process."""


class Full(Exception):
    """A connection refused by a cap (closed with ``code`` and ``reason``)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


@dataclass(frozen=True)
class Caps:
    """The limits `Sockets` keeps (`OnlineSettings`, per process)."""

    live: int
    per_address: int
    per_device: int
    per_table: int
    waiting_per_address: int
    waiting: int


class Slot:
    """One live connection as the caps see it, from the upgrade until its handler ends."""

    __slots__ = ("_event", "address", "device", "evict", "kicked", "seated", "table")

    def __init__(
        self, address: str, table: str | None, evict: Callable[[int, str], object] | None = None
    ) -> None:
        self.address = address
        self.table = table
        self.evict = evict
        """Closes the socket at once with a code and reason, when the server offers it
        (`serving.GuardedWebSocketProtocol.evict`): its file descriptor is free before the
        handler gets to run again."""
        self.device: str | None = None
        """The player id (its key) once the hello was accepted."""
        self.seated = False
        self.kicked: Full | None = None
        """Why a cap closed this connection to let a newer one in (None: it was not)."""
        self._event = asyncio.Event()

    def kick(self, code: int, reason: str) -> None:
        if self.kicked is None:
            self.kicked = Full(code, reason)
            self._event.set()
            if self.evict is not None:
                self.evict(code, reason)

    async def until_kicked(self) -> None:
        """Return only by raising the `Full` this connection was kicked with."""
        await self._event.wait()
        assert self.kicked is not None
        raise self.kicked


Group = dict[Slot, None]
"""Slots in the order they opened (oldest first)."""


class Sockets:
    """This process's live connections, counted per client address, per device, per table,
    and while they wait for their hello. Over a cap the oldest connection of the same group is
    told to close (`Slot.kick`), so a device or a person reconnecting is never locked out by
    its own half-open sockets, except that a spectator arriving at a crowded table is refused
    instead (`said_hello`). A kicked slot stops counting at once."""

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self._all: Group = {}
        self._waiting: Group = {}
        self._address: dict[str, Group] = {}
        self._waiting_address: dict[str, Group] = {}
        self._device: dict[str, Group] = {}
        self._table: dict[str, Group] = {}
        self.kicks = 0
        """Connections closed to make room (for tests and the benchmark)."""

    def __len__(self) -> int:
        return len(self._all)

    def waiting(self) -> int:
        return len(self._waiting)

    def open(
        self, address: str, table: str | None, evict: Callable[[int, str], object] | None = None
    ) -> Slot:
        """A new connection from ``address`` (a `client_key`) to ``table``: room is made for it
        by kicking the oldest waiting connection (of this address, then of the process), the
        address's oldest connection, and at the process's budget the oldest connection still
        waiting for its hello, or when none is, the oldest connection of the address that has
        the most; in that order, as each cap requires."""
        caps = self.caps
        mine = self._waiting_address.get(address, {})
        if len(mine) >= caps.waiting_per_address:
            self._kick(next(iter(mine)), WAITING, "too many connections waiting for hello")
        if len(self._waiting) >= caps.waiting:
            self._kick(next(iter(self._waiting)), WAITING, "too many connections waiting")
        mine = self._address.get(address, {})
        if len(mine) >= caps.per_address:
            self._kick(next(iter(mine)), BUSY, "too many connections from this address")
        if len(self._all) >= caps.live:
            # A connection still waiting for its hello costs nothing to drop (a real page
            # says hello at once); failing that, the biggest client gives way.
            group = self._waiting or max(self._address.values(), key=len)
            self._kick(next(iter(group)), BUSY, "too many live connections")
        slot = Slot(address, table, evict)
        self._all[slot] = None
        self._waiting[slot] = None
        self._address.setdefault(address, {})[slot] = None
        self._waiting_address.setdefault(address, {})[slot] = None
        return slot

    def said_hello(self, slot: Slot, device: str, *, seated: bool) -> None:
        """``slot`` said hello as ``device`` (holding a seat at its table or not): it stops
        waiting and counts for its device and its table. Raises `Full` for a spectator at a
        table that has `Caps.per_table` connections (then ``slot`` no longer counts)."""
        if slot not in self._all:
            return  # kicked while its hello was checked: it closes on its next wait
        caps = self.caps
        _leave(self._waiting, slot)
        _leave_group(self._waiting_address, slot.address, slot)
        table = self._table.get(slot.table or "", {})
        if len(table) >= caps.per_table:
            spectators = [s for s in table if not s.seated]
            if not seated or not spectators:
                self.close(slot)
                raise Full(CROWDED, "too many connections to this table")
            self._kick(spectators[0], CROWDED, "a seated player needs the room")
        mine = self._device.get(device, {})
        if len(mine) >= caps.per_device:
            self._kick(next(iter(mine)), REPLACED, "a newer connection of this device")
        slot.device, slot.seated = device, seated
        self._device.setdefault(device, {})[slot] = None
        if slot.table is not None:
            self._table.setdefault(slot.table, {})[slot] = None

    def close(self, slot: Slot) -> None:
        """``slot`` ended (or was kicked): it counts nowhere any more."""
        _leave(self._all, slot)
        _leave(self._waiting, slot)
        _leave_group(self._address, slot.address, slot)
        _leave_group(self._waiting_address, slot.address, slot)
        if slot.device is not None:
            _leave_group(self._device, slot.device, slot)
        if slot.table is not None:
            _leave_group(self._table, slot.table, slot)

    def _kick(self, slot: Slot, code: int, reason: str) -> None:
        self.close(slot)
        slot.kick(code, reason)
        self.kicks += 1


def _leave(group: Group, slot: Slot) -> None:
    group.pop(slot, None)


def _leave_group(groups: dict[str, Group], key: str, slot: Slot) -> None:
    group = groups.get(key)
    if group is not None:
        group.pop(slot, None)
        if not group:
            del groups[key]
