"""The connection guards of `cardtable serve` (server/core/serving.py) on a real uvicorn in this
process, with the protocol classes `cardtable serve` builds from its settings and a tiny ASGI
app: the HTTP connection cap (evict the idle-longest, else 503), the request deadline, the
handshake rate keyed by the client a trusted proxy names, the live-socket cap dropping
sockets that only wait for a close answer, the app's evict; and the pure parts (trusted
proxies, the log filter's memory, the default connection limit)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import connect

from cardtable.server import Settings
from cardtable.server.core import serving
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.serving import (
    BUSY,
    EVICT,
    GuardedH11Protocol,
    QuietRepeats,
    TrustedProxies,
    default_max_connections,
    http_protocol,
    quiet_logs,
    websocket_options,
)
from tests.support.postgres import free_port

UPGRADE = (
    "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n"
)


class App:
    """HTTP: 200 ``ok`` (``/slow`` first waits for `gate`). WebSocket: accepted; ``/close``
    closes at once, ``/evict`` is evicted by the app (twice), anything else echoes."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.slow_started = threading.Event()
        self.disconnects: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            if scope["path"] == "/slow":
                self.slow_started.set()
                deadline = time.monotonic() + 10
                while not self.gate.is_set() and time.monotonic() < deadline:
                    await asyncio.sleep(0.01)
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-length", b"2")],
                }
            )
            await send({"type": "http.response.body", "body": b"ok"})
            return
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        if scope["path"] == "/close":
            await send({"type": "websocket.close", "code": 1000})
        elif scope["path"] == "/evict":
            scope["extensions"][EVICT](4000, "evicted")
            scope["extensions"][EVICT](4001, "again")  # closed already: nothing more
            self.disconnects.append(await receive())
        else:
            while (message := await receive())["type"] == "websocket.receive":
                await send({"type": "websocket.send", "text": message["text"]})


class Recorded(GuardedH11Protocol):
    """Set per server: every HTTP protocol instance, in order (to reach one from the test)."""

    made: list[GuardedH11Protocol]


@contextlib.contextmanager
def guarded(settings: Settings, app: App) -> Iterator[tuple[int, Any, Any]]:
    """uvicorn in a thread with `cardtable serve`'s HTTP and WebSocket protocols for
    ``settings``: yields (port, HTTP protocol class, WebSocket protocol class)."""
    made: list[GuardedH11Protocol] = []
    base = http_protocol(settings)

    def connection_made(self: GuardedH11Protocol, transport: Any) -> None:
        made.append(self)
        base.connection_made(self, transport)

    http = type("RecordedH11", (base,), {"connection_made": connection_made, "made": made})
    ws = websocket_options(settings)
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, loop="asyncio", lifespan="off", log_level="error",
        http=http, ws=ws["ws"], ws_per_message_deflate=False,
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield port, http, ws["ws"]
    finally:
        app.gate.set()
        server.should_exit = True
        thread.join(10)


def settings_for(tmp_path: Path, **kwargs: Any) -> Settings:
    online = OnlineSettings(
        max_live=kwargs.pop("max_live", 1),
        live_handshake_rate=kwargs.pop("handshake_rate", None),
        live_handshake_burst=kwargs.pop("handshake_burst", 1),
    )
    return Settings(data_dir=tmp_path, database_url=None, online=online, **kwargs)


