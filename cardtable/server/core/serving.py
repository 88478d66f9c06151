"""How `cardtable serve` runs uvicorn: connection limits, timeouts, proxy trust and logs that
cannot flood the disk (docs/reliability.md, "Connections").

- `GuardedH11Protocol`, uvicorn's h11 protocol with two additions:
  - a *request deadline*: a connection must deliver a whole request (head and body) within
    `Settings.request_timeout` seconds of opening, or of its previous answer; otherwise it
    is closed. uvicorn's own keep-alive timeout only covers a connection that sends nothing,
    so one that sends half its headers (or one byte every few seconds) would stay for ever;
  - a *connection cap*: at `Settings.max_connections` open connections, a new one first
    evicts the connection that has been idle longest (between requests, or still sending its
    head); if every connection is busy with a request, the new one is answered 503 and
    closed at once. Slow or idle clients therefore cannot lock a fresh client out, and the
    process never runs out of file descriptors on sockets.
  Only HTTP connections count against this cap: a WebSocket is handed to uvicorn's
  WebSocket protocol on upgrade and leaves it;
  - a *handshake rate*: a WebSocket upgrade (the live channel) takes a token from its client
    address's bucket (`OnlineSettings.live_handshake_rate` after `live_handshake_burst`,
    keyed by `ratelimit.client_key`: IPv6 by /64) before anything else is done with it; with
    none left it is answered HTTP 429 with ``Retry-After`` and closed, from the request head
    alone: no WebSocket handshake, no app, no store. A client whose sockets a cap evicts
    cannot make the server pay a handshake, hello and table push more often than that.
- `GuardedWebSocketProtocol`, uvicorn's sans-I/O WebSocket protocol with a live-socket cap
  of its own (`connection_budgets`: by default half of the connection limit, the app evicting
  beyond it, online/live.py), a one-second wait for the peer's answer to a close (not 10 s:
  a client that never answers must not hold a file descriptor), and, over the cap, the
  sockets already closing dropped first. Frames are limited to
  `OnlineSettings.live_max_bytes` *before* they are read (uvicorn refuses a longer frame from
  its header and closes with 1009), without per-message compression.
- `QuietRepeats`: a logging filter that lets the same message through at most a few times
  a minute, then counts the rest and says how many were dropped (the file-descriptor limit
  or a storm of refused connections must not write megabytes of identical tracebacks).
- `uvicorn_config`: everything together; proxy headers (``X-Forwarded-For``/``-Proto``) are
  trusted only from `Settings.forwarded_allow_ips` (default: from nobody), the
  ``server: uvicorn`` banner is off, and log lines are text or JSON (logs.py).
Connections refused by the cap or the handshake rate are counted in
``cardtable_refused_total`` (metrics.py).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import resource
import socket
import time
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

from cardtable.server.core.logs import log_config
from cardtable.server.core.metrics import LIVE_CLOSED, count_refusal
from cardtable.server.core.ratelimit import TokenBuckets, client_key, retry_after
from cardtable.server.core.settings import Settings

_BUSY_BODY = b'{"code":"unavailable","message":"too many connections; try again"}'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"retry-after: 1\r\nconnection: close\r\ncontent-length: "
    + str(len(_BUSY_BODY)).encode()
    + b"\r\n\r\n"
    + _BUSY_BODY
)

_SLOW_BODY = (
    b'{"code":"rate_limited","message":"too many live connections opened; try again later"}'
)


def too_many_handshakes(wait: float) -> bytes:
    """The answer to an upgrade over the handshake rate: 429, ``Retry-After``, closed."""
    return (
        b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
        b"retry-after: " + retry_after(wait).encode() + b"\r\nconnection: close\r\n"
        b"content-length: " + str(len(_SLOW_BODY)).encode() + b"\r\n\r\n" + _SLOW_BODY
    )


class TrustedProxies:
    """The proxies of `Settings.forwarded_allow_ips` (addresses, networks or ``*``), and the
    client an ``X-Forwarded-For`` names when one of them sends it: read from the right, the
    first address that is not a trusted proxy (everything trusted: the leftmost), as uvicorn's
    proxy-headers middleware reads it for the app."""

    def __init__(self, allowed: list[str]) -> None:
        self.everyone = "*" in allowed
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self.names: set[str] = set()
        for item in allowed:
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self.names.add(item)  # a name (a unix socket path, say): matched as text

    def __contains__(self, host: str) -> bool:
        if self.everyone or host in self.names:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def client(self, forwarded_for: str) -> str | None:
        hosts = [h.strip() for h in forwarded_for.split(",") if h.strip()]
        if not hosts:
            return None
        if self.everyone:
            return hosts[0]
        return next((h for h in reversed(hosts) if h not in self), hosts[0])


class GuardedH11Protocol(H11Protocol):
    request_timeout: float = 10.0
    max_connections: int | None = None
    http_open: ClassVar[set[GuardedH11Protocol]] = set()
    """This server's open HTTP connections (a subclass per server: `uvicorn_config`)."""
    handshakes: ClassVar[TokenBuckets | None] = None
    """WebSocket upgrades per client address (None: no limit; a subclass per server)."""
    trusted_proxies: ClassVar[TrustedProxies | None] = None
    """Peers whose ``X-Forwarded-For`` names the client (`Settings.forwarded_allow_ips`)."""
    refused_handshakes: ClassVar[int] = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: Any = None
        self._idle_since = time.monotonic()

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        _no_delay(transport)
        self.http_open.add(self)
        limit = self.max_connections
        if limit is not None and len(self.http_open) > limit and not self._evict():
            _log.warning("too many connections (%d): refused one with 503", limit)
            count_refusal("connections_full")
            transport.write(BUSY)
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.http_open.discard(self)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # From here on a live socket (counted by `GuardedWebSocketProtocol`, not as HTTP),
        # or refused and closed.
        self._disarm()
        self.http_open.discard(self)
        buckets = self.handshakes
        if buckets is not None:
            wait = buckets.take(client_key(self._client_host()))
            if wait > 0.0:
                count_refusal(buckets.reason)
                count = type(self).refused_handshakes = self.refused_handshakes + 1
                if count % 1000 == 1:  # not one log record each: a flood costs enough
                    _log.warning("live handshakes over the rate: %d refused with 429", count)
                self.connections.discard(self)
                self.transport.write(too_many_handshakes(wait))
                self.transport.close()
                return
        super().handle_websocket_upgrade(event)

    def _client_host(self) -> str:
        """The client's address as the app will see it: the peer, or, from a trusted proxy,
        the address its ``X-Forwarded-For`` gives (as uvicorn's proxy middleware reads it)."""
        peer = self.client[0] if self.client else "unknown"
        trusted = self.trusted_proxies
        if trusted is None or peer not in trusted:
            return peer
        forwarded = [v for n, v in self.headers if n == b"x-forwarded-for"]
        if not forwarded:
            return peer
        return trusted.client(b", ".join(forwarded).decode("latin1")) or peer

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._idle_since = time.monotonic()
        self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _waiting(self) -> bool:
        """True while no whole request has arrived since the connection opened or since its
        last answer (nothing received yet, or a head or body still coming in)."""
        return self.conn.their_state in (h11.IDLE, h11.SEND_BODY)

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # closed already, or now a WebSocket
        if self._waiting():
            self.transport.close()

    def _evict(self) -> bool:
        """Close the connection idle longest (not this one); False if none is idle."""
        oldest: GuardedH11Protocol | None = None
        for other in self.http_open:
            if (
                other is not self
                and other.transport is not None
                and not other.transport.is_closing()
                and other.transport.get_protocol() is other
                and other._waiting()
                and (oldest is None or other._idle_since < oldest._idle_since)
            ):
                oldest = other
        if oldest is None:
            return False
        oldest._disarm()
        oldest.transport.close()
        self.connections.discard(oldest)
        self.http_open.discard(oldest)
        return True


