"""Issue 27, the live channel's handshake rate, on a real server built as `cardtable serve`
builds it (`serving.uvicorn_config`, uvicorn on loopback, raw sockets): an address's
upgrades beyond its burst are answered HTTP 429 from the request head, before the upgrade
and without the app seeing them; another address has its own bucket; the bucket refills at
the rate (a frozen clock, moved by hand); behind a trusted proxy the forwarded address is
what counts.

Connections from several client addresses come from 127.0.0.x source addresses (all of
127/8 is loopback on Linux)."""

from __future__ import annotations

import asyncio
import base64
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.ratelimit import TokenBuckets
from cardtable.server.core.serving import uvicorn_config
from tests.support.aio import run
from tests.support.postgres import free_port

from .helpers import BASE

PATH = f"{BASE}/{'a' * 22}/live"  # no such table: an upgraded socket is closed with 4404


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Server:
    port: int
    clock: Clock
    upgrades: list[Any]
    """The scopes of the WebSocket connections that reached the app."""
    protocol: Any


@contextmanager
def serve(tmp_path: Path, *, burst: int, rate: float = 1.0, **more: Any) -> Iterator[Server]:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(live_handshake_rate=rate, live_handshake_burst=burst),
        **more,
    )
    app = create_app(settings)
    upgrades: list[Any] = []

    async def counting(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            upgrades.append(scope)
        await app(scope, receive, send)

    port = free_port()
    config = uvicorn_config(
        counting, settings, host="127.0.0.1", port=port, access_log=False, log_level="warning"
    )
    clock = Clock()
    protocol = config.http
    assert isinstance(protocol, type) and protocol.handshakes is not None
    assert (protocol.handshakes.rate, protocol.handshakes.burst) == (rate, burst)
    protocol.handshakes = TokenBuckets(rate, burst, clock=clock)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"rate-server-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield Server(port, clock, upgrades, protocol)
    finally:
        server.should_exit = True
        thread.join(20)


def upgrade_request(port: int, forwarded: str | None = None) -> bytes:
    key = base64.b64encode(secrets.token_bytes(16)).decode()
    lines = [
        f"GET {PATH} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if forwarded is not None:
        lines.append(f"X-Forwarded-For: {forwarded}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def handshakes(
    server: Server, source: str, count: int, forwarded: str | None = None
) -> list[tuple[int, dict[str, str]]]:
    """``count`` upgrades from ``source``, one after the other: each answer's status and
    headers (each connection closed once answered)."""
    answers: list[tuple[int, dict[str, str]]] = []

    async def main() -> None:
        for _ in range(count):
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", server.port, local_addr=(source, 0)
            )
            try:
                writer.write(upgrade_request(server.port, forwarded))
                # A guard against a hang, not a time bound: a loaded machine may be slow.
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 120)
            finally:
                writer.transport.abort()
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            answers.append((int(lines[0].split()[1]), headers))

    run(main(), timeout=300)
    return answers


def statuses(answers: list[tuple[int, dict[str, str]]]) -> list[int]:
    return [status for status, _ in answers]


def test_the_handshake_after_the_burst_is_refused_before_the_upgrade(tmp_path: Path) -> None:
    with serve(tmp_path, burst=5) as server:
        answers = handshakes(server, "127.0.0.21", 6)
        assert statuses(answers) == [101] * 5 + [429]
        _, headers = answers[-1]
        assert headers["retry-after"] == "1"
        assert headers["connection"] == "close"
        assert "upgrade" not in headers and "sec-websocket-accept" not in headers
        # The refused one never reached the app (no scope, no route, no store).
        assert len(server.upgrades) == 5
        assert server.protocol.refused_handshakes == 1
        # Refused again while the clock stands still; another address has its own bucket.
        assert statuses(handshakes(server, "127.0.0.21", 2)) == [429, 429]
        assert statuses(handshakes(server, "127.0.0.22", 5)) == [101] * 5
        assert len(server.upgrades) == 10
        assert server.protocol.refused_handshakes == 3
        assert statuses(handshakes(server, "127.0.0.22", 1)) == [429]
        # Plain HTTP from a limited address is not affected.
        transport = httpx.HTTPTransport(local_address="127.0.0.21")
        with httpx.Client(transport=transport, timeout=10) as http:
            assert http.get(f"http://127.0.0.1:{server.port}/healthz").status_code == 200


def test_the_bucket_refills_at_the_rate(tmp_path: Path) -> None:
    with serve(tmp_path, burst=3, rate=2.0) as server:
        assert statuses(handshakes(server, "127.0.0.23", 4)) == [101, 101, 101, 429]
        server.clock.now += 0.5  # one token back (2 a second)
        assert statuses(handshakes(server, "127.0.0.23", 2)) == [101, 429]
        server.clock.now += 0.25  # half a token: still refused, told to wait 1 s
        answers = handshakes(server, "127.0.0.23", 1)
        assert statuses(answers) == [429] and answers[0][1]["retry-after"] == "1"
        server.clock.now += 10.0  # full again, never beyond the burst
        assert statuses(handshakes(server, "127.0.0.23", 4)) == [101, 101, 101, 429]
        assert len(server.upgrades) == 3 + 1 + 3


def test_behind_a_trusted_proxy_the_forwarded_address_counts(tmp_path: Path) -> None:
    with serve(tmp_path, burst=2, forwarded_allow_ips=("127.0.0.24",)) as server:
        proxy = "127.0.0.24"
        assert statuses(handshakes(server, proxy, 3, forwarded="198.51.100.7")) == [
            101,
            101,
            429,
        ]
        # Another client behind the same proxy; an IPv6 client is counted by its /64.
        assert statuses(handshakes(server, proxy, 2, forwarded="198.51.100.8")) == [101, 101]
        assert statuses(handshakes(server, proxy, 1, forwarded="2001:db8:1:2::1")) == [101]
        assert statuses(handshakes(server, proxy, 2, forwarded="2001:db8:1:2:ffff::9")) == [
            101,
            429,
        ]
        # An untrusted peer's X-Forwarded-For is ignored: its own address counts.
        assert statuses(handshakes(server, "127.0.0.25", 3, forwarded="203.0.113.1")) == [
            101,
            101,
            429,
        ]
