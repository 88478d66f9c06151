"""Hostile clients against a real server (issue 27): does anyone starve an ordinary player?

    python -m bench.abuse [--seconds 20] [--only NAME ...] [--scale 1] [--pace 0.05]
                          [--one-server] [--proxy] [--json F]

Each row starts ``cardtable serve`` (the real command, access log on, a fresh SQLite store in
a temporary folder, in a process group of its own) on a free 127.0.0.1 port. An ordinary
player (its own player id, from the loopback address 127.0.0.2) plays Poker Squares deals: it
places the current card on the next empty cell, waits ``--pace`` seconds, and so on, dealing a
new game after 25 cards (deals are not timed); each move is timed from just before its POST
to its answer. Once a second a new client (a new connection, same player) asks
``GET /api/continue``: whether new HTTP requests get through. The first row, ``baseline``,
does only that, on an idle server; every other row runs one attack from a separate process
(the attacker, from 127.0.0.3, with its soft open-file limit raised to the hard one) and,
once the attack is set up, the ordinary player for ``--seconds`` beside it:

- ``live-300``: 300 live sockets of one player id on its own changing table (three strong
  computers; the attacker plays its own turns, and starts rounds and matches again);
- ``live-1900``: 1,900 such sockets;
- ``big-frames``: 8 sockets sending 16 MiB text messages with no hello, as fast as the server
  reads them (compressed, a few KiB each, when the server agrees to permessage-deflate);
- ``fd-pressure``: 900 live sockets of one player id on its lobby, the server started with
  an open-file limit of 1,024 (the new clients below show whether new requests get through);
- ``no-hello``: 1,900 upgraded sockets that never say hello;
- ``computer-tables``: 400 online tables of one player and three strong computers, started
  and left (a strong stand-in plays the player's seat);
- ``table-creation``: one player id creating online lobbies as fast as the server allows (4
  requests at a time, a 429 waits its Retry-After);
- ``kc-replay``: a finished Kings Corner round's replay fetched 45 times a second;
- ``ping-flood``: 4 spectator sockets (each its own player id) sending ``{"type": "ping"}``
  as fast as their sockets take them, each opened again at once when the server closes it;
- ``replay-waves``: one player id asking 60 times at once for round 1 of each of 8 Kings
  Corner matches not replayed yet (480 requests at once), the next wave as soon as one is
  answered, over 16 matches and then the first 8 again;
- ``ps-reviews``: 4 players finish 40 Poker Squares deals, then start the review of each and
  ask again, 10 times a second each, until it is done;
- ``spectator``: a spectator connecting to the ordinary player's table, saying hello,
  reading the table and closing, 15 times a second.

Sockets that the server closes are opened again (at once if they lasted 5 s, else after
0.5, 1, 2, 4, 5, 5 ... s, each times a random 0.5-1.5), as a hostile client would; at most 64
sockets are being opened at once. The ``spectator`` row uses an online table instead: the
ordinary player hosts a Kings Corner table with a second person on its own device (pass and
play: every turn is its own), with its live connection open, and plays (a card when one
fits, else "end", after ``--pace``); its moves are compared with a ``baseline-online`` row,
and the share of its moves refused as ``stale_version`` is reported.

Per row: the ordinary player's move p50/p99 (ms) against the baseline's in the same run, the
ratio of the p99s, the p99 of its ``GET /api/continue`` (asked ten times a second on a
kept-alive client of its own) against the baseline's, its 503 answers and failed requests
(connection errors, timeouts), the new clients that got an answer, the server's resident
memory (the largest sum of VmRSS over the server process and its descendants, sampled every
0.25 s from the attacker's start to the row's end), the 1-minute load average at the row's
end, and whether the row meets the goal: the move's and the continue's p99 each at most
max(50 ms, 3x the baseline's), no 503, no failed request, every new client answered, memory
under 500 MiB. ``--one-server`` runs every row on one server (cheaper, but an
attack's leftovers weigh on the rows after it). ``--scale`` multiplies the attacks' counts and
rates (at least 1), for quick runs. ``--attacker-nice 19`` runs the attacker at the lowest
CPU priority: on a machine with few cores an attacker whose own work takes a core (480 HTTP
requests at once through httpx) slows the server by competing for the CPU, which a real
attacker, on its own machine, does not. Every loop is bounded by the row's time; every process is
stopped at the end (also on Ctrl-C): the attacker, the server and what is left of its group.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import math
import multiprocessing
import os
import queue
import random
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Origin

from bench.online import cpu_seconds, percentile, rss_kib
from bench.proxy import Nginx
from bench.server_load import CELLS, HOST
from bench.soak import person, serve

ORDINARY = "127.0.0.2"
ATTACKER = "127.0.0.3"
ONLINE = "/api/kings-corner/online"
GOAL_P99_MS = 50.0
GOAL_RATIO = 3.0
GOAL_RSS_MIB = 500.0
REQUEST_TIMEOUT = 30.0
OPEN_CONCURRENCY = 64
LOBBY = {"name": "Eve", "seats": [{"kind": "me"}, {"kind": "invite"}]}


@dataclass(frozen=True)
class Attack:
    name: str
    what: str
    kind: str
    """The attacker's coroutine (`KINDS`)."""
    count: int
    """Sockets, tables, deals or requests per second, as ``kind`` reads it."""
    size: int = 0
    """Bytes of each message (``big``)."""
    nofile: int | None = None
    """The server's soft open-file limit for this row (else the hard limit)."""
    online: bool = False
    """The ordinary player plays at an online table (its token goes to the attacker)."""


def attacks(scale: float, big_mib: float) -> list[Attack]:
    def n(x: float) -> int:
        return max(1, round(x * scale))

    size = int(big_mib * 1024 * 1024)
    return [
        Attack(
            "live-300",
            f"{n(300)} live sockets of one player id on its own changing "
            "table (3 strong computers; the attacker plays its own turns)",
            "live",
            n(300),
        ),
        Attack("live-1900", f"{n(1900)} such sockets", "live", n(1900)),
        Attack(
            "big-frames",
            f"{n(8)} sockets sending {big_mib:g} MiB text messages, no "
            "hello (compressed when the server offers permessage-deflate)",
            "big",
            n(8),
            size=size,
        ),
        Attack(
            "fd-pressure",
            f"{n(900)} live sockets of one player id on its lobby, the "
            "server's open-file limit at 1,024",
            "hold",
            n(900),
            nofile=1024,
        ),
        Attack("no-hello", f"{n(1900)} sockets that never say hello", "silent", n(1900)),
        Attack(
            "computer-tables",
            f"{n(400)} online tables of one player and 3 strong computers, started and left",
            "computers",
            n(400),
        ),
        Attack(
            "table-creation",
            "one player id creating online tables as fast as allowed (4 at a time)",
            "creation",
            4,
        ),
        Attack("kc-replay", f"a Kings Corner round replay fetched at {n(45)}/s", "replay", n(45)),
        Attack(
            "ping-flood",
            f"{n(4)} spectator sockets sending pings as fast as they can (opened again at "
            "once when closed)",
            "pings",
            n(4),
        ),
        Attack(
            "replay-waves",
            f"one player id asking {n(60)} times at once for round 1 of each of 8 Kings "
            "Corner matches not replayed yet, wave after wave (16 matches, then the same again)",
            "waves",
            n(60),
        ),
        Attack(
            "ps-reviews",
            f"Poker Squares reviews started (and asked again) on {n(40)} "
            "finished deals of 4 players",
            "reviews",
            n(40),
        ),
        Attack(
            "spectator",
            f"a spectator reconnecting {n(15)} times a second to the "
            "ordinary player's online table",
            "spectator",
            n(15),
            online=True,
        ),
    ]