def _no_delay(transport: Any) -> None:
    """TCP_NODELAY on the connection. asyncio sets it only on sockets whose ``proto`` is TCP,
    and a listening socket handed to uvicorn's workers (`--workers`) arrives with ``proto``
    0: its connections then waited for the client's delayed ACK before a second segment of
    an answer (docs/performance.md has the measurement and its command)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


READ_SLICE = 4096
"""Bytes of a live socket's input parsed at a time (`GuardedWebSocketProtocol`)."""


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol with caps: the open sockets (`max_open`), and a flood of
    messages (`max_unread`).

    A socket's input is parsed in slices of `READ_SLICE` bytes. One read from the kernel can
    bring 256 KiB, and uvicorn parses and queues every message in it before the event loop
    does anything else: 64-125 KiB of small text frames (a client sending as fast as its
    socket takes them, through a proxy that passes big chunks on) held the loop 40-100 ms
    while it queued thousands of messages the app would never read (it closes the socket
    after its message budget, online/live.py). Past `max_unread` messages waiting for the
    app, the socket is closed with 1008 and the rest of its input dropped unparsed."""

    max_open: int | None = None
    """Live sockets this server keeps (transport level; the app's own budget evicts first)."""
    max_unread: int | None = None
    """Messages read and not yet taken by the app past which the socket is closed (1008):
    above the app's message budget (`OnlineSettings.live_message_burst`), so the app's own
    budget closes (and counts) a flood first; this bounds what is parsed before it does."""
    ws_open: ClassVar[dict[GuardedWebSocketProtocol, None]] = {}
    """This server's open WebSocket connections, oldest first (a subclass per server)."""
    flood_closes: ClassVar[int] = 0
    """Sockets closed for `max_unread`, by every server in this process (for tests)."""
    discarding: bool = False
    """Closed with ``linger`` (a flood): input that still arrives is dropped unparsed. A
    socket closed the ordinary way goes on parsing, to read the peer's close reply and
    finish the closing handshake at once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.close_timeout = CLOSE_TIMEOUT

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.ws_open[self] = None
        limit = self.max_open
        if limit is not None and len(self.ws_open) > limit:
            self._drop_closing(len(self.ws_open) - limit)

    def connection_lost(self, exc: Exception | None) -> None:
        self.ws_open.pop(self, None)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        limit = self.max_unread
        if limit is None:
            super().data_received(data)
            return
        for start in range(0, len(data), READ_SLICE):
            transport = self.transport
            if self.discarding or transport is None or transport.is_closing():
                return  # closed for a flood: what is left is never parsed
            super().data_received(data[start : start + READ_SLICE])
            if self.handshake_complete and self.queue.qsize() > limit and not self.close_sent:
                GuardedWebSocketProtocol.flood_closes += 1
                LIVE_CLOSED.labels(reason="too many messages").inc()
                self.evict(POLICY_VIOLATION, "too many messages", linger=True)
                return

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None:
            scope["extensions"][EVICT] = self.evict

    def evict(self, code: int, reason: str, *, linger: bool = False) -> bool:
        """Close now: the close frame is written and the socket closed without waiting for
        the peer's answer or for the app's handler (which is told the connection is gone).
        What the app calls when a cap lets a newer connection in (online/hub.py). With
        ``linger`` (a flood, online/live.py) nothing more is read, but the socket stays open
        for `CLOSE_TIMEOUT` so the peer reads what was sent before the close frame (closing
        a socket with unread data resets it, and the peer may lose its last messages).
        Whether it closed the socket now (False: it was closed or closing already)."""
        transport = self.transport
        if self.close_sent or transport is None or transport.is_closing():
            return False
        if self.handshake_complete:
            self.conn.send_close(code, reason)
            transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        if linger:
            self.discarding = True
            transport.pause_reading()
            self.read_paused = True
            self.loop.call_later(CLOSE_TIMEOUT, transport.close)
            return True
        transport.close()
        return True

    def _drop_closing(self, excess: int) -> None:
        """Over the cap: abort sockets that have sent their close and only wait for the
        peer's answer, oldest first (the app already let them go)."""
        for other in list(self.ws_open):
            if excess <= 0:
                return
            if other is not self and other.close_sent and other.transport is not None:
                self.ws_open.pop(other, None)
                other.transport.abort()
                excess -= 1


EVICT = "cardtable.evict"
"""The ASGI scope extension under which `GuardedWebSocketProtocol.evict` is offered."""
CLOSE_TIMEOUT = 1.0
"""Seconds a closed live socket waits for the peer's close frame before its transport is
closed anyway (uvicorn's default, 10 s, lets a client that never answers hold the socket)."""
POLICY_VIOLATION = 1008
"""The close code of a socket past its message budget (RFC 6455; online/live.py too)."""


_log = logging.getLogger("cardtable.server")


class QuietRepeats(logging.Filter):
    """Let each distinct message (logger and format string) through ``burst`` times per
    ``period`` seconds; drop the rest and report how many were dropped on the next one let
    through. Exceptions' tracebacks are kept only on the messages let through."""

    def __init__(self, burst: int = 5, period: float = 60.0) -> None:
        super().__init__()
        self.burst, self.period = burst, period
        self._seen: dict[tuple[str, str], tuple[float, int, int]] = {}  # start, let, dropped

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg))
        now = time.monotonic()
        start, let, dropped = self._seen.get(key, (now, 0, 0))
        if now - start >= self.period:
            start, let = now, 0
        if let >= self.burst:
            self._seen[key] = (start, let, dropped + 1)
            return False
        if dropped:
            record.msg = f"{record.msg} ({dropped} similar messages were dropped)"
            dropped = 0
        self._seen[key] = (start, let + 1, dropped)
        if len(self._seen) > 1000:  # bounded: forget the oldest keys
            for old in list(self._seen)[:500]:
                del self._seen[old]
        return True


