"""In-process token buckets: a per-player limit on API requests and a per-address limit on
new player ids (so the players table cannot be grown without bound from one address).

Each key gets a bucket of ``burst`` tokens refilled at ``rate`` per second; a request takes
one token or is refused with the seconds until one is back (the ``Retry-After`` answer).
Buckets live in one bounded LRU map per limit, so a flood of keys cannot grow memory without
bound. The limits are per server process: several processes behind a load balancer each keep
their own (docs/reliability.md).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

MAX_KEYS = 50_000


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
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a rate limit needs rate > 0 and burst >= 1")
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


def retry_after(wait: float) -> str:
    """The ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