# -- the attacker's side -----------------------------------------------------------------------
class Refused(Exception):
    """The server did not upgrade the connection, or closed it."""


def backoff(delay: float) -> float:
    """The next pause before opening a socket the server closed early: 0.5, 1, 2, 4, 5 s
    ... (each slept with a random factor of 0.5-1.5, so the slots do not come back in step)."""
    return min(5.0, max(0.5, delay * 2))


class Ctx:
    """What an attack has: the server, an HTTP client, its figures, and whether to go on."""

    def __init__(self, params: dict[str, Any], events: Any, stop: Any) -> None:
        self.params = params
        self.port: int = params["port"]
        self.events, self.stop = events, stop
        self.figures: dict[str, Any] = {}
        self.is_ready = False
        self.cpu_at_ready = 0.0
        self.stopping = False
        self.open = 0
        self.tried = 0
        """Socket slots that have tried once (opened, or been refused)."""
        self.lives: set[Live] = set()
        self.gate = asyncio.Semaphore(OPEN_CONCURRENCY)
        transport = httpx.AsyncHTTPTransport(
            local_address=ATTACKER,
            retries=0,
            verify=False,
            limits=httpx.Limits(max_connections=64, keepalive_expiry=3.0),
        )
        self.http = httpx.AsyncClient(
            base_url=f"http://{HOST}:{self.port}",
            transport=transport,
            timeout=httpx.Timeout(REQUEST_TIMEOUT),
            verify=False,
            trust_env=False,
        )

    def ready(self, note: str = "") -> None:
        if not self.is_ready:
            self.is_ready = True
            self.cpu_at_ready = time.process_time()
            self.events.put(("ready", note))

    def running(self) -> bool:
        return not self.stopping

    def count(self, key: str, n: float = 1) -> None:
        self.figures[key] = self.figures.get(key, 0) + n

    def opened(self, n: int) -> None:
        self.open += n
        self.figures["open_max"] = max(self.figures.get("open_max", 0), self.open)

    async def sleep(self, seconds: float) -> None:
        """Sleep, but wake early (within 0.1 s) when the row ends."""
        end = time.monotonic() + seconds
        while self.running() and (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.1))

    async def call(
        self, method: str, path: str, player: str | None, body: Any = None, *, retry: bool = True
    ) -> tuple[int, Any]:
        """(status, JSON) of one request (0 for a failed connection). A 429 whose
        Retry-After is at most 5 s (a rate limit, not a cap) waits that long and tries again
        while the row runs, if ``retry``."""
        headers = {"X-Player-Id": player} if player else {}
        while True:
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
            except httpx.HTTPError as exc:
                self.count(f"http {type(exc).__name__}")
                return 0, None
            data = r.json() if "json" in r.headers.get("content-type", "") else None
            code = data.get("code") if isinstance(data, dict) and r.status_code >= 400 else None
            self.count(f"http {r.status_code}" + (f" {code}" if code else ""))
            wait = float(r.headers.get("retry-after") or 1)
            if r.status_code != 429 or wait > 5 or not retry or not self.running():
                return r.status_code, data
            await self.sleep(wait)

    async def player(self) -> str:
        for _ in range(20):
            status, data = await self.call("POST", "/api/players", None)
            if status == 201:
                player: str = data["player_id"]
                return player
            await asyncio.sleep(0.5)
        raise RuntimeError(f"the attacker got no player id: {self.figures}")

    async def table(self, player: str, body: dict[str, Any]) -> dict[str, Any]:
        status, data = await self.call("POST", ONLINE, player, body)
        if status != 201:
            raise RuntimeError(f"the attacker got no table: {status} {data}")
        made: dict[str, Any] = data
        return made