QUIET_LOGGERS = ("asyncio", "uvicorn.error", "cardtable.server")


def quiet_logs() -> None:
    """Install `QuietRepeats` on the loggers that report errors (not the access log: it has
    one line per answered request, bounded by the request rate)."""
    for name in QUIET_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietRepeats) for f in logger.filters):
            logger.addFilter(QuietRepeats())


def default_max_connections() -> int:
    """Open connections allowed: the file-descriptor limit less a reserve for the store, the
    search processes' pipes, the site's files and the log (at most 4096)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 4096
    return max(8, min(4096, soft - min(128, soft // 4)))


def connection_budgets(settings: Settings) -> tuple[int, int]:
    """(HTTP connections, live sockets) a server process keeps: the connection limit
    (`Settings.max_connections` or `default_max_connections`) split so that live sockets
    have a budget of their own (`OnlineSettings.max_live`, by default half) and can never
    take the connections HTTP requests need."""
    total = settings.max_connections or default_max_connections()
    live = settings.online.max_live or max(1, total // 2)
    return max(2, total - live), live


def max_unread(settings: Settings) -> int | None:
    """`GuardedWebSocketProtocol.max_unread` for ``settings``: four times the message
    budget's burst, at least 64 (None when messages are not limited)."""
    online = settings.online
    if online.live_message_rate is None:
        return None
    return max(64, 4 * online.live_message_burst)


