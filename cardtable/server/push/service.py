"""`Push`: what one app instance runs for Web Push: the server's VAPID key pair (made once
and kept in the store, or the operator's own), the hook that writes the outbox inside every
online table's save, and the sender (sender.py)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02

from cardtable.server.core.store.base import Tx
from cardtable.server.devices.public import FORGOTTEN
from cardtable.server.push import store as push_store
from cardtable.server.push.events import RecordLike, RoomLike, events, looking
from cardtable.server.push.messages import payload
from cardtable.server.push.sender import Sender
from cardtable.server.push.store import Outgoing, PushStore

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

log = logging.getLogger("cardtable.server.push")
R = TypeVar("R", bound=RecordLike)
TABLE_PAGE = "/kings-corner-online.html"

if push_store.forget not in FORGOTTEN:
    FORGOTTEN.append(push_store.forget)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def public_of(key: Vapid02) -> str:
    """The applicationServerKey a page subscribes with: the uncompressed P-256 point."""
    raw = key.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64(raw)


def new_keys() -> tuple[str, str]:
    """A new VAPID key pair: (private as 32 raw bytes, public point), URL-safe base64."""
    key = Vapid02()
    key.generate_keys()
    private = key.private_key.private_numbers().private_value.to_bytes(32, "big")
    return b64(private), public_of(key)


class Push:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.settings = runtime.settings.push
        self.me = secrets.token_hex(8)
        """This process's name on the rows it claims."""
        self._vapid: Vapid02 | None = None
        self._public: str | None = None
        self.sender = Sender(runtime, self.me, self.vapid)
        self._task: asyncio.Task[None] | None = None

    @property
    def store(self) -> PushStore:
        return PushStore(self.runtime.store)

    # -- keys ----------------------------------------------------------------------------
    def vapid(self) -> Vapid02:
        """The private key notifications are signed with (read once; it never changes)."""
        if self._vapid is None:
            own = self.settings.vapid_private_key
            private = own if own else self.store.keys(new_keys)[0]
            key = Vapid02.from_string(private)
            self._public = public_of(key)
            self._vapid = key
        return self._vapid

    def public_key(self) -> str:
        self.vapid()
        assert self._public is not None
        return self._public

    # -- lifecycle -----------------------------------------------------------------------
    async def start(self) -> None:
        if self.settings.enabled:
            self._task = asyncio.create_task(self.sender.run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- events --------------------------------------------------------------------------
    def on_saved(self, decode: Callable[[R], RoomLike]) -> Callable[[Tx, R, RoomLike], None]:
        """The online tables' saved hook: the events of the change, for the subscribed
        devices of players not looking at the table, in the outbox in the save's own
        transaction (so a notification goes out if and only if its change committed)."""

        def saved(tx: Tx, record: R, room: RoomLike) -> None:
            if not self.settings.enabled:
                return
            try:
                before = decode(record)
            except Exception:  # a damaged table: its readers meet the error, not the save
                return
            self.write(tx, record.key, record.version + 1, before, room)

        return saved

    def write(self, tx: Tx, key: str, version: int, before: RoomLike, after: RoomLike) -> None:
        told = [e for e in events(before, after) if not looking(after, e.player)]
        if not told:
            return
        store = self.store
        targets = store.targets(tx, key, sorted({e.player for e in told}))
        if not targets:
            return
        host_seat = after.seats[after.host]
        tag = "table-" + hashlib.sha256(key.encode()).hexdigest()[:16]
        rows: list[Outgoing] = []
        for e in told:
            for t in targets:
                if t.player != e.player or e.kind not in t.events:
                    continue
                url = f"{TABLE_PAGE}#{t.token}" if t.token else "/"
                mine = host_seat.player == e.player
                body = payload(
                    t.lang, e.kind, host=host_seat.name, mine=mine, who=e.who, url=url, tag=tag
                )
                ident = hashlib.sha256(f"{t.cred}:{key}:{e.kind}:{version}".encode()).hexdigest()
                rows.append(Outgoing(ident, t.cred, t.player, body))
        if rows:
            store.enqueue(tx, rows, time.time())
            self.sender.wake()