class Live:
    """A raw WebSocket client connection (RFC 6455), as little as a hostile client needs:
    the handshake, masked frames out, frames in (pings answered, the rest dropped)."""

    def __init__(
        self, ctx: Ctx, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.ctx, self.reader, self.writer = ctx, reader, writer
        self.deflate_bits: int | None = None

    @classmethod
    async def open(cls, ctx: Ctx, token: str, *, deflate: bool = False) -> Live:
        """The upgraded connection, or `Refused` (counted)."""
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(HOST, ctx.port, local_addr=(ATTACKER, 0)), 10
            )
        except (OSError, TimeoutError) as exc:
            ctx.count(f"connect {type(exc).__name__}")
            raise Refused from None
        live = cls(ctx, reader, writer)
        ctx.lives.add(live)
        key = base64.b64encode(os.urandom(16)).decode()
        head = [
            f"GET {ONLINE}/{token}/live HTTP/1.1",
            f"Host: {HOST}:{ctx.port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            f"Origin: http://{HOST}:{ctx.port}",
        ]
        if deflate:
            head.append("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits")
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as exc:
            ctx.count(f"handshake {type(exc).__name__}")
            live.close()
            raise Refused from None
        lines = answer.decode("latin-1").split("\r\n")
        status = lines[0].split()[1] if len(lines[0].split()) > 1 else "?"
        if status != "101":
            ctx.count(f"upgrade refused {status}")
            live.close()
            raise Refused
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-extensions" and "permessage-deflate" in value:
                live.deflate_bits = 15
                for part in value.split(";"):
                    k, _, v = part.strip().partition("=")
                    if k == "client_max_window_bits" and v:
                        live.deflate_bits = int(v.strip('"'))
        return live

    def send(self, opcode: int, payload: bytes, *, compressed: bool = False) -> None:
        """One masked frame; a large payload goes with the zero mask key (valid, and no
        copy to XOR)."""
        n = len(payload)
        head = bytearray([0x80 | (0x40 if compressed else 0) | opcode])
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        if n > 65536:
            self.writer.write(bytes(head) + b"\0\0\0\0")
            self.writer.write(payload)
            return
        key = os.urandom(4)
        mask = (key * (n // 4 + 1))[:n]
        masked = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
        self.writer.write(bytes(head) + key + masked)

    def send_json(self, message: dict[str, Any]) -> None:
        self.send(0x1, json.dumps(message).encode())

    async def message(self) -> bytes:
        """The next data frame's payload (pings answered); `Refused` once the server
        closes (its close code counted)."""
        try:
            while True:
                b0, b1 = await self.reader.readexactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = int.from_bytes(await self.reader.readexactly(2), "big")
                elif n == 127:
                    n = int.from_bytes(await self.reader.readexactly(8), "big")
                if b1 & 0x80:
                    await self.reader.readexactly(4)
                payload = await self.reader.readexactly(n)
                opcode = b0 & 0x0F
                if opcode == 0x9:
                    self.send(0xA, payload)
                elif opcode == 0x8:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.ctx.count(f"closed {code}")
                    with contextlib.suppress(OSError):
                        self.send(0x8, payload[:2])
                    raise Refused
                elif opcode in (0x0, 0x1, 0x2):
                    return payload
        except (OSError, asyncio.IncompleteReadError) as exc:
            self.ctx.count(f"dropped {type(exc).__name__}")
            raise Refused from None

    async def drain(self) -> None:
        """Read and drop messages until the server closes."""
        while True:
            await self.message()
            self.ctx.count("messages received")

    def close(self) -> None:
        self.ctx.lives.discard(self)
        self.writer.transport.abort()


async def hold(ctx: Ctx, token: str, hello: dict[str, Any] | None) -> None:
    """One socket slot: connect (and say ``hello``, if any, and wait for its answer), then
    read until the server closes; again while the row runs."""
    delay = 0.0
    first = True
    while ctx.running():
        if delay:
            await ctx.sleep(delay * random.uniform(0.5, 1.5))
            if not ctx.running():
                return
        started = time.monotonic()
        live: Live | None = None
        counted = False
        try:
            async with ctx.gate:
                live = await Live.open(ctx, token)
                if hello is not None:
                    live.send_json(hello)
                    await asyncio.wait_for(live.message(), 60)
            ctx.opened(1)
            counted = True
            ctx.tried += first
            first = False
            await live.drain()
        except (Refused, OSError, TimeoutError):
            pass
        finally:
            ctx.tried += first
            first = False
            if counted:
                ctx.opened(-1)
            if live is not None:
                live.close()
        if not ctx.running():
            return
        ctx.count("reopened")
        delay = 0.0 if time.monotonic() - started >= 5 else backoff(delay)


async def until_open(ctx: Ctx, count: int) -> None:
    """Ready once each of the ``count`` slots has tried once (opened its socket or been
    refused; the watcher readies it anyway at the set-up limit)."""
    while ctx.running() and ctx.tried < count:
        await asyncio.sleep(0.1)
    ctx.ready(f"{ctx.open} of {count} sockets open at the start")


async def play_online(ctx: Ctx, player: str, token: str) -> None:
    """Keep the attacker's own table changing: its turns played, rounds and matches
    started again."""
    path = f"{ONLINE}/{token}"
    while ctx.running():
        await ctx.sleep(0.2)
        status, table = await ctx.call("GET", path, player)
        if status != 200:
            continue
        body: dict[str, Any] = {"version": table["version"]}
        if table["phase"] == "round_over":
            await ctx.call("POST", f"{path}/next-round", player, body)
        elif table["phase"] == "match_over":
            await ctx.call("POST", f"{path}/rematch", player, body)
        elif table["phase"] == "play" and (table["turn"] or {}).get("seat") in table["me"]["seats"]:
            legal = (table["view"] or {}).get("legal_moves") or []
            if legal:
                status, _ = await ctx.call(
                    "POST", f"{path}/moves", player, {**body, "move": person(legal)}
                )
                ctx.count("own moves", status == 200)


async def live_sockets(ctx: Ctx, attack: dict[str, Any]) -> None:
    """``count`` live sockets of one player id on its own table: a changing one (``live``:
    three strong computers, and its own turns played) or a lobby (``hold``)."""
    player = await ctx.player()
    changing = attack["kind"] == "live"
    seats = [{"kind": "me"}] + [{"kind": "computer", "strength": "strong"}] * 3
    made = await ctx.table(
        player, {"name": "Eve", "seats": seats, "rounds": 5} if changing else LOBBY
    )
    token = made["token"]
    if changing:
        await ctx.call(
            "POST", f"{ONLINE}/{token}/start", player, {"version": made["table"]["version"]}
        )
    hello = {"type": "hello", "player": player, "version": None}
    jobs = [hold(ctx, token, hello) for _ in range(attack["count"])]
    jobs.append(until_open(ctx, attack["count"]))
    if changing:
        jobs.append(play_online(ctx, player, token))
    await asyncio.gather(*jobs)


async def silent(ctx: Ctx, attack: dict[str, Any]) -> None:
    """``count`` upgraded sockets that never say hello (opened again when cut)."""
    player = await ctx.player()
    token = (await ctx.table(player, LOBBY))["token"]
    jobs = [hold(ctx, token, None) for _ in range(attack["count"])]
    await asyncio.gather(*jobs, until_open(ctx, attack["count"]))


def deflated(payload: bytes, bits: int, cache: dict[int, bytes]) -> bytes:
    """``payload`` as one permessage-deflate message (RFC 7692: no context, tail cut)."""
    if bits not in cache:
        c = zlib.compressobj(9, zlib.DEFLATED, -bits)
        data = c.compress(payload) + c.flush(zlib.Z_SYNC_FLUSH)
        cache[bits] = data[:-4] if data.endswith(b"\x00\x00\xff\xff") else data
    return cache[bits]


async def big(ctx: Ctx, attack: dict[str, Any]) -> None:
    """``count`` sockets, each sending ``size``-byte text messages without a hello as fast
    as the server reads them (compressed when the server agreed to permessage-deflate)."""
    player = await ctx.player()
    token = (await ctx.table(player, LOBBY))["token"]
    payload = b"a" * attack["size"]
    cache: dict[int, bytes] = {}

    async def slot() -> None:
        delay = 0.0
        while ctx.running():
            if delay:
                await ctx.sleep(delay * random.uniform(0.5, 1.5))
            started = time.monotonic()
            try:
                live = await Live.open(ctx, token, deflate=True)
            except Refused:
                delay = backoff(delay)
                continue
            ctx.opened(1)
            reading = asyncio.create_task(live.drain())
            bits = live.deflate_bits
            data = payload if bits is None else deflated(payload, bits, cache)
            ctx.figures["compressed"] = bits is not None
            try:
                while ctx.running() and not reading.done():
                    live.send(0x1, data, compressed=bits is not None)
                    await asyncio.wait_for(live.writer.drain(), 30)
                    ctx.count("messages sent")
                    ctx.count("MiB on the wire", len(data) / 2**20)
            except (OSError, TimeoutError):
                ctx.count("send failed")
            finally:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Refused):
                    await reading
                ctx.opened(-1)
                live.close()
            delay = 0.0 if time.monotonic() - started >= 5 else backoff(delay)

    ctx.ready()
    await asyncio.gather(*(slot() for _ in range(attack["count"])))


async def computers(ctx: Ctx, attack: dict[str, Any]) -> None:
    """``count`` online tables of one player and three strong computers, started and left
    (a strong stand-in plays the player's seat)."""
    player = await ctx.player()
    seats = [{"kind": "me"}] + [{"kind": "computer", "strength": "strong"}] * 3
    body = {"name": "Eve", "seats": seats, "rounds": 5, "stand_in": "strong"}
    gate = asyncio.Semaphore(8)

    async def one() -> None:
        async with gate:
            if not ctx.running():
                return
            status, made = await ctx.call("POST", ONLINE, player, body)
            if status != 201:
                ctx.count(f"create refused {status} {(made or {}).get('code')}")
                return
            path = f"{ONLINE}/{made['token']}"
            status, table = await ctx.call(
                "POST", f"{path}/start", player, {"version": made["table"]["version"]}
            )
            if status != 200:
                ctx.count(f"start refused {status} {(table or {}).get('code')}")
                return
            status, _ = await ctx.call(
                "POST", f"{path}/leave", player, {"version": table["version"]}
            )
            ctx.count("tables started and left" if status == 200 else f"leave refused {status}")

    await asyncio.gather(*(one() for _ in range(attack["count"])))
    ctx.ready(f"{ctx.figures.get('tables started and left', 0)} tables started and left")
    while ctx.running():
        await asyncio.sleep(0.1)


async def creation(ctx: Ctx, attack: dict[str, Any]) -> None:
    """One player id creating lobbies, ``count`` requests at a time, as fast as the server
    allows (a 429 waits its Retry-After)."""
    player = await ctx.player()
    ctx.ready()

    async def loop() -> None:
        while ctx.running():
            status, _ = await ctx.call("POST", ONLINE, player, LOBBY)
            ctx.count("tables created" if status == 201 else "refused")
            if status not in (201, 429):
                await ctx.sleep(0.5)  # a refusal other than the rate limit: not a busy loop

    await asyncio.gather(*(loop() for _ in range(attack["count"])))


async def open_loop(ctx: Ctx, rate: int, job: Callable[[], Awaitable[None]]) -> None:
    """``job`` started ``rate`` times a second, at most 16 at once (a start that finds 16
    running is skipped and counted)."""
    gate = asyncio.Semaphore(16)
    tasks: set[asyncio.Task[None]] = set()

    async def one() -> None:
        async with gate:
            await job()

    step, due = 1 / rate, time.monotonic()
    while ctx.running():
        due += step
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        if gate.locked():
            ctx.count("skipped (16 in flight)")
            continue
        task = asyncio.create_task(one())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    for task in list(tasks):
        task.cancel()


async def replay(ctx: Ctx, attack: dict[str, Any]) -> None:
    """A Kings Corner match against two strong computers played to the end of its first
    round, then that round's replay fetched ``count`` times a second."""
    player = await ctx.player()
    game_id = await kc_round(ctx, player, "strong")
    ctx.ready()
    url = f"/api/review/kings-corner/{game_id}/rounds/1"

    async def fetch() -> None:
        status, _ = await ctx.call("GET", url, player, retry=False)
        ctx.count("replays served" if status == 200 else f"replay {status}")

    await open_loop(ctx, attack["count"], fetch)


async def reviews(ctx: Ctx, attack: dict[str, Any]) -> None:
    """Four players each finish their share of ``count`` Poker Squares deals, then each
    starts the review of every deal of theirs and asks again (10 a second each) until it is
    done."""
    players = [await ctx.player() for _ in range(4)]
    share = math.ceil(attack["count"] / len(players))

    async def deals(player: str) -> list[str]:
        ids: list[str] = []
        while len(ids) < share and ctx.running():
            status, game = await ctx.call(
                "POST", "/api/poker-squares/games", player, {"table": "american"}
            )
            if status != 201:
                raise RuntimeError(f"no deal: {status} {game}")
            for row, col in CELLS:
                body = {"version": game["version"], "row": row, "col": col}
                status, game = await ctx.call(
                    "POST", f"/api/poker-squares/games/{game['id']}/moves", player, body
                )
                if status != 200:
                    raise RuntimeError(f"a move failed: {status} {game}")
            ids.append(game["id"])
        return ids

    finished = await asyncio.gather(*(deals(p) for p in players))
    ctx.ready(f"{sum(map(len, finished))} finished deals")

    async def ask(player: str, ids: list[str]) -> None:
        while ids and ctx.running():
            for game_id in list(ids):
                status, answer = await ctx.call(
                    "POST", f"/api/review/poker-squares/{game_id}/start", player, retry=False
                )
                state = (answer or {}).get("state") if status == 200 else f"{status}"
                ctx.count(f"answer {state}")
                if state in ("done", "failed"):
                    ids.remove(game_id)
                    ctx.count(f"reviews {state}")
                await ctx.sleep(0.1)

    await asyncio.gather(*(ask(p, ids) for p, ids in zip(players, finished, strict=True)))
    while ctx.running():
        await asyncio.sleep(0.1)


async def spectator(ctx: Ctx, attack: dict[str, Any]) -> None:
    """A spectator of the ordinary player's table: connect, hello, the first message, close,
    ``count`` times a second."""
    player = await ctx.player()
    token = attack["token"]
    ctx.ready()

    async def visit() -> None:
        try:
            live = await Live.open(ctx, token)
        except Refused:
            return
        try:
            live.send_json({"type": "hello", "player": player, "version": None})
            await asyncio.wait_for(live.message(), 10)
            ctx.count("visits")
            live.send(0x8, (1000).to_bytes(2, "big"))
            await asyncio.wait_for(live.writer.drain(), 5)
        except (Refused, OSError, TimeoutError):
            ctx.count("visits failed")
        finally:
            live.close()

    await open_loop(ctx, attack["count"], visit)


def masked_text(payload: bytes) -> bytes:
    """One masked text frame carrying ``payload`` (under 126 bytes), built once and sent
    again and again (a hostile client need not draw a new mask key per frame)."""
    key = os.urandom(4)
    masked = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return bytes([0x81, 0x80 | len(payload)]) + key + masked


async def pings(ctx: Ctx, attack: dict[str, Any]) -> None:
    """``count`` spectator sockets (each its own player id) of a lobby of the attacker's,
    each saying hello and then sending pings as fast as its socket takes them, reading what
    comes back; a socket the server closes is opened again at once."""
    host = await ctx.player()
    token = (await ctx.table(host, LOBBY))["token"]
    spectators = [await ctx.player() for _ in range(attack["count"])]
    frame = masked_text(b'{"type":"ping"}')
    said_hello = 0

    async def slot(player: str) -> None:
        nonlocal said_hello
        first = True
        while ctx.running():
            live: Live | None = None
            try:
                live = await Live.open(ctx, token)
                live.send_json({"type": "hello", "player": player, "version": None})
                await asyncio.wait_for(live.message(), 30)
                said_hello += first
                first = False
                ctx.opened(1)
                reading = asyncio.create_task(live.drain())
                try:
                    while ctx.running() and not reading.done():
                        live.writer.write(frame * 64)
                        await asyncio.wait_for(live.writer.drain(), 30)
                        ctx.count("pings sent", 64)
                finally:
                    reading.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Refused):
                        await reading
                    ctx.opened(-1)
            except (Refused, OSError, TimeoutError):
                pass
            finally:
                if live is not None:
                    live.close()
            ctx.count("reopened")
            await ctx.sleep(random.uniform(0.0, 0.1))

    async def ready() -> None:
        while ctx.running() and said_hello < len(spectators):
            await asyncio.sleep(0.05)
        ctx.ready(f"{said_hello} spectators said hello")

    await asyncio.gather(ready(), *(slot(p) for p in spectators))


