"""What one app instance holds: its settings, its store (opened on first use) and a cache of
player ids known to exist. Request handlers reach it through the dependencies below."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool

from .admission import Admission
from .errors import ApiError, rate_limited
from .ratelimit import TokenBuckets, retry_after
from .settings import Settings
from .store import Store, StoreError, open_store

_KNOWN_PLAYERS = 100_000
_KNOWN_SECONDS = 3600.0


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None
        self._lock = threading.Lock()
        self._known: OrderedDict[str, float] = OrderedDict()
        self.player_limit = _buckets(settings.player_rate, settings.player_burst)
        self.signup_limit = _buckets(settings.signup_rate, settings.signup_burst)
        self.admission = Admission(settings)

    def limit(self, buckets: TokenBuckets | None, key: str) -> None:
        """Take one token for ``key``, or answer 429 ``rate_limited`` with Retry-After."""
        if buckets is not None:
            wait = buckets.take(key)
            if wait > 0:
                raise rate_limited(retry_after(wait))

    @property
    def store(self) -> Store:
        """The store, connected on first use (so building the app connects nothing)."""
        store = self._store
        if store is None:
            with self._lock:
                if self._store is None:
                    try:
                        self._store = open_store(self.settings)
                    except StoreError as exc:
                        raise ApiError(503, "unavailable", "the game store is unavailable") from exc
                store = self._store
        return store

    def opened(self) -> Store | None:
        """The store if it is already open (never blocks)."""
        return self._store

    def is_known(self, player: str) -> bool:
        with self._lock:
            at = self._known.get(player)
            if at is not None and time.monotonic() - at < _KNOWN_SECONDS:
                self._known.move_to_end(player)
                return True
        return False

    def remember(self, player: str) -> None:
        # Only players idle for months are deleted (retention.py), so an id checked within
        # the last hour is still valid in every process.
        with self._lock:
            self._known[player] = time.monotonic()
            self._known.move_to_end(player)
            if len(self._known) > _KNOWN_PLAYERS:
                self._known.popitem(last=False)

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()


def _buckets(rate: float | None, burst: int) -> TokenBuckets | None:
    return None if rate is None else TokenBuckets(rate, burst)


# The dependencies are `async def` so that they run on the event loop instead of taking a
# thread each; anything that may block (opening the store) is sent to the threadpool.
async def get_runtime(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


async def get_store(runtime: Annotated[Runtime, Depends(get_runtime)]) -> Store:
    store = runtime.opened()
    if store is None:
        store = await run_in_threadpool(lambda: runtime.store)
    return store


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
StoreDep = Annotated[Store, Depends(get_store)]
