"""The live channel: `WebSocket /api/kings-corner/online/{token}/live` (docs/online.md).

The device says hello (its player id and the last version it has); the server answers with
the table as that device may see it, then again after every change, with the events since
the version it last sent, and the preset reactions other devices say at the table (relay.py:
``{"type": "reaction", "seat", "key", "at"}``). The connection is also the device's presence:
a row in ``online_presence`` while it is open (refreshed by this process's driver), and when the
device's last connection closes, its seats start their grace period.

The credential of the hello is checked again in the store before every push and every
half-second by the process's guard (hub.py): a device signed out closes with 4401 `revoked`,
one whose record was deleted with 4401 `deleted` (docs/online.md "Signed out while
connected"), in whichever process holds its connection.

The channel is bounded (docs/online.md "Live channel limits"): frames longer than
`OnlineSettings.live_max_bytes` are refused by uvicorn from their header (1009, never read
whole; core/serving.py), binary frames close with 1003, a browser page of another site is
refused before the upgrade (HTTP 403, `same_site`), `hub.Sockets` caps the connections
per client address, device and table and those still waiting for their hello, and every
message a connection sends (its hello, pings, anything else) spends its message budget
(`OnlineSettings.live_message_rate` after `live_message_burst`): past it the connection
closes with 1008, so a socket sending as fast as it can costs the server a few messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from pydantic import ValidationError

from cardtable.server.core.errors import ApiError, revoked
from cardtable.server.core.metrics import LIVE_CLOSED, LIVE_OPEN
from cardtable.server.core.ratelimit import request_key, spend
from cardtable.server.core.serving import EVICT
from cardtable.server.devices.public import PLAYER_ID, authenticate, now_of
from cardtable.server.online import codes, service
from cardtable.server.online.hub import Full, Slot
from cardtable.server.online.relay import forward
from cardtable.server.online.tables import OnlineTables, load_room

log = logging.getLogger("cardtable.server.online")
router = APIRouter()
"""Included by `routes.router` (under its prefix)."""

NO_PLAYER, NO_TABLE, TIMEOUT, CROWDED = 4401, 4404, 4408, 4409
POLICY = 1008
"""The message budget is spent (RFC 6455: a message that violates the server's policy)."""
UNSUPPORTED = 1003
"""A binary frame (the channel speaks JSON text only)."""
MAX_MESSAGE = 1024


class _Closed(Exception):
    def __init__(self, code: int, reason: str, message: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.message = message
        """Sent before closing, when there is one."""


Refusal = _Closed
"""The live channel's refusal (a close code and its reason), for the Poker Squares tables'."""


def _refused(standing: str) -> _Closed:
    """How a connection whose credential is no longer valid ends (docs/online.md)."""
    if standing == "revoked":
        message = {"type": "error", "code": "revoked", "message": revoked().message}
        return _Closed(NO_PLAYER, "revoked", message)
    message = {
        "type": "error",
        "code": "no_player",
        "message": "this record was deleted: start fresh",
    }
    return _Closed(NO_PLAYER, "deleted", message)


def same_site(ws: WebSocket, extra: tuple[str, ...]) -> bool:
    """Whether the ``Origin`` of an upgrade request is the site itself (the ``Host`` it came
    to, any scheme) or one of ``extra``. A request without ``Origin`` is let in: browsers
    always send one on a WebSocket, so its absence means a program, which could send any
    ``Origin`` it liked; the check is there to stop another site's page from opening the
    channel with its visitor's browser."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in {o.strip().lower().rstrip("/") for o in extra}:
        return True
    scheme, sep, rest = origin.partition("://")
    host = ws.headers.get("host", "").strip().lower()
    return bool(sep) and scheme in ("http", "https") and bool(host) and rest == host


async def _receive_text(ws: WebSocket) -> str:
    """The next message; a binary one closes the connection with 1003."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    if not isinstance(text, str):
        raise _Closed(UNSUPPORTED, "text messages only")
    return text


def _error(message: str) -> dict[str, Any]:
    return {"type": "error", "code": "invalid_message", "message": message}


def _hello(text: str) -> tuple[str, int | None] | None:
    """(player id, version) from a hello message, or None when it is not one."""
    try:
        msg = json.loads(text)
    except ValueError:
        return None
    if (
        not isinstance(msg, dict)
        or msg.get("type") != "hello"
        or set(msg)
        - {
            "type",
            "player",
            "version",
        }
    ):
        return None
    player, version = msg.get("player"), msg.get("version")
    if not isinstance(player, str):
        return None
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        return None
    return player, version


class Connection:
    """One open live connection: sends are serialised; the last version sent is kept."""

    def __init__(self, ws: WebSocket, online: OnlineTables, token: str, slot: Slot) -> None:
        self.ws = ws
        self.slot = slot
        self.online = online
        self.token = token
        self.key = codes.table_key(token)
        self.id = secrets.token_hex(12)
        self.player = ""
        self.cred = ""
        """The SHA-256 of the hello's player id (the device credential)."""
        self.refused = asyncio.Event()
        self.standing = "ok"
        self.sent: int | None = None
        self.seated = False
        """Whether the presence row counts this device as holding a seat."""
        self._lock = asyncio.Lock()
        self._budget = float(online.settings.live_message_burst)
        self._budget_at = time.monotonic()

    async def receive(self) -> str:
        """The next text message, paid for from the connection's message budget: 1008 once
        it is spent."""
        text = await _receive_text(self.ws)
        rate = self.online.settings.live_message_rate
        if rate is not None:
            now = time.monotonic()
            burst = self.online.settings.live_message_burst
            self._budget, wait = spend(self._budget, now - self._budget_at, rate, burst)
            self._budget_at = now
            if wait > 0:
                raise _Closed(POLICY, "too many messages")
        return text

    async def send(self, message: dict[str, Any]) -> None:
        async with self._lock:
            await self.ws.send_text(json.dumps(message, separators=(",", ":")))

    async def hello(self) -> int | None:
        """Wait for the hello (answering anything else with an error); its version."""
        deadline = time.monotonic() + self.online.settings.hello_seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Closed(TIMEOUT, "no hello in time")
            text = await self._receive_or_kick(left)
            hello = _hello(text) if len(text) <= MAX_MESSAGE else None
            if hello is None:
                await self.send(_error('first say {"type": "hello", "player", "version"}'))
                continue
            player_id, version = hello
            if not PLAYER_ID.fullmatch(player_id):
                raise _Closed(NO_PLAYER, "unknown player")
            runtime = self.online.runtime
            now = now_of(self.ws.app.state)
            try:
                device = await run_in_threadpool(authenticate, runtime, player_id, now)
            except ApiError as exc:
                if exc.code != "revoked":
                    raise _Closed(NO_PLAYER, "unknown player") from None
                # A signed-out device (docs/devices.md): said in words, then 4401 as for an
                # unknown id, so a page that knows only 4401 asks the API and meets `revoked`.
                await self.send({"type": "error", "code": "revoked", "message": exc.message})
                raise _Closed(NO_PLAYER, "revoked") from None
            self.player = device.player
            self.cred = device.cred
            return version

    async def _receive_or_kick(self, timeout: float) -> str:
        """The next message within ``timeout`` seconds, unless a cap closes this connection
        first (`_Closed` either way when none comes)."""
        receive = asyncio.ensure_future(self.receive())
        kicked = asyncio.ensure_future(self.slot.until_kicked())
        try:
            done, _ = await asyncio.wait(
                (receive, kicked), timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for task in (receive, kicked):
                task.cancel()
        if receive in done:
            return receive.result()
        if kicked in done:
            kicked.result()  # raises `Full`
        raise _Closed(TIMEOUT, "no hello in time")

    def refuse(self, standing: str) -> None:
        """The guard found this connection's credential signed out or deleted."""
        self.standing = standing
        self.refused.set()

    async def until_refused(self) -> None:
        await self.refused.wait()
        raise _refused(self.standing)

    async def check(self) -> None:
        """Raise `_Closed` unless the credential is still a signed-in device, read now."""
        if self.refused.is_set():
            raise _refused(self.standing)
        standing = await self.online.guard.standing(self.cred)
        if standing != "ok":
            self.refuse(standing)
            raise _refused(standing)

    async def push(self, since: int | None) -> None:
        """Send the table if it is newer than what this device has, and the device is still
        signed in. The table is the version this process was woken for, read and decoded
        once for all its connections (`OnlineTables.newest`), and rendered once for every
        device with the same seats (`service.rendered`); with nothing heard yet (the first
        push), the store is read."""
        online = self.online
        record = await online.newest(self.key, online.hub.heard(self.key))
        if record is None:
            raise _Closed(NO_TABLE, "no such table")
        if self.sent is not None and record.version <= self.sent:
            return
        room = load_room(record)
        if bool(room.seats_of(self.player)) != self.seated:
            # The device took a seat (join) or lost it (the host gave it to a computer).
            await run_in_threadpool(_reseat, online, self, not self.seated)
        rendered = service.rendered(online, record, self.player, self.token, since=since)
        # Read after the table: a sign-out saved before this change was made is seen here.
        await self.check()
        async with self._lock:
            await self.ws.send_text(rendered.message(time.time()))
        self.sent = record.version

    async def listen(self) -> None:
        """Answer pings; anything else gets an error and changes nothing."""
        while True:
            text = await self.receive()
            try:
                msg = json.loads(text) if len(text) <= MAX_MESSAGE else None
            except ValueError:
                msg = None
            if isinstance(msg, dict) and msg == {"type": "ping"}:
                await self.send({"type": "pong"})
            else:
                await self.send(_error('the server understands {"type": "ping"} only'))

    async def follow(self) -> None:
        """Push after every change of the table."""
        with self.online.hub.watch(self.key) as watch:
            # A change saved between the first push and this watch would be missed: look once.
            await self.push(self.sent)
            while True:
                await watch.wait()
                await self.push(self.sent)


@router.websocket("/{token}/live")
async def live(ws: WebSocket, token: str) -> None:
    online: OnlineTables = ws.app.state.online
    async with live_slot(ws, online, token) as slot:
        if slot is not None:
            await _serve(ws, online, token, slot)


@contextlib.asynccontextmanager
async def live_slot(ws: WebSocket, online: OnlineTables, token: str) -> AsyncIterator[Slot | None]:
    """A new live connection to the table of ``token`` counted against the caps while the
    block runs (its slot: no table when the token is malformed); None, and refused before
    the upgrade, when the page is another site's."""
    if not same_site(ws, online.settings.live_origins):
        # Before the upgrade: uvicorn answers HTTP 403 and nothing more is read.
        await ws.close()
        yield None
        return
    valid = codes.TOKEN.fullmatch(token) is not None
    evict = ws.scope.get("extensions", {}).get(EVICT)
    slot = online.sockets.open(request_key(ws), codes.table_key(token) if valid else None, evict)
    LIVE_OPEN.inc()
    try:
        yield slot
    finally:
        LIVE_OPEN.dec()
        online.sockets.close(slot)


async def _serve(ws: WebSocket, online: OnlineTables, token: str, slot: Slot) -> None:
    await ws.accept()
    conn = Connection(ws, online, token, slot) if slot.table is not None else None
    present = False
    try:
        async with ending(ws):
            if conn is None:
                raise _Closed(NO_TABLE, "no such table")
            version = await conn.hello()
            record = await run_in_threadpool(service.load, online, conn.key)
            if record is None:
                raise _Closed(NO_TABLE, "no such table")
            room = load_room(record)
            conn.seated = bool(room.seats_of(conn.player))
            if version is not None and not room.had(version):
                version = None  # a version the table never had: the table alone, no events
            online.sockets.said_hello(slot, conn.player, seated=conn.seated)
            if slot.kicked is not None:  # while its hello was checked: no presence for it
                raise slot.kicked
            with online.guard.guard(conn.cred, conn.refuse):
                await run_in_threadpool(_arrive, online, conn)
                present = True
                await conn.push(version)
                await until_first(
                    conn.listen(),
                    conn.follow(),
                    forward(online.hub.reactions, conn.key, conn.cred, conn.send),
                    conn.until_refused(),
                    slot.until_kicked(),
                )
    finally:
        if present and conn is not None:
            await run_in_threadpool(
                service.depart, online, conn.id, conn.key, conn.player, seated=conn.seated
            )


async def until_first(*work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` until the first piece ends, cancel the rest, and raise what ended it."""
    tasks = [asyncio.create_task(w) for w in work]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    for task in done:
        task.result()


@contextlib.asynccontextmanager
async def ending(ws: WebSocket) -> AsyncIterator[None]:
    """How a live connection ends: a refusal (`_Closed`, a cap's `Full`) closes it with its
    code and reason (counted), a device gone ends it quietly, a store failure closes 1011."""
    try:
        yield
    except _Closed as exc:
        evict = ws.scope.get("extensions", {}).get(EVICT)
        if exc.code == POLICY and evict is not None:
            # A flood: the close frame goes out and the socket stops reading at once, rather
            # than parsing what the peer keeps sending until its close reply comes. Counted
            # unless the socket was closed already (by the protocol's own flood guard, which
            # counts it: core/serving.py).
            if evict(exc.code, exc.reason, linger=True):
                LIVE_CLOSED.labels(reason=exc.reason).inc()
            return
        LIVE_CLOSED.labels(reason=exc.reason).inc()
        with contextlib.suppress(Exception):
            if exc.message is not None:
                await ws.send_text(json.dumps(exc.message, separators=(",", ":")))
            await ws.close(exc.code, exc.reason)
    except Full as exc:
        LIVE_CLOSED.labels(reason=exc.reason).inc()
        with contextlib.suppress(Exception):
            await ws.close(exc.code, exc.reason)
    except (WebSocketDisconnect, RuntimeError):
        pass  # the device went away
    except ApiError as exc:  # a damaged table, or the store unavailable
        with contextlib.suppress(Exception):
            await ws.close(1011, exc.code)
    except ValidationError:  # pragma: no cover - every view validates
        log.exception("live: a table view did not validate")
        with contextlib.suppress(Exception):
            await ws.close(1011, "internal")


def _arrive(online: OnlineTables, conn: Connection) -> None:
    if not service.arrive(online, conn.id, conn.key, conn.player, seated=conn.seated):
        raise _Closed(CROWDED, "too many spectators")


def _reseat(online: OnlineTables, conn: Connection, seated: bool) -> None:
    now = time.time()
    service.reseat(online, conn.id, seated=seated)
    conn.seated = seated
    conn.slot.seated = seated
    service.reseated(online, conn.key, conn.player, seated=seated, now=now)