async def kc_round(ctx: Ctx, player: str, strength: str) -> str:
    """A Kings Corner match of ``player`` against two computers of ``strength``, played to
    the end of its first round: its game id."""
    seats = [{"kind": "human"}] + [{"kind": "computer", "strength": strength}] * 2
    status, game = await ctx.call("POST", "/api/kings-corner/games", player, {"seats": seats})
    if status != 201:
        raise RuntimeError(f"no Kings Corner game: {status} {game}")
    for _ in range(3000):
        if game["phase"] in ("round_over", "match_over") or not ctx.running():
            break
        path = f"/api/kings-corner/games/{game['id']}/"
        body: dict[str, Any] = {"version": game["version"]}
        if game["phase"] == "computer":
            path += "computer-step"
        else:
            path += "moves"
            body["move"] = person(game["view"]["legal_moves"])
        status, answer = await ctx.call("POST", path, player, body)
        if status != 200:
            raise RuntimeError(f"the Kings Corner round failed: {status} {answer}")
        game = answer
    game_id: str = game["id"]
    return game_id


async def waves(ctx: Ctx, attack: dict[str, Any]) -> None:
    """One player id with 16 matches played to the end of round 1 (against easy computers);
    then waves: ``count`` fetches at once of round 1 of each of the next 8
    matches not replayed yet (480 requests at once), the next wave when the last is
    answered; once all 16 are replayed, the waves ask again for the first 8."""
    player = await ctx.player()
    # One after another: a player's new Kings Corner game replaces the unfinished one.
    ids = [await kc_round(ctx, player, "easy") for _ in range(16)]
    ctx.ready(f"{len(ids)} matches at the end of round 1")
    served: set[str] = set()

    async def fetch(game_id: str) -> None:
        status, _ = await ctx.call(
            "GET", f"/api/review/kings-corner/{game_id}/rounds/1", player, retry=False
        )
        ctx.count("replays served" if status == 200 else f"replay {status}")
        if status == 200:
            served.add(game_id)

    while ctx.running():
        fresh = [g for g in ids if g not in served][:8] or ids[:8]
        ctx.count("waves")
        await asyncio.gather(*(fetch(g) for g in fresh for _ in range(attack["count"])))
    ctx.figures["matches replayed"] = len(served)


