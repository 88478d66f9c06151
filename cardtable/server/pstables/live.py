"""The live channel of a Poker Squares table: `WebSocket /api/poker-squares/tables/{token}/live`
(docs/ps-tables.md), the Kings Corner channel's connection with another push.

The same hello (``{"type": "hello", "player", "version"}``), ping and pong, message budget,
caps, credential checks and closing codes as the Kings Corner live channel (docs/online.md,
docs/online-limits.md; online/live.py does that part); the server sends ``{"type": "table",
"table": PSTable}`` after the hello and after every change the device may see, and nothing
else. The connection is the device's presence: its seat is ``here`` while one is open, and
when the device's last one closes its grace period starts.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, WebSocket
from fastapi.concurrency import run_in_threadpool

from cardtable.server.online.public import (
    Connection,
    OnlineTables,
    Refusal,
    Slot,
    arrive,
    depart,
    ending,
    live_slot,
    reseat,
    reseated,
    until_first,
)
from cardtable.server.pstables import service
from cardtable.server.pstables.lifecycle import tables_of
from cardtable.server.pstables.store import Record
from cardtable.server.pstables.tables import PSTables, load

router = APIRouter()
NO_TABLE, CROWDED = 4404, 4409
GATHER = 0.1
"""Seconds a change that shows no new card waits for the ones that come with it."""


class PSConnection(Connection):
    """A device's connection to one Poker Squares table."""

    def __init__(self, ws: WebSocket, online: OnlineTables, tables: PSTables, token: str,
                 slot: Slot) -> None:  # fmt: skip
        super().__init__(ws, online, token, slot)
        self.tables = tables
        self.shown: tuple[int, str, int | None] | None = None
        """(deal, phase, card on show) of the table last sent."""

    async def newest(self) -> Record | None:
        """The table at the version this process last heard of (kept when this process
        changed or read it; else read once for every connection asking meanwhile)."""
        tables = self.tables
        heard = tables.hub.heard(self.key)
        kept = tables.kept(self.key, heard) if heard >= 0 else None
        if kept is not None:
            return kept
        return await tables.reading(self.key, heard)

    async def push(self, since: int | None) -> None:
        """Send the table if it is newer than what this device has."""
        record = await self.newest()
        if record is None:
            raise Refusal(NO_TABLE, "no such table")
        if self.sent is not None and record.version <= self.sent:
            return
        room = load(record)
        seated = room.seat_of(self.player) is not None
        if seated != self.seated:  # a spectator took a seat, or a seat left the lobby
            await run_in_threadpool(self.reseat, seated)
        text = service.text(record, self.token, self.player)
        await self.check()  # read after the table: a sign-out before this change is seen
        async with self._lock:
            await self.ws.send_text('{"type":"table","table":' + text + "}")
        self.sent = record.version
        self.shown = (room.deal, room.phase, room.card)

    async def follow(self) -> None:
        """Push after every change of the table; a change that shows no new card (a placement
        of the card on show: its ``placed`` count, presence) waits up to `GATHER` seconds for
        the changes that come with it, so a card placed by eight players at once costs each
        device a few pushes, not eight. A new card, the end or a new deal goes at once."""
        with self.tables.hub.watch(self.key) as watch:
            await self.push(self.sent)
            while True:
                await watch.wait()
                until = time.monotonic() + GATHER
                while self.same_card() and (left := until - time.monotonic()) > 0:
                    if not await watch.wait(left):
                        break
                await self.push(self.sent)

    def same_card(self) -> bool:
        """Whether the newest table this process holds shows the card this device was sent
        last (unknown: False, push at once)."""
        kept = self.tables.kept(self.key, self.tables.hub.heard(self.key))
        if kept is None or self.shown is None:
            return False
        room = load(kept)
        return (room.deal, room.phase, room.card) == self.shown

    def reseat(self, seated: bool) -> None:
        reseat(self.tables, self.id, seated=seated)
        self.seated = self.slot.seated = seated
        reseated(self.tables, self.key, self.player, seated=seated, now=time.time())


@router.websocket("/{token}/live")
async def live(ws: WebSocket, token: str) -> None:
    online: OnlineTables = ws.app.state.online
    tables = tables_of(ws.app)
    async with live_slot(ws, online, token) as slot:
        if slot is None:
            return
        await ws.accept()
        conn = PSConnection(ws, online, tables, token, slot) if slot.table else None
        present = False
        try:
            async with ending(ws):
                if conn is None:
                    raise Refusal(NO_TABLE, "no such table")
                await conn.hello()
                record = await run_in_threadpool(tables.read, conn.key)
                if record is None:
                    raise Refusal(NO_TABLE, "no such table")
                conn.seated = load(record).seat_of(conn.player) is not None
                online.sockets.said_hello(slot, conn.player, seated=conn.seated)
                if slot.kicked is not None:
                    raise slot.kicked
                with online.guard.guard(conn.cred, conn.refuse):
                    present = await run_in_threadpool(_arrive, tables, conn)
                    await conn.push(None)
                    await until_first(
                        conn.listen(), conn.follow(), conn.until_refused(), slot.until_kicked()
                    )
        finally:
            if present and conn is not None:
                await run_in_threadpool(
                    depart, tables, conn.id, conn.key, conn.player, seated=conn.seated
                )


def _arrive(tables: PSTables, conn: PSConnection) -> bool:
    if not arrive(tables, conn.id, conn.key, conn.player, seated=conn.seated):
        raise Refusal(CROWDED, "too many spectators")
    return True