def websocket_options(settings: Settings) -> dict[str, Any]:
    """The `uvicorn.Config` arguments for the live channel: the WebSocket protocol (with its
    socket cap), the frame size limit enforced before reading, no compression."""
    _, live = connection_budgets(settings)
    protocol = type(
        "CardtableWebSocketProtocol",
        (GuardedWebSocketProtocol,),
        {"max_open": live, "max_unread": max_unread(settings), "ws_open": {}},
    )
    return {
        "ws": protocol,
        "ws_max_size": settings.online.live_max_bytes,
        # Off: every message is small, and compression costs memory per socket (a 16 MiB
        # frame was inflated before any check) for nothing measurable on this traffic.
        "ws_per_message_deflate": False,
    }


def http_protocol(settings: Settings) -> type[GuardedH11Protocol]:
    """The HTTP protocol class of one server process, with its own connection set, cap,
    request deadline and handshake buckets."""
    http, _ = connection_budgets(settings)
    trusted = list(settings.forwarded_allow_ips)
    rate, burst = settings.online.live_handshake_rate, settings.online.live_handshake_burst
    return type(
        "CardtableH11Protocol",
        (GuardedH11Protocol,),
        {
            "request_timeout": settings.request_timeout,
            "max_connections": http - 1,
            "http_open": set(),
            "handshakes": None
            if rate is None
            else TokenBuckets(rate, burst, reason="live_handshake_rate"),
            "trusted_proxies": TrustedProxies(trusted) if trusted else None,
            "refused_handshakes": 0,
        },
    )


def uvicorn_config(
    app: Any,
    settings: Settings,
    *,
    host: str,
    port: int,
    access_log: bool = True,
    log_level: str = "info",
    workers: int = 1,
    loop: str = "asyncio",
    log_format: str = "text",
) -> uvicorn.Config:
    """The whole uvicorn configuration. With ``workers`` > 1, ``app`` is the import string of
    an app factory and the protocols are named by import string too (`cardtable.cli.
    serve_workers`): each worker process builds its own app, caps and buckets from the same
    settings, since uvicorn starts workers by *spawn* and a class made here cannot travel.
    ``log_format`` ``json`` makes every log line one JSON object (logs.py); the logging
    configuration travels to the workers inside the uvicorn configuration."""
    http, live = connection_budgets(settings)
    trusted = list(settings.forwarded_allow_ips)
    options: dict[str, Any] = {"http": http_protocol(settings), **websocket_options(settings)}
    if log_format != "text":
        options["log_config"] = log_config(log_format)
    if workers > 1:
        options |= {
            "http": "cardtable.cli.serve_workers:http_protocol",
            "ws": "cardtable.cli.serve_workers:ws_protocol",
            "factory": True,
            "workers": workers,
            # The supervisor pings each worker and restarts one that does not answer in
            # time; a worker importing the site on a busy machine takes more than uvicorn's
            # 5 s, and was killed and restarted for ever.
            "timeout_worker_healthcheck": 60,
        }
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        loop=loop,
        log_level=log_level,
        access_log=access_log,
        server_header=False,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or [],
        # uvicorn answers 503 itself once this many connections (HTTP and live) or tasks
        # are open: a backstop only, the caps above keep well below it (a live socket's
        # handler may still be finishing after its socket was evicted and closed).
        limit_concurrency=http + 2 * live,
        timeout_keep_alive=settings.keep_alive_timeout,
        timeout_graceful_shutdown=10,
        backlog=min(2048, http + live),
        **options,
    )