KINDS: dict[str, Callable[[Ctx, dict[str, Any]], Coroutine[Any, Any, None]]] = {
    "live": live_sockets,
    "hold": live_sockets,
    "silent": silent,
    "big": big,
    "computers": computers,
    "creation": creation,
    "replay": replay,
    "pings": pings,
    "waves": waves,
    "reviews": reviews,
    "spectator": spectator,
}


async def attacker(params: dict[str, Any], events: Any, stop: Any) -> dict[str, Any]:
    ctx = Ctx(params, events, stop)
    job = asyncio.create_task(KINDS[params["kind"]](ctx, params))
    started = time.monotonic()
    try:
        while not (stop.is_set() or time.monotonic() - started > params["deadline"]):
            if job.done():
                job.result()  # raises the attack's failure
            if time.monotonic() - started > params["setup_seconds"]:
                ctx.ready("set-up cut at its time limit")
            await asyncio.sleep(0.1)
    finally:
        ctx.stopping = True
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job
        for live in list(ctx.lives):
            live.close()
        await ctx.http.aclose()
    ctx.figures["CPU s"] = time.process_time() - ctx.cpu_at_ready
    return ctx.figures


def raise_file_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def attacker_process(params: dict[str, Any], events: Any, stop: Any) -> None:
    """Entry of the attacker process: ("ready", note) once set up, then ("done", figures)
    or ("error", text) into ``events``."""
    raise_file_limit()
    if params.get("nice"):
        os.nice(params["nice"])
    try:
        events.put(("done", asyncio.run(attacker(params, events, stop))))
    except BaseException as exc:
        events.put(("error", f"{type(exc).__name__}: {exc}"))


# -- the ordinary player -------------------------------------------------------------------
@dataclass
class Ordinary:
    latencies: list[float] = field(default_factory=list)
    """Seconds per timed move."""
    unavailable: int = 0
    """503 answers to any of its requests."""
    failed: int = 0
    """Requests that got no answer (connection refused or dropped, timeout)."""
    errors: dict[str, int] = field(default_factory=dict)
    """Other answers that are not 2xx, by status and code."""
    stale: int = 0
    probes: int = 0
    probes_ok: int = 0
    continues: list[float] = field(default_factory=list)
    """Seconds per ``GET /api/continue`` of its own (kept-alive) client, 10 a second."""

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def client(base: str, keepalive: bool = True) -> httpx.AsyncClient:
    limits = (
        httpx.Limits(keepalive_expiry=3.0)
        if keepalive
        else httpx.Limits(max_keepalive_connections=0)
    )
    transport = httpx.AsyncHTTPTransport(
        local_address=ORDINARY, retries=0, verify=False, limits=limits
    )
    return httpx.AsyncClient(
        base_url=base,
        transport=transport,
        timeout=httpx.Timeout(REQUEST_TIMEOUT),
        verify=False,
        trust_env=False,
    )


