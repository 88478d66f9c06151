"""`OnlineTables`: what one app instance runs for the online tables (started and stopped with
the app): the hub of live connections, the guard over their credentials, the fan-out between
processes, the fallback poll, the deadline driver, the code and join rate limits, the views
rendered once, the tables last saved or read, and the one way a table is saved. What the
feature does with them is `service.py`.

Every change goes through `save` (compare-and-set, the fan-out's NOTIFY in the same
transaction, then this process's watchers and driver woken) or `change` (the same, reloaded
and retried when another change got there first: a request's change, `service.act`, and
presence and deadlines, which nobody asked for against a version).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.errors import ApiError, damaged
from cardtable.server.core.ratelimit import TokenBuckets
from cardtable.server.core.serving import connection_budgets
from cardtable.server.core.store import StaleVersion
from cardtable.server.core.store.base import Tx
from cardtable.server.devices.public import DeviceStore
from cardtable.server.online import mine
from cardtable.server.online.driver import Driver
from cardtable.server.online.fanout import make_fanout
from cardtable.server.online.hub import Caps, CredentialGuard, Fanout, Hub, Sockets
from cardtable.server.online.poll import poll
from cardtable.server.online.render import Views
from cardtable.server.online.room import Refused, Room, RoomError
from cardtable.server.online.store import OnlineStore, RoomRecord

if TYPE_CHECKING:
    from cardtable.server.core.online_config import OnlineSettings
    from cardtable.server.core.runtime import Runtime
    from cardtable.server.core.settings import Settings

log = logging.getLogger("cardtable.server.online")
ATTEMPTS = 8


class Changed(NamedTuple):
    """What `OnlineTables.change` did."""

    record: RoomRecord
    """The table as stored now: the one saved, or the one read when nothing changed."""
    room: Room
    since: int | None
    """The version the saved change was made from (None: nothing was saved)."""


SavedHook = Callable[[Tx, RoomRecord, Room], None]
"""A hook of `OnlineTables.saved_hooks`: (the transaction, the record before, the table after)."""


class OnlineTables:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = runtime.settings.online
        self.hub = Hub()
        self.guard = CredentialGuard(self.standing)
        self.driver = Driver(self)
        self.process = secrets.token_hex(8)
        self.fanout: Fanout = make_fanout(runtime.settings)
        s = self.settings
        self.lookup_limit = _buckets(s.lookup_rate, s.lookup_burst, "online_lookup_rate")
        self.lookups_limit = _buckets(s.lookups_rate, s.lookups_burst, "online_lookups_rate")
        self.join_limit = _buckets(s.join_rate, s.join_burst, "online_join_rate")
        self.create_limit = _buckets(s.create_rate, s.create_burst, "online_create_rate")
        self.table_limit = _buckets(s.table_rate, s.table_burst, "online_table_rate")
        self.qr_limit = _buckets(s.qr_rate, s.qr_burst, "online_qr_rate")
        self.live: set[str] = set()
        """This process's open live connections (their presence rows)."""
        self.sockets = Sockets(_caps(runtime.settings))
        """This process's live connections against their caps (hub.py)."""
        self._store: OnlineStore | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.views = Views(check=self.settings.check_views)
        """The rendered views of this process (render.py: once per table, version, seat)."""
        self._latest: OrderedDict[str, RoomRecord] = OrderedDict()
        """The newest record this process saved or read, per table (at most `_LATEST`)."""
        self._latest_lock = threading.Lock()
        self._reading: dict[str, Reading] = {}
        """Store reads under way for live connections, per table (`newest`)."""
        self.reads = 0
        """Tables read from the store for live connections (for tests and the benchmark)."""
        self.saved_hooks: list[SavedHook] = []
        """Called inside every save's transaction, after the fan-out's NOTIFY, with the
        record the change was made over and the table as saved: work that must be written
        with the change or not at all (an outbox row), never slow work."""
        self.saved_hooks.append(self._index_seats)

    @property
    def store(self) -> OnlineStore:
        base = self.runtime.store
        if self._store is None or self._store.sql is not base:
            self._store = OnlineStore(base)
        return self._store

    def standing(self, creds: list[str]) -> dict[str, str]:
        """Whether each credential is still a signed-in device (for the guard)."""
        return DeviceStore(self.runtime.store).standing(creds)

    def versions(self, keys: list[str]) -> dict[str, int]:
        """Stored versions of ``keys`` (for the fallback poll)."""
        return self.store.versions(keys)

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        """Start the background work: the deadline driver, the fan-out listener, the poll."""
        self.hub.bind(asyncio.get_running_loop())
        work = [
            self.driver.run(),
            self.fanout.run(self.hub),
            poll(self.hub, self.versions, self.settings.poll_seconds),
            self.guard.run(),
        ]
        self._tasks = [asyncio.create_task(w) for w in work]

    def beside(self, *work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` with this process's background work, until `stop` (the Poker
        Squares tables' driver and poll)."""
        self._tasks += [asyncio.create_task(w) for w in work]

    async def stop(self) -> None:
        """Stop the background work (live connections end with the server)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []

    # -- saving --------------------------------------------------------------------------
    def _index_seats(self, tx: Tx, record: RoomRecord, room: Room) -> None:
        """Keep the table's rows of the seats index ("Your tables", mine.py) with the save."""
        mine.index(self.store, tx, record.key, record.version, room)

    def save(self, record: RoomRecord, room: Room) -> RoomRecord:
        """Compare-and-set ``room`` over ``record`` (`StaleVersion` when it lost)."""

        def published(tx: Tx, key: str, version: int) -> None:
            self.fanout.published(tx, key, version)
            for hook in self.saved_hooks:
                hook(tx, record, room)

        saved = self.store.save(
            record,
            room.to_dict(),
            due_at=room.due_at,
            keep_code=room.is_open,
            published=published,
        )
        if room.version == saved.version:
            _decoded_as(saved, room)  # what was just stored: no need to decode it again
        self.known(saved)
        self.hub.changed(record.key, saved.version)
        self.driver.wake(room.due_at)
        return saved

    # -- reading, once per table and version -----------------------------------------------
    def known(self, record: RoomRecord) -> None:
        """``record`` was just saved or read here: decode it now (in the caller's thread, once
        per version, `load_room`) and keep it as its table's newest, so the pushes this change
        wakes read neither the store nor the JSON again."""
        try:
            load_room(record)
        except ApiError:
            return  # a table that does not load is not kept (its readers meet the error)
        with self._latest_lock:
            old = self._latest.get(record.key)
            if old is None or old.version < record.version:
                self._latest[record.key] = record
            self._latest.move_to_end(record.key)
            if len(self._latest) > _LATEST:
                self._latest.popitem(last=False)

    def kept(self, key: str, version: int) -> RoomRecord | None:
        """Table ``key`` as this process last saved or read it, if that is at ``version``
        (a change made from it is still saved by compare-and-set, which refuses it when the
        store has moved on)."""
        with self._latest_lock:
            record = self._latest.get(key)
        return record if record is not None and record.version == version else None

    def _read(self, key: str) -> RoomRecord | None:
        self.reads += 1
        record = self.store.load(key)
        if record is not None:
            self.known(record)
        return record

    async def newest(self, key: str, heard: int) -> RoomRecord | None:
        """Table ``key`` at version ``heard`` or newer, for the live connections this process
        woke for ``heard`` (`Hub.heard`; -1: none heard, read the store). Kept when this
        process saved or read it; else read once from the store for every connection asking
        meanwhile (a read joins another only if that one began after ``heard`` was heard, so
        it returns at least that version). None when the table is gone."""
        if heard >= 0:
            with self._latest_lock:
                record = self._latest.get(key)
            if record is not None and record.version >= heard:
                return record
        pending = self._reading.get(key)
        if pending is None or pending[0] < heard or heard < 0:
            task = asyncio.ensure_future(run_in_threadpool(self._read, key))
            pending = (heard, task)
            self._reading[key] = pending

            def done(task: asyncio.Future[RoomRecord | None], key: str = key,
                     mine: Reading = pending) -> None:  # fmt: skip
                if self._reading.get(key) is mine:
                    del self._reading[key]
                if not task.cancelled():
                    task.exception()  # read: its readers were told, or have all gone

            task.add_done_callback(done)
        return await asyncio.shield(pending[1])

    def change(
        self,
        key: str,
        change: Callable[[Room], Room | None],
        *,
        first: RoomRecord | None = None,
        check: Callable[[RoomRecord, Room], None] | None = None,
    ) -> Changed | None:
        """Apply ``change`` to the stored table and save it with compare-and-set, again on the
        newest version when another change won the race; None when there is no such table.
        `StaleVersion` after `ATTEMPTS` lost races in a row.

        ``first``: the table as this process last had it (`kept`), changed without reading
        the store; when the change from it is refused or changes nothing, the store is read
        and the change made again there. ``check`` sees every version before it is changed
        (and raises to stop: an old version the caller asked against, say)."""
        for _ in range(ATTEMPTS):
            record = first or self.store.load(key)
            if record is None:
                return None
            room = load_room(record)
            if check is not None:
                check(record, room)
            try:
                new = change(room)
            except Refused:
                if first is None:
                    raise
                new = None  # refused or nothing to save: as the store has it, read it
            if new is None:
                if first is not None:
                    first = None
                    continue
                return Changed(record, room, None)
            try:
                saved = self.save(record, new)
            except StaleVersion:
                first = None
                continue  # another change came first: made again on the newest version
            return Changed(saved, new, record.version)
        raise StaleVersion(key)  # pragma: no cover - eight lost races in a row

    def advance(self, key: str, now: float) -> bool:
        """What is due at table ``key``, once; False when nothing was or another process
        saved first (then it is that process's change)."""
        record = self.store.load(key)
        if record is None:
            return False
        try:
            room = load_room(record)
        except Exception:
            log.error("online table %s does not load; its deadline is dropped", key[:8])
            with contextlib.suppress(StaleVersion):
                self.store.save(record, record.state, due_at=None, keep_code=False)
            return False
        new = room.advance(now)
        if new is None:
            if room.due_at is not None and room.due_at <= now:
                # Nothing is really due (a deadline already handled): store the next one.
                with contextlib.suppress(StaleVersion):
                    self.store.save(
                        record, record.state, due_at=_later(room, now), keep_code=room.is_open
                    )
            return False
        try:
            self.save(record, new)
        except StaleVersion:
            return False
        return True

    # -- presence ------------------------------------------------------------------------
    def fresh_after(self, now: float) -> float:
        return now - self.settings.presence_stale_seconds

    def left(self, key: str, player: str, seated: bool, now: float) -> None:
        """A connection of ``player`` to table ``key`` is gone: grace starts when it was the
        device's last one; the spectator count follows."""
        left(self, key, player, seated, now)

    def presence_upkeep(self, now: float) -> None:
        """Refresh this process's presence rows; sweep those no process refreshes."""
        presence_upkeep(self, now)


class Present(Protocol):
    """Tables whose live connections keep presence rows (these and the Poker Squares
    tables'): their rooms have ``disconnected(player, now)`` and ``with_spectators(n)``."""

    @property
    def store(self) -> OnlineStore: ...
    @property
    def live(self) -> set[str]: ...
    @property
    def settings(self) -> OnlineSettings: ...
    @property
    def process(self) -> str: ...
    def fresh_after(self, now: float) -> float: ...
    def change(self, key: str, change: Callable[[Any], Any]) -> object: ...
    def left(self, key: str, player: str, seated: bool, now: float) -> None: ...


def left(tables: Present, key: str, player: str, seated: bool, now: float) -> None:
    """A connection of ``player`` to table ``key`` is gone: grace starts when it was the
    device's last one; the spectator count follows."""
    store = tables.store
    if seated:
        if store.connections(key, player, tables.fresh_after(now)) == 0:
            tables.change(key, lambda room: room.disconnected(player, now))
    else:
        count = store.spectators(key, tables.fresh_after(now))
        tables.change(key, lambda room: room.with_spectators(count))


def presence_upkeep(tables: Present, now: float) -> None:
    """Refresh this process's presence rows of ``tables``; sweep those no process refreshes
    (their process stopped: the devices are gone)."""
    store = tables.store
    store.refresh(sorted(tables.live), now)
    for gone in store.sweep(tables.fresh_after(now)):
        left(tables, gone.table, gone.player, gone.seated, now)


_DECODED = 512
"""Decoded tables kept per process: a table at a version never changes (every save makes a
new version), so a move's pushes to the table's devices decode it once, not once each."""
_LATEST = 512
"""Tables whose newest record `OnlineTables` keeps (a table's pushes follow its save within
milliseconds; a table that fell out is read from the store again)."""
Reading = tuple[int, "asyncio.Future[RoomRecord | None]"]
_decoded: OrderedDict[tuple[str, int], Room] = OrderedDict()
_decoded_lock = threading.Lock()


def load_room(record: RoomRecord) -> Room:
    at = (record.key, record.version)
    with _decoded_lock:
        room = _decoded.get(at)
        if room is not None:
            _decoded.move_to_end(at)
            return room
    try:
        room = Room.from_dict(record.state, record.version)
    except RoomError:
        raise damaged("online table") from None
    with _decoded_lock:
        _decoded[at] = room
        if len(_decoded) > _DECODED:
            _decoded.popitem(last=False)
    return room


def _decoded_as(record: RoomRecord, room: Room) -> None:
    """``room`` is what ``record`` holds: ``record.state`` is ``room.to_dict()`` at
    ``room.version`` (tests/server/online/test_render_once.py checks that decoding it again
    gives every device the same view)."""
    at = (record.key, record.version)
    with _decoded_lock:
        _decoded[at] = room
        _decoded.move_to_end(at)
        if len(_decoded) > _DECODED:
            _decoded.popitem(last=False)


def _later(room: Room, now: float) -> float | None:
    due = [t for t in (room.step_at, room.turn_deadline) if t is not None and t > now]
    due += [s.deadline for s in room.seats if s.deadline is not None and s.deadline > now]
    return min(due) if due else None


def _caps(settings: Settings) -> Caps:
    s = settings.online
    _, live = connection_budgets(settings)
    return Caps(
        live=live,
        per_address=s.live_per_address,
        per_device=s.live_per_device,
        per_table=s.live_per_table,
        waiting_per_address=s.hello_per_address,
        waiting=s.hello_total,
    )


def _buckets(rate: float | None, burst: int, reason: str) -> TokenBuckets | None:
    """A limit of `runtime.limit`; its refusals are counted under ``reason``."""
    return None if rate is None else TokenBuckets(rate, burst, reason=reason)
