"""What the proxy does with a client's address: it reaches the server processes' per-address
limits as the client's own (not the proxy's, and not what the client claims), and the
proxy's own per-address limits stop a flood before it reaches a server process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import secrets
import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.server.online.helpers import Device

from .conftest import Site

FLOOD = 2000
CONN_LIMIT = 100
"""`limit_conn cardtable_conn` in deploy/nginx/cardtable/site.conf."""


def client(site: Site, address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (any 127.x.y.z is this machine)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=site.base, transport=transport, timeout=30)


def _lookups_until_refused(http: httpx.Client, player: str, most: int) -> int:
    """Room-code lookups of codes nobody has until one is refused with 429; how many."""
    for n in range(1, most + 1):
        code = "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(6))
        r = http.get(
            f"/api/kings-corner/online/codes/{code}",
            # The client claims another address: the proxy replaces the claim with the
            # address the connection comes from.
            headers={"X-Player-Id": player, "X-Forwarded-For": f"198.51.100.{n % 250}"},
        )
        if r.status_code == 429:
            assert r.json()["code"] == "rate_limited", r.text
            return n
        assert r.status_code == 404, r.text
    raise AssertionError(f"{most} lookups from one address were all answered")


def test_the_client_address_reaches_the_servers_per_address_limits(site: Site) -> None:
    # Lookups: 10 at once per address and process, then one per 5 s (OnlineSettings); the
    # proxy hands requests to the two processes in turn.
    with client(site, "127.0.0.2") as first, client(site, "127.0.0.3") as second:
        player = Device(first).player_id
        refused_at = _lookups_until_refused(first, player, 40)
        assert 10 < refused_at <= 22
        # Another address is not refused: the servers count by the client's address, not
        # the proxy's (127.0.0.1) nor the one the client claimed.
        code = "ZZZZZZ"
        r = second.get(f"/api/kings-corner/online/codes/{code}", headers={"X-Player-Id": player})
        assert r.status_code == 404, r.text
    addresses = {"127.0.0.2", "127.0.0.3"}
    logged = _logged_until(site, lambda log: addresses <= {e["client"] for e in log})
    assert addresses <= {e["client"] for e in logged}


def _logged(site: Site) -> list[dict[str, Any]]:
    """The proxy's access log (one JSON object per request, `cardtable_json`)."""
    return [json.loads(line) for line in site.proxy.access_log()]


def _logged_until(
    site: Site, done: Callable[[list[dict[str, Any]]], bool], within: float = 60.0
) -> list[dict[str, Any]]:
    """The proxy's access log once ``done`` holds of it (nginx writes a request's line when
    it has finished with the request, which may be after the client saw its answer). The
    deadline only ends a wait that would never end."""
    deadline = time.monotonic() + within
    while True:
        log = _logged(site)
        if done(log) or time.monotonic() > deadline:
            return log
        time.sleep(0.05)


async def _upgrade(port: int, path: str, source: str, held: list[asyncio.StreamWriter]) -> int:
    """Ask for a WebSocket upgrade from ``source``; the answer's status. The connection is
    kept open (``held``) so that every answered upgrade stays a live socket."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    held.append(writer)
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    line = await reader.readline()
    return int(line.split()[1])


async def _flood(port: int, path: str, source: str) -> list[int]:
    held: list[asyncio.StreamWriter] = []
    gate = asyncio.Semaphore(200)  # connections being set up at once (the listen backlog)

    async def one() -> int:
        async with gate:
            return await _upgrade(port, path, source, held)

    try:
        return list(await asyncio.gather(*(one() for _ in range(FLOOD))))
    finally:
        for writer in held:
            writer.close()
        for writer in held:
            with contextlib.suppress(OSError):
                await writer.wait_closed()


LIVE_RATE, LIVE_BURST = 2.0, 60
"""`cardtable_live` (http.conf) and its burst (site.conf)."""


def test_the_proxy_refuses_a_socket_flood_before_it_reaches_a_server(site: Site) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, FLOOD * 2 + 256)), hard))
    try:
        with client(site, "127.0.0.5") as http:
            created = Device(http).create()
        token = created["token"]
        path = f"/api/kings-corner/online/{token}/live"
        began = time.monotonic()
        statuses = asyncio.run(_flood(site.proxy.port, path, "127.0.0.4"))
        took = time.monotonic() - began
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert set(statuses) <= {101, 429}
    # At most the proxy's per-address connections are ever upgraded sockets.
    assert 0 < statuses.count(101) <= CONN_LIMIT

    # What reached the server processes (the proxy's log names a process for each request
    # it passed on): the burst and the rate of upgrades per address, nothing more.
    def flood_of(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in log if e["uri"] == path and e["client"] == "127.0.0.4"]

    # An upgraded socket's line is written when nginx has closed it.
    asked = flood_of(_logged_until(site, lambda log: len(flood_of(log)) >= FLOOD))
    assert len(asked) == FLOOD
    reached = [e for e in asked if e["upstream"]]
    assert 0 < len(reached) <= LIVE_BURST + 1 + LIVE_RATE * took
    refused = [e for e in asked if not e["upstream"]]
    assert {e["status"] for e in refused} == {429}
    # Everyone else is still served.
    with client(site, "127.0.0.6") as other:
        assert other.get("/healthz").status_code == 200


async def _held_bodies(port: int, source: str, count: int, answered: int) -> list[bytes]:
    """``count`` requests from ``source`` whose body never comes; the first ``answered``
    answers' status lines (the others wait for their bodies), then every connection closed."""
    opened = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        writer.write(
            f"POST /api/players HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n".encode()
        )
        await writer.drain()
        opened.append((reader, writer))
    waiting = [asyncio.ensure_future(reader.readline()) for reader, _ in opened]
    lines: list[bytes] = []
    try:
        for first in asyncio.as_completed(waiting):
            lines.append(await first)
            if len(lines) == answered:
                break
    finally:
        for task in waiting:
            task.cancel()
        for _, writer in opened:
            writer.close()
    return lines


def test_the_proxy_holds_connections_per_address_to_its_limit(site: Site) -> None:
    """`limit_conn`: requests in progress from one address beyond 100 are refused at once,
    and none of them (nor the held ones: nginx reads a body before passing a request on)
    reaches a server process."""
    answers = asyncio.run(_held_bodies(site.proxy.port, "127.0.0.7", CONN_LIMIT + 50, 50))
    assert all(a.startswith(b"HTTP/1.1 429") for a in answers), set(answers)
    # nginx logs a refused request when it is finished with it: after it has read (and
    # dropped) the body the request announced, here when the client has closed.
    from_there = _logged_until(
        site, lambda log: [e["status"] for e in log if e["client"] == "127.0.0.7"].count(429) >= 50
    )
    from_there = [e for e in from_there if e["client"] == "127.0.0.7"]
    assert [e["status"] for e in from_there].count(429) == 50
    assert not [e for e in from_there if e["upstream"]]
    assert 'limiting connections by zone "cardtable_conn"' in site.proxy.errors()
