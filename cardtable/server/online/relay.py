"""`Relay`: hands this process's live connections the reactions said at their tables
(docs/online.md "Reactions"; the route is reactions.py).

A reaction is not a change of the table: it has no version, no log entry and no row. The
process that accepts one hands it to its own relay at once (`Relay.deliver`, safe from a
request's thread) and, on PostgreSQL, to every other process as
``pg_notify('cardtable_reactions', <payload>)``, which the fan-out's one listener connection
hears beside the tables' changes (fanout.py) and hands to its hub's relay (`Relay.heard`).
Each reaction carries a random id; a relay drops an id it has delivered already, so the
sending process's own notification coming back is not shown twice.

Nothing is kept: a reaction sent while a process's listener connection was down never reaches
that process's devices, which is right for a gesture of a moment (shown late it would be
wrong). Each live connection (`forward`) sends every reaction of its table but the ones its
own device said; a connection that cannot keep up drops reactions beyond `INBOX`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

log = logging.getLogger("cardtable.server.online")

CHANNEL = "cardtable_reactions"
"""The NOTIFY channel of reactions (the tables' changes go on ``cardtable_online``)."""
Key = Literal["good_luck", "well_played", "thanks", "oops", "your_turn"]
"""The preset reactions (the page says each in the reader's language)."""
KEYS: tuple[str, ...] = get_args(Key)
INBOX = 16
"""Reactions waiting to be sent on one connection; more are dropped."""
SEEN = 1024
"""Reaction ids a relay remembers having delivered."""


@dataclass(frozen=True)
class Reaction:
    id: str
    table: str
    """The table's key in the store."""
    sender: str
    """`sender_tag` of the device that said it (never sent to a device)."""
    seat: int
    key: str
    at: str

    def message(self) -> dict[str, Any]:
        """The live message: nothing but these four keys."""
        return {"type": "reaction", "seat": self.seat, "key": self.key, "at": self.at}

    def payload(self) -> str:
        return json.dumps(
            [self.id, self.table, self.sender, self.seat, self.key, self.at], separators=(",", ":")
        )

    @classmethod
    def parse(cls, payload: str) -> Reaction | None:
        """The reaction a notification carries (None when it is not one)."""
        try:
            rid, table, sender, seat, key, at = json.loads(payload)
        except (ValueError, TypeError):
            return None
        texts = all(isinstance(v, str) for v in (rid, table, sender, at))
        if not texts or key not in KEYS or isinstance(seat, bool) or not isinstance(seat, int):
            return None
        return cls(rid, table, sender, seat, key, at)


def sender_tag(cred: str) -> str:
    """What a reaction says of its device: a digest of its credential's key, enough to tell
    it from the table's other devices, which is all the relay needs."""
    return hashlib.sha256(f"reaction:{cred}".encode()).hexdigest()[:24]


Inbox = asyncio.Queue[Reaction]


class Relay:
    """The reactions of this process's live connections, by table key."""

    def __init__(self) -> None:
        self._inboxes: dict[str, set[Inbox]] = {}
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop that runs the connections (so threads can call `deliver`)."""
        self._loop = loop

    @contextmanager
    def listen(self, table: str) -> Iterator[Inbox]:
        """An inbox of the reactions said at ``table`` while the block runs."""
        inbox: Inbox = asyncio.Queue(INBOX)
        self._inboxes.setdefault(table, set()).add(inbox)
        try:
            yield inbox
        finally:
            group = self._inboxes.get(table)
            if group is not None:
                group.discard(inbox)
                if not group:
                    del self._inboxes[table]

    def heard(self, payload: str) -> None:
        """A notification on `CHANNEL` (from the fan-out's listener)."""
        reaction = Reaction.parse(payload)
        if reaction is None:
            log.debug("online reactions: ignored a notification %r", payload[:80])
            return
        self.deliver(reaction)

    def deliver(self, reaction: Reaction) -> None:
        """Hand ``reaction`` to its table's connections in this process. Safe from any
        thread."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop:
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody left to tell
                loop.call_soon_threadsafe(self._put, reaction)
        else:
            self._put(reaction)

    def _put(self, reaction: Reaction) -> None:
        if reaction.id in self._seen:
            return
        self._seen[reaction.id] = None
        if len(self._seen) > SEEN:
            self._seen.popitem(last=False)
        for inbox in list(self._inboxes.get(reaction.table, ())):
            with contextlib.suppress(asyncio.QueueFull):
                inbox.put_nowait(reaction)


Send = Callable[[dict[str, Any]], Awaitable[None]]


async def forward(relay: Relay, table: str, cred: str, send: Send) -> None:
    """Send one live connection (of the device whose credential is ``cred``) every reaction
    said at ``table`` by another device, until cancelled."""
    mine = sender_tag(cred)
    with relay.listen(table) as inbox:
        while True:
            reaction = await inbox.get()
            if reaction.sender != mine:
                await send(reaction.message())
