"""In-process token buckets: a per-player limit on API requests and a per-address limit on
new player ids (so the players table cannot be grown without bound from one address).

Each key gets a bucket of ``burst`` tokens refilled at ``rate`` per second; a request takes
one token or is refused with the seconds until one is back (the ``Retry-After`` answer).
Buckets live in one bounded LRU map per limit, so a flood of keys cannot grow memory without
bound. The limits are per server process: several processes behind a load balancer each keep
their own (docs/reliability.md); the ones that must hold across processes are kept in the
store (limits_store.py).

Every per-address limit counts a client under `client_key`: an IPv4 address as itself (/32),
an IPv6 address by its /64 (one subscriber's network: a host picks any of its 2^64 addresses
at will), an IPv4-mapped IPv6 address as the IPv4 address it carries.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from starlette.requests import HTTPConnection

MAX_KEYS = 50_000
IPV6_PREFIX = 64
"""The IPv6 network one client is counted as: a /64 is what one subscriber line or host is
given, and a host may change its address within it at will (privacy addresses)."""


def client_key(address: str) -> str:
    """The key a per-address limit counts ``address`` under: ``"192.0.2.7/32"`` for an IPv4
    address (also when it comes IPv4-mapped, ``::ffff:192.0.2.7``), ``"2001:db8:1:2::/64"``
    for any IPv6 address in that /64 (a zone such as ``%eth0`` is dropped); anything that is
    not an IP address (``"unknown"``, a test client's name) as given."""
    try:
        ip = ipaddress.ip_address(address.strip().partition("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        else:
            return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return f"{ip}/32"


def request_key(connection: HTTPConnection) -> str:
    """`client_key` of a request's (or a WebSocket's) client address: the connection's peer,
    or the address a trusted proxy forwarded (`Settings.forwarded_allow_ips`)."""
    client = connection.client
    return client_key(client.host if client is not None else "unknown")


def spend(tokens: float, elapsed: float, rate: float, burst: float) -> tuple[float, float]:
    """One take from a bucket that held ``tokens`` ``elapsed`` seconds ago: (tokens left,
    0.0) when one was there to take, else (tokens now, seconds until one is back). Shared by
    these in-process buckets and the stored ones (limits_store.py)."""
    tokens = min(burst, tokens + max(0.0, elapsed) * rate)
    if tokens >= 1.0:
        return tokens - 1.0, 0.0
    return tokens, (1.0 - tokens) / rate


class TokenBuckets:
    def __init__(
        self,
        rate: float,
        burst: float,
        *,
        max_keys: int = MAX_KEYS,
        clock: Callable[[], float] = time.monotonic,
        reason: str = "other",
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a rate limit needs rate > 0 and burst >= 1")
        self.reason = reason
        """The ``reason`` a refusal is counted under (``cardtable_refused_total``)."""
        self.rate = rate
        self.burst = float(burst)
        self.max_keys = max_keys
        self.clock = clock
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at

    def take(self, key: str) -> float:
        """0.0 when ``key`` may go ahead (one token taken); else the seconds to wait."""
        now = self.clock()
        with self._lock:
            tokens, at = self._buckets.pop(key, (self.burst, now))
            tokens, wait = spend(tokens, now - at, self.rate, self.burst)
            self._buckets[key] = (tokens, now)
            if len(self._buckets) > self.max_keys:
                # The least recently seen key goes; it would be nearly full again by now.
                self._buckets.popitem(last=False)
            return wait

    def empty(self, key: str) -> float:
        """The seconds until ``key`` has a token again (0.0: it has one now); nothing taken,
        and a key not seen yet has a full bucket."""
        now = self.clock()
        with self._lock:
            found = self._buckets.get(key)
        if found is None:
            return 0.0
        tokens, at = found
        return spend(tokens, now - at, self.rate, self.burst)[1]


def retry_after(wait: float) -> str:
    """The ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