async def request(
    http: httpx.AsyncClient, o: Ordinary, method: str, path: str, player: str, body: Any = None
) -> tuple[int, Any, float]:
    """(status or 0, JSON, seconds) of one request of the ordinary player, counted."""
    t = time.perf_counter()
    try:
        r = await http.request(method, path, json=body, headers={"X-Player-Id": player})
    except httpx.HTTPError as exc:
        o.failed += 1
        o.error(f"{method} {type(exc).__name__}")
        return 0, None, time.perf_counter() - t
    seconds = time.perf_counter() - t
    data = r.json() if "json" in r.headers.get("content-type", "") else None
    if r.status_code == 503:
        o.unavailable += 1
    elif not 200 <= r.status_code < 300:
        o.error(f"{r.status_code} {(data or {}).get('code')}")
    return r.status_code, data, seconds


async def probe(base: str, player: str, o: Ordinary, until: float) -> None:
    """At once and then once a second, a new client on a new connection:
    ``GET /api/continue``."""
    while time.monotonic() < until:
        next_one = time.monotonic() + 1.0
        async with client(base, keepalive=False) as http:
            o.probes += 1
            status, _, _ = await request(http, o, "GET", "/api/continue", player)
            o.probes_ok += status == 200
        await asyncio.sleep(max(0.0, min(next_one, until) - time.monotonic()))


async def resume(base: str, player: str, o: Ordinary, until: float) -> None:
    """``GET /api/continue`` ten times a second on a kept-alive client of its own, timed:
    what opening the site asks first."""
    async with client(base) as http:
        while time.monotonic() < until:
            next_one = time.monotonic() + 0.1
            status, _, seconds = await request(http, o, "GET", "/api/continue", player)
            if status == 200:
                o.continues.append(seconds)
            await asyncio.sleep(max(0.0, min(next_one, until) - time.monotonic()))


async def poker_squares(
    http: httpx.AsyncClient, player: str, o: Ordinary, until: float, pace: float
) -> None:
    game: dict[str, Any] | None = None
    while time.monotonic() < until:
        if game is None or game["view"]["is_over"]:
            status, game, _ = await request(
                http, o, "POST", "/api/poker-squares/games", player, {"table": "american"}
            )
            if status != 201:
                game = None
                await asyncio.sleep(max(pace, 0.2))
            continue
        grid = game["view"]["grid"]
        row, col = next((r, c) for r, c in CELLS if grid[r][c] is None)
        body = {"version": game["version"], "row": row, "col": col}
        path = f"/api/poker-squares/games/{game['id']}/moves"
        status, answer, seconds = await request(http, o, "POST", path, player, body)
        o.latencies.append(seconds)
        game = answer if status == 200 else None
        await asyncio.sleep(pace)


@dataclass
class Seat:
    """The ordinary player's online table: its token and the newest table it has seen."""

    token: str
    ws: ClientConnection
    latest: dict[str, Any]
    news: asyncio.Event = field(default_factory=asyncio.Event)

    def keep(self, table: dict[str, Any]) -> None:
        if table["version"] >= self.latest["version"]:
            self.latest = table
            self.news.set()

    async def listen(self) -> None:
        async for text in self.ws:
            msg = json.loads(text)
            if msg.get("type") == "table":
                self.keep(msg["table"])


async def sit(http: httpx.AsyncClient, port: int, player: str) -> Seat:
    """A table of the ordinary player and a second person on its device (pass and play, so
    every turn is the player's), its live connection open, started."""
    seats = [{"kind": "me"}, {"kind": "local", "name": "Kim"}]
    r = await http.post(
        ONLINE, json={"name": "Ann", "seats": seats, "rounds": 5}, headers={"X-Player-Id": player}
    )
    if r.status_code != 201:
        raise RuntimeError(f"the ordinary player got no table: {r.status_code} {r.text}")
    made = r.json()
    ws = await connect(
        f"ws://{HOST}:{port}{ONLINE}/{made['token']}/live",
        local_addr=(ORDINARY, 0),
        open_timeout=30,
        max_queue=None,
        origin=Origin(f"http://{HOST}:{port}"),
    )
    await ws.send(json.dumps({"type": "hello", "player": player, "version": None}))
    seat = Seat(made["token"], ws, made["table"])
    first = json.loads(await asyncio.wait_for(ws.recv(), 30))
    if first.get("type") == "table":
        seat.keep(first["table"])
    r = await http.post(
        f"{ONLINE}/{seat.token}/start",
        json={"version": seat.latest["version"]},
        headers={"X-Player-Id": player},
    )
    if r.status_code != 200:
        raise RuntimeError(f"the ordinary player's table did not start: {r.text}")
    seat.keep(r.json())
    return seat


async def online(
    http: httpx.AsyncClient, seat: Seat, player: str, o: Ordinary, until: float, pace: float
) -> None:
    """Play the ordinary player's turns (after ``pace``) with the newest version it has."""
    path = f"{ONLINE}/{seat.token}"
    while time.monotonic() < until:
        table = seat.latest
        body: dict[str, Any] = {"version": table["version"]}
        mine = (table["turn"] or {}).get("seat") in table["me"]["seats"]
        legal = (table["view"] or {}).get("legal_moves") or []
        steps = {"round_over": "next-round", "match_over": "rematch", "handoff": "reveal"}
        if table["phase"] in steps:
            step = steps[table["phase"]]
            status, answer, _ = await request(http, o, "POST", f"{path}/{step}", player, body)
        elif table["phase"] == "play" and mine and legal:
            await asyncio.sleep(pace)
            body["version"] = seat.latest["version"]
            body["move"] = person(legal)
            status, answer, seconds = await request(http, o, "POST", f"{path}/moves", player, body)
            o.latencies.append(seconds)
            if status == 409 and (answer or {}).get("code") == "stale_version":
                o.stale += 1
                answer = answer.get("current")
                status = 200 if isinstance(answer, dict) else status
        else:
            seat.news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(seat.news.wait(), 0.5)
            continue
        if status == 200 and isinstance(answer, dict):
            seat.keep(answer)
        elif status != 200:
            await asyncio.sleep(0.2)
            status, answer, _ = await request(http, o, "GET", path, player)
            if status == 200:
                seat.keep(answer)


