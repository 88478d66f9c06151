"""`PSTables`: what one app instance runs for the Poker Squares tables: the store, the one way
a table's row is saved (compare-and-set, `change`), placements, the news of a change to this
process's live connections and the others', the deadline driver and presence.

Shared with the Kings Corner online tables (`OnlineTables`, the same process): the hub that
wakes live connections, the caps on them and the guard over their credentials, the fan-out
between processes (the table keys are hashes of distinct random tokens, so they share the
channel), and the rate limits per address. Its own: the store over its own rows, the driver
(the online driver's code over `PSTables`), and the fallback poll over its own rows.

A change is announced after it is committed, with the version read back then (`announce`):
placements are saved without a table-wide version, so only a read after the commit knows the
version it made; the last change's read sees every change before it, so no device misses the
newest table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.errors import damaged
from cardtable.server.core.store import StaleVersion
from cardtable.server.online.public import (
    Driver,
    OnlineTables,
    RoomRecord,
    left,
    poll,
    presence_upkeep,
)
from cardtable.server.pstables.room import Placed, Room, RoomError
from cardtable.server.pstables.store import PSStore, Record

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

log = logging.getLogger("cardtable.server.pstables")
ATTEMPTS = 8
_KEPT = 512
"""Tables whose newest record this process keeps (their pushes follow a change at once)."""

Change = Callable[[Room, Record], Room | None]
"""A change of the row, given the table and its placements as read (None: nothing to save)."""


class PSTables:
    def __init__(self, runtime: Runtime, online: OnlineTables) -> None:
        self.runtime = runtime
        self.online = online
        self.settings = online.settings
        self.hub = online.hub
        self.driver = Driver(self)
        self.driver.advances = None  # placements are counted where they are saved
        self.live: set[str] = set()
        """This process's open live connections (their presence rows)."""
        self.hints: Callable[[PSTables, str, float], bool] | None = None
        """The driver's work at a due table (driver.py sets it: `advance`)."""
        self._store: PSStore | None = None
        self._kept: OrderedDict[str, Record] = OrderedDict()
        self._lock = threading.Lock()
        self._reading: dict[str, tuple[int, asyncio.Future[Record | None]]] = {}

    @property
    def process(self) -> str:
        return self.online.process

    @property
    def store(self) -> PSStore:
        base = self.runtime.store
        if self._store is None or self._store.sql is not base:
            self._store = PSStore(base)
        return self._store

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Run the driver and the fallback poll with the online tables' background work
        (stopped with it)."""
        self.online.beside(
            self.driver.run(), poll(self.hub, self.versions, self.settings.poll_seconds)
        )

    def versions(self, keys: list[str]) -> dict[str, int]:
        """Stored versions of ``keys`` that are Poker Squares tables (the fallback poll)."""
        return self.store.versions(keys)

    # -- reading -------------------------------------------------------------------------
    def read(self, key: str) -> Record | None:
        record = self.store.read(key)
        if record is not None:
            self._keep(record)
        return record

    def _keep(self, record: Record) -> None:
        with self._lock:
            old = self._kept.get(record.key)
            if old is None or old.version < record.version:
                self._kept[record.key] = record
            self._kept.move_to_end(record.key)
            if len(self._kept) > _KEPT:
                self._kept.popitem(last=False)

    def kept(self, key: str, version: int) -> Record | None:
        """The newest record this process read of ``key``, if it is at ``version`` or newer."""
        with self._lock:
            record = self._kept.get(key)
        return record if record is not None and record.version >= version else None

    async def reading(self, key: str, heard: int) -> Record | None:
        """Table ``key`` read from the store once for every live connection asking while
        the read runs (a read joins another only when that one began after ``heard`` was
        heard, so it returns at least that version)."""
        pending = self._reading.get(key)
        if pending is None or pending[0] < heard or heard < 0:
            task = asyncio.ensure_future(run_in_threadpool(self.read, key))
            pending = (heard, task)
            self._reading[key] = pending

            def done(_: object, key: str = key, mine: object = pending) -> None:
                if self._reading.get(key) is mine:
                    del self._reading[key]

            task.add_done_callback(done)
        return await asyncio.shield(pending[1])

    def announce(self, key: str) -> Record | None:
        """After a change was committed: read the table back, tell this process's live
        connections and (PostgreSQL) the other processes."""
        record = self.read(key)
        if record is not None:
            self.tell(record)
        return record

    def tell(self, record: Record) -> None:
        """Wake this process's live connections to ``record``'s table and (PostgreSQL) the
        other processes'."""
        self.hub.changed(record.key, record.version)
        if self.store.sql.dialect == "postgresql":
            # A lost notification only delays the other processes: the poll covers it.
            with contextlib.suppress(Exception), self.store.sql.transaction() as tx:
                self.online.fanout.published(tx, record.key, record.version)

    # -- changing ------------------------------------------------------------------------
    def save(self, record: RoomRecord, room: Room, placed: Placed | None = None) -> RoomRecord:
        """Compare-and-set ``room`` over the row ``record`` (`StaleVersion` when it lost),
        its deadline from ``placed`` (read when not given). Announcing it is the caller's,
        after the commit (`change`)."""
        if placed is None:
            now_record = self.store.read(record.key)
            placed = Placed() if now_record is None else now_record.placed()
        due_at = room.due_at(placed, self.driver.clock())
        saved = self.store.save(record, room.to_dict(), due_at=due_at, keep_code=room.is_open)
        self.driver.wake(due_at)
        return saved

    def change(self, key: str, change: Callable[[Room], Room | None]) -> Record | None:
        """`change_with` for a change of the room alone."""
        return self.change_with(key, lambda room, _: change(room))

    def change_with(self, key: str, change: Change, *, news: bool = False) -> Record | None:
        """Apply ``change`` to the stored table and save it with compare-and-set (again on
        the newest row when another change got there first); the table as read back after
        the commit, or as it was when nothing changed; None when there is no such table.
        ``news``: the caller saved something already (a placement), so the table is
        announced even when this change saves nothing."""
        for _ in range(ATTEMPTS):
            record = self.store.read(key)
            if record is None:
                return None
            new = change(load(record), record)
            if new is None:
                self._keep(record)
                if news:
                    self.tell(record)
                return record
            try:
                self.save(record.row, new, record.placed())
            except StaleVersion:
                continue
            return self.announce(key)
        raise StaleVersion(key)  # pragma: no cover - eight lost races in a row

    def advance(self, key: str, now: float) -> bool:
        """What is due at table ``key`` (the driver's round, driver.py)."""
        work = self.hints
        return False if work is None else work(self, key, now)

    # -- presence ------------------------------------------------------------------------
    def fresh_after(self, now: float) -> float:
        return now - self.settings.presence_stale_seconds

    def left(self, key: str, player: str, seated: bool, now: float) -> None:
        """A connection is gone: the seat's grace starts when it was the device's last."""
        left(self, key, player, seated, now)

    def presence_upkeep(self, now: float) -> None:
        presence_upkeep(self, now)


_DECODED: OrderedDict[tuple[str, int], Room] = OrderedDict()
_DECODED_LOCK = threading.Lock()


def load(record: Record) -> Room:
    """The room of ``record``, decoded once per row version and process."""
    at = (record.key, record.row.version)
    with _DECODED_LOCK:
        room = _DECODED.get(at)
        if room is not None:
            return room
    try:
        room = Room.from_dict(record.row.state)
    except RoomError:
        raise damaged("Poker Squares table") from None
    with _DECODED_LOCK:
        _DECODED[at] = room
        if len(_DECODED) > _KEPT:
            _DECODED.popitem(last=False)
    return room