def until(check: Any, what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def opened(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes (or resets) the connection."""
    out = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            out += chunk
    return out


def get(port: int, path: str = "/") -> bytes:
    with opened(port) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return read_all(sock)


def head_of(sock: socket.socket) -> bytes:
    """The response head (through the blank line)."""
    out = b""
    while b"\r\n\r\n" not in out:
        chunk = sock.recv(1)
        assert chunk, out
        out += chunk
    return out


def test_trusted_proxies_names_everyone_bad_addresses_and_empty_headers() -> None:
    proxies = TrustedProxies(["10.0.0.0/8", "/run/proxy.sock", "2001:db8::1"])
    assert "/run/proxy.sock" in proxies  # a name (not an address) matches as text
    assert "10.2.3.4" in proxies and "2001:db8::1" in proxies
    assert "11.0.0.1" not in proxies and "not-an-address" not in proxies
    assert proxies.client("") is None and proxies.client(" , ,") is None
    assert proxies.client("198.51.100.7, 10.0.0.9") == "198.51.100.7"
    assert proxies.client("10.0.0.1, 10.0.0.2") == "10.0.0.1"  # all trusted: the leftmost
    everyone = TrustedProxies(["*"])
    assert "anything" in everyone and "203.0.113.1" in everyone
    assert everyone.client(" 198.51.100.7 , 203.0.113.1") == "198.51.100.7"


def test_over_the_cap_with_every_connection_busy_a_new_one_gets_503(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()
    # 3 connections, 1 of them live: HTTP keeps 2, so 1 open beside a newcomer.
    settings = settings_for(tmp_path, max_connections=3, request_timeout=30)
    with guarded(settings, app) as (port, http, _), opened(port) as busy:
        assert http.max_connections == 1
        busy.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert app.slow_started.wait(5)
        with opened(port) as refused:  # the only connection is busy with a request
            assert read_all(refused) == BUSY
        app.gate.set()
        assert read_all(busy).endswith(b"\r\n\r\nok")  # the busy one was not touched
        until(lambda: not http.http_open, "the answered connection never closed")
        assert get(port).endswith(b"\r\n\r\nok")


def test_a_new_connection_evicts_the_one_idle_longest(tmp_path: Path) -> None:
    app = App()
    # 4 connections, 1 of them live: HTTP keeps 3, so 2 open beside a newcomer.
    settings = settings_for(tmp_path, max_connections=4, request_timeout=30)
    with guarded(settings, app) as (port, http, _), opened(port) as oldest:
        assert http.max_connections == 2
        until(lambda: len(http.http_open) == 1, "the first connection was not seen")
        with opened(port) as newer:
            until(lambda: len(http.http_open) == 2, "the second connection was not seen")
            started = time.monotonic()
            assert get(port).endswith(b"\r\n\r\nok")  # the third is served at once
            assert read_all(oldest) == b"" and time.monotonic() - started < 3  # evicted
            newer.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert read_all(newer).endswith(b"\r\n\r\nok")  # kept


def test_the_request_deadline_cuts_idle_and_half_requests_only(tmp_path: Path) -> None:
    app = App()
    settings = settings_for(tmp_path, request_timeout=0.5)
    with guarded(settings, app) as (port, http, _):
        with opened(port) as silent, opened(port) as half, opened(port) as slow:
            half.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert app.slow_started.wait(5)
            started = time.monotonic()
            assert read_all(silent) == b"" and read_all(half) == b""
            assert 0.2 < time.monotonic() - started < 3
            # After an answer the deadline starts again (not uvicorn's 5 s keep-alive).
            with opened(port) as again:
                again.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                started = time.monotonic()
                assert read_all(again).endswith(b"\r\n\r\nok")  # then closed, unasked
                assert time.monotonic() - started < 3
            # A whole request whose answer takes longer than the deadline is not cut.
            time.sleep(0.5)
            app.gate.set()
            assert read_all(slow).endswith(b"\r\n\r\nok")
        # A connection that became a WebSocket is left alone when its deadline fires.
        with connect(f"ws://127.0.0.1:{port}/echo", open_timeout=5) as ws:
            ws.send("one")
            assert ws.recv(5) == "one"
            upgraded = http.made[-1]
            assert upgraded.transport.get_protocol() is not upgraded
            asyncio.run_coroutine_threadsafe(fire(upgraded), upgraded.loop).result(5)
            ws.send("two")
            assert ws.recv(5) == "two"


async def fire(protocol: GuardedH11Protocol) -> None:
    protocol._expired()


@pytest.mark.parametrize("trusted", [(), ("127.0.0.1",)])
def test_the_handshake_rate_is_kept_per_client_a_trusted_proxy_names(
    tmp_path: Path, trusted: tuple[str, ...]
) -> None:
    app = App()
    settings = settings_for(
        tmp_path, max_live=8, handshake_rate=0.001, handshake_burst=1, forwarded_allow_ips=trusted
    )
    with guarded(settings, app) as (port, http, _):

        def upgrade(extra: str = "") -> bytes:
            with opened(port) as sock:
                sock.sendall(UPGRADE.format(path="/echo", extra=extra).encode())
                return head_of(sock).split(b"\r\n", 1)[0]

        # Upgrades without X-Forwarded-For take the peer address's tokens.
        assert upgrade() == b"HTTP/1.1 101 Switching Protocols"
        assert upgrade() == b"HTTP/1.1 429 Too Many Requests"
        named = upgrade("X-Forwarded-For: 203.0.113.9\r\n")
        if trusted:  # a client the trusted proxy names has a bucket of its own
            assert named == b"HTTP/1.1 101 Switching Protocols"
            assert upgrade("X-Forwarded-For: 203.0.113.9\r\n") == b"HTTP/1.1 429 Too Many Requests"
            assert http.refused_handshakes == 2
        else:  # from anyone else the header changes nothing
            assert named == b"HTTP/1.1 429 Too Many Requests"
            assert http.refused_handshakes == 2


def test_the_live_cap_drops_sockets_waiting_for_a_close_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serving, "CLOSE_TIMEOUT", 10.0)  # the drop, not the timeout, ends it
    app = App()
    with guarded(settings_for(tmp_path, max_live=1), app) as (port, _, ws_class):
        assert ws_class.max_open == 1
        with opened(port) as closing:
            # The app closes this socket; the client never answers the close.
            closing.sendall(UPGRADE.format(path="/close", extra="").encode())
            assert head_of(closing).startswith(b"HTTP/1.1 101")
            until(lambda: any(p.close_sent for p in list(ws_class.ws_open)), "no close was sent")
            started = time.monotonic()
            with connect(f"ws://127.0.0.1:{port}/echo", open_timeout=5) as ws:
                closing.settimeout(5)
                read_all(closing)  # the close frame, then the abort
                assert time.monotonic() - started < 3  # well before the 10 s close timeout
                assert len(ws_class.ws_open) == 1
                ws.send("still here")
                assert ws.recv(5) == "still here"


def test_the_app_evicts_a_live_socket_once(tmp_path: Path) -> None:
    app = App()
    with guarded(settings_for(tmp_path, max_live=4), app) as (port, _, ws_class):
        with connect(f"ws://127.0.0.1:{port}/evict", open_timeout=5) as ws:
            with pytest.raises(Exception) as closed:
                ws.recv(5)
            assert "4000" in str(closed.value) and "evicted" in str(closed.value)
        until(lambda: app.disconnects, "the app was not told")
        assert app.disconnects == [
            {"type": "websocket.disconnect", "code": 4000, "reason": "evicted"}
        ]
        until(lambda: not ws_class.ws_open, "the evicted socket stayed open")


def test_the_log_filter_forgets_old_messages() -> None:
    quiet = QuietRepeats(burst=1, period=3600)

    def passes(i: int) -> bool:
        return quiet.filter(logging.LogRecord("t", logging.ERROR, "f", 1, f"m{i}", None, None))

    assert all(passes(i) for i in range(1001))
    assert len(quiet._seen) == 501  # the 500 oldest of 1001 were forgotten
    assert not passes(1000)  # recent: still counted
    assert passes(0)  # forgotten: let through again


def test_quiet_logs_installs_one_filter_per_logger() -> None:
    loggers = [logging.getLogger(name) for name in serving.QUIET_LOGGERS]
    before = [list(logger.filters) for logger in loggers]
    try:
        quiet_logs()
        quiet_logs()
        for logger in loggers:
            assert sum(isinstance(f, QuietRepeats) for f in logger.filters) == 1
    finally:
        for logger, filters in zip(loggers, before, strict=True):
            logger.filters[:] = filters


@pytest.mark.parametrize(
    ("soft", "expected"),
    [(resource.RLIM_INFINITY, 4096), (1_000_000, 4096), (1024, 896), (40, 30), (9, 8)],
)
def test_the_default_connection_limit_follows_the_file_limit(
    monkeypatch: pytest.MonkeyPatch, soft: int, expected: int
) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda _: (soft, resource.RLIM_INFINITY))
    assert default_max_connections() == expected