# -- a row -----------------------------------------------------------------------------------
class Memory(threading.Thread):
    """The largest resident memory of the server and its descendants: VmRSS every 0.25 s;
    the descendants found again every 2 s (a scan of /proc takes tens of milliseconds on a
    busy machine, time this thread would take from the ordinary player's)."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kib = 0
        self.done = threading.Event()
        self.pids = self.tree()

    def tree(self) -> list[int]:
        parents: dict[int, list[int]] = {}
        with os.scandir("/proc") as entries:
            for entry in entries:
                if entry.name.isdigit():
                    with contextlib.suppress(OSError, IndexError, ValueError):
                        with open(f"/proc/{entry.name}/stat", "rb") as f:
                            ppid = int(f.read().rpartition(b")")[2].split()[1])
                        parents.setdefault(ppid, []).append(int(entry.name))
        out, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo += parents.get(pid, [])
        return out

    def cpu(self) -> float:
        """CPU seconds used so far by the server and its descendants."""
        total = 0.0
        for pid in self.pids:
            with contextlib.suppress(OSError, IndexError, ValueError):
                total += cpu_seconds(pid)
        return total

    def sample(self) -> int:
        total = 0
        for pid in self.pids:
            with contextlib.suppress(OSError, RuntimeError):
                total += rss_kib(pid)
        return total

    def run(self) -> None:
        rounds = 0
        while not self.done.wait(0.25):
            rounds += 1
            if rounds % 8 == 0:
                self.pids = self.tree()
            self.peak_kib = max(self.peak_kib, self.sample())


@dataclass
class Server:
    port: int
    pid: int
    data: Path


def store_mib(data: Path) -> float:
    return sum(f.stat().st_size for f in data.rglob("*") if f.is_file()) / 2**20


async def ordinary_row(
    server: Server, attack: Attack | None, args: argparse.Namespace, memory: Memory, at_table: bool
) -> dict[str, Any]:
    """Set up the ordinary player, start the attacker and wait for it to be ready, play
    ``--seconds``, stop the attacker: the row's figures."""
    base = f"http://{HOST}:{server.port}"
    o = Ordinary()
    async with client(base) as http:
        r = await http.post("/api/players", json={})
        if r.status_code != 201:
            raise RuntimeError(f"the ordinary player got no id: {r.status_code} {r.text}")
        player = r.json()["player_id"]
        seat = await sit(http, server.port, player) if at_table else None
        listener = asyncio.create_task(seat.listen()) if seat else None
        ctx = multiprocessing.get_context("spawn")
        events, stop = ctx.Queue(), ctx.Event()
        proc = None
        note: Any = ""
        figures: Any = {}
        try:
            if attack is not None:
                params = {
                    "kind": attack.kind,
                    "count": attack.count,
                    "size": attack.size,
                    "port": server.port,
                    "token": seat.token if seat else None,
                    "setup_seconds": args.setup_seconds,
                    "nice": args.attacker_nice,
                    "deadline": args.setup_seconds + args.seconds + 60,
                }
                proc = ctx.Process(target=attacker_process, args=(params, events, stop))
                proc.start()
                memory.peak_kib = 0
                kind, note = await next_event(events, proc, args.setup_seconds + 60)
                if kind != "ready":
                    raise RuntimeError(f"the attacker failed: {note}")
            size_before = store_mib(server.data)
            cpu_before = memory.cpu()
            until = time.monotonic() + args.seconds
            player_job = (
                online(http, seat, player, o, until, args.pace)
                if seat
                else poker_squares(http, player, o, until, args.pace)
            )
            await asyncio.gather(
                player_job, probe(base, player, o, until), resume(base, player, o, until)
            )
            size_after = store_mib(server.data)
            server_cpu = memory.cpu() - cpu_before
            load = os.getloadavg()
            if proc is not None:
                stop.set()
                kind, figures = await next_event(events, proc, 30)
                if kind != "done":
                    figures = {"attacker failed": figures}
        finally:
            stop.set()
            if proc is not None:
                proc.join(10)
                if proc.is_alive():
                    proc.kill()
                    proc.join(5)
            if listener is not None:
                listener.cancel()
            if seat is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(seat.ws.close(), 5)
    lat = o.latencies
    cont = o.continues
    return {
        "row": attack.name if attack else ("baseline-online" if seat else "baseline"),
        "what": attack.what if attack else "no attack",
        "online": seat is not None,
        "server_pid": server.pid,
        "moves": len(lat),
        "p50_ms": round(1000 * percentile(lat, 50), 1) if lat else None,
        "p99_ms": round(1000 * percentile(lat, 99), 1) if lat else None,
        "max_ms": round(1000 * max(lat), 1) if lat else None,
        "continue_p50_ms": round(1000 * percentile(cont, 50), 1) if cont else None,
        "continue_p99_ms": round(1000 * percentile(cont, 99), 1) if cont else None,
        "continue_top_ms": [round(1000 * x, 1) for x in sorted(cont)[-5:]],
        "unavailable": o.unavailable,
        "failed": o.failed,
        "errors": o.errors,
        "stale": o.stale,
        "new_clients": f"{o.probes_ok}/{o.probes}",
        "new_clients_ok": o.probes_ok == o.probes,
        "rss_peak_mib": round(memory.peak_kib / 1024, 1),
        "store_growth_mib": round(size_after - size_before, 2),
        "server_cpu_s": round(server_cpu, 1),
        "load_1m": round(load[0], 2),
        "attacker_note": note,
        "attacker": figures,
    }


async def next_event(events: Any, proc: Any, timeout: float) -> tuple[str, Any]:
    """The attacker's next message, waited for in short steps (so that Ctrl-C is not held
    up by a thread waiting on the queue)."""
    end = time.monotonic() + timeout
    while True:
        try:
            event: tuple[str, Any] = await asyncio.to_thread(events.get, True, 0.25)
            return event
        except queue.Empty:
            if time.monotonic() > end or not proc.is_alive():
                return "error", "the attacker did not answer in time (or died)"


@contextlib.contextmanager
def server_for(
    root: Path, name: str, nofile: int | None, *, proxied: bool = False
) -> Iterator[Server]:
    """A fresh server for a row; ``proxied``: behind the shipped nginx site (deploy/nginx/,
    bench/proxy.py), which every client of the row then talks to (the server believes the
    proxy's X-Forwarded-For, so its per-address limits see the clients' own addresses)."""
    data = root / name
    data.mkdir(parents=True)
    args = ("--forwarded-allow-ips", HOST) if proxied else ()
    with serve(data, timeout=180, nofile=nofile, group=True, args=args) as s:
        if not proxied:
            yield Server(s.port, s.proc.pid, data / "store")
            return
        proxy = Nginx(data / "nginx", [f"{HOST}:{s.port}"])
        proxy.start()
        try:
            yield Server(proxy.port, s.proc.pid, data / "store")
        finally:
            proxy.stop()


def run_row(
    server: Server, attack: Attack | None, args: argparse.Namespace, *, at_table: bool
) -> dict[str, Any]:
    memory = Memory(server.pid)
    memory.start()
    try:
        row = asyncio.run(ordinary_row(server, attack, args, memory, at_table))
    finally:
        memory.done.set()
        memory.join(5)
    return row


def judge(row: dict[str, Any], base: dict[str, Any]) -> None:
    """The ratio to the baseline and whether the row meets the goal: the move's and
    ``GET /api/continue``'s p99 each at most max(50 ms, 3x the baseline's), no 503, no failed
    request, every new client answered, memory under the bound."""
    p99, b99 = row["p99_ms"], base["p99_ms"]
    c99, bc99 = row["continue_p99_ms"], base["continue_p99_ms"]
    row["base_p50_ms"], row["base_p99_ms"] = base["p50_ms"], b99
    row["base_continue_p99_ms"] = bc99
    row["ratio"] = round(p99 / b99, 2) if p99 is not None and b99 else None
    row["continue_ratio"] = round(c99 / bc99, 2) if c99 is not None and bc99 else None

    def within(value: float | None, baseline: float | None) -> bool:
        return (
            value is not None
            and baseline is not None
            and value <= max(GOAL_P99_MS, GOAL_RATIO * baseline)
        )

    row["goal"] = (
        within(p99, b99)
        and within(c99, bc99)
        and row["unavailable"] == 0
        and row["failed"] == 0
        and row["new_clients_ok"]
        and row["rss_peak_mib"] < GOAL_RSS_MIB
    )


HEADER = (
    f"{'row':<16} {'p50':>7} {'p99':>8} {'base p50':>8} {'base p99':>8} {'ratio':>6} "
    f"{'cont p99':>8} {'base':>6} {'moves':>5} {'503':>4} {'fail':>4} {'new':>7} "
    f"{'RSS MiB':>7} {'load':>5} goal  notes"
)


def fmt(x: Any, width: int) -> str:
    return f"{'-' if x is None else x:>{width}}"


def line(row: dict[str, Any]) -> str:
    goal = {True: "yes", False: "NO", None: "-"}[row.get("goal")]
    notes = notes_of(row)
    return (
        f"{row['row']:<16} {fmt(row['p50_ms'], 7)} {fmt(row['p99_ms'], 8)} "
        f"{fmt(row.get('base_p50_ms'), 8)} {fmt(row.get('base_p99_ms'), 8)} "
        f"{fmt(row.get('ratio'), 6)} {fmt(row['continue_p99_ms'], 8)} "
        f"{fmt(row.get('base_continue_p99_ms'), 6)} {row['moves']:>5} {row['unavailable']:>4} "
        f"{row['failed']:>4} {row['new_clients']:>7} {row['rss_peak_mib']:>7} "
        f"{row['load_1m']:>5} {goal:<5} {notes}"
    )


def notes_of(row: dict[str, Any]) -> str:
    parts = [f"server CPU {row['server_cpu_s']} s"]
    if row["online"] and row["moves"]:
        parts.append(
            f"stale {row['stale']}/{row['moves']} ({100 * row['stale'] / row['moves']:.0f}%)"
        )
    if row["errors"]:
        parts.append("errors " + ", ".join(f"{k}: {v}" for k, v in row["errors"].items()))
    if row["store_growth_mib"] >= 1:
        parts.append(f"store +{row['store_growth_mib']} MiB")
    if row["attacker_note"]:
        parts.append(row["attacker_note"])
    figures = row["attacker"]
    if figures:
        parts.append(
            "attacker: "
            + ", ".join(
                f"{k} {round(v, 1) if isinstance(v, float) else v}"
                for k, v in sorted(figures.items())
                if not k.startswith("http 2")
            )
        )
    return "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.abuse",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="per row (20)")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this attack (repeat for more; the baselines always run)",
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply the attacks' counts and rates (1)"
    )
    parser.add_argument(
        "--big-mib", type=float, default=16.0, help="size of each big-frames message in MiB (16)"
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.05,
        help="the ordinary player's pause after each move, s (0.05)",
    )
    parser.add_argument(
        "--setup-seconds",
        type=float,
        default=120.0,
        help="the longest an attack may take to set up (120)",
    )
    parser.add_argument(
        "--one-server",
        action="store_true",
        help="every row on one server (the fd-pressure row keeps its own)",
    )
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=0,
        metavar="N",
        help="run the attacker process at this niceness (0; 19: the attacker's own CPU, "
        "which a real attacker spends on its own machine, yields to the server's)",
    )
    parser.add_argument(
        "--proxy",
        action="store_true",
        help="every row's server behind nginx with deploy/nginx/'s configuration (Debian's "
        "nginx package); the clients talk to the proxy",
    )
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args(argv)
    chosen = attacks(args.scale, args.big_mib)
    names = [a.name for a in chosen]
    for name in args.only:
        if name not in names:
            parser.error(f"unknown attack {name!r}: one of {', '.join(names)}")
    if args.only:
        chosen = [a for a in chosen if a.name in args.only]
    if not 0 < args.seconds <= 600 or not 0 < args.scale <= 10 or not 0 <= args.pace <= 5:
        parser.error("seconds are 0-600, scale 0-10 and pace 0-5")
    raise_file_limit()
    # SIGTERM stops the run like Ctrl-C: the attacker and the servers are stopped on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    started = time.monotonic()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"abuse: cardtable serve on {HOST}{' behind nginx (deploy/nginx/)' * args.proxy} "
        "(SQLite, access log on, a fresh server per row"
        f"{' (--one-server)' if args.one_server else ''}), {args.seconds:g} s per row, "
        f"{os.cpu_count()} CPUs, load average at the start: {load}",
        flush=True,
    )
    print(HEADER, flush=True)
    rows: list[dict[str, Any]] = []
    root = Path(tempfile.mkdtemp(prefix="cardtable-abuse-"))
    try:
        with contextlib.ExitStack() as shared:
            one = (
                shared.enter_context(server_for(root, "shared", None, proxied=args.proxy))
                if args.one_server
                else None
            )

            def row(attack: Attack | None, online_baseline: bool = False) -> dict[str, Any]:
                name = attack.name if attack else f"baseline{'-online' * online_baseline}"
                at_table = attack.online if attack else online_baseline
                if one is not None and not (attack and attack.nofile):
                    return run_row(one, attack, args, at_table=at_table)
                nofile = attack.nofile if attack else None
                with server_for(root, name, nofile, proxied=args.proxy) as s:
                    return run_row(s, attack, args, at_table=at_table)

            base = row(None)
            print(line(base), flush=True)
            base_online = row(None, True) if any(a.online for a in chosen) else None
            if base_online:
                print(line(base_online), flush=True)
            for attack in chosen:
                r = row(attack)
                judge(r, base_online if attack.online and base_online else base)
                print(line(r), flush=True)
                rows.append(r)
    except KeyboardInterrupt:
        print("interrupted: the attacker and the servers are stopped", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(root, ignore_errors=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\nwith the baseline of the same run (goal: the move's and GET /api/continue's p99 "
        f"each <= max({GOAL_P99_MS:g} ms, {GOAL_RATIO:g}x the baseline's), no 503, no failed "
        "request, every new client "
        f"answered, RSS < {GOAL_RSS_MIB:g} MiB); {time.monotonic() - started:.0f} s in all, "
        f"load average at the end: {load}"
    )
    print(HEADER)
    for r in [base, *([base_online] if base_online else []), *rows]:
        print(line(r))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([base, base_online, *rows], indent=2) + "\n")
    return 0 if all(r["goal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
