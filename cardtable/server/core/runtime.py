"""What one app instance holds: its settings, its store (opened on first use) and its rate
limits. Request handlers reach it through the dependencies below. A credential is read from
the store on every request that goes ahead (players.py), so one signed out or deleted is
refused at once in every process; which player a credential last authenticated as is kept
only to refuse a request over its player's rate before that read (`limited`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.admission import Admission
from cardtable.server.core.errors import ApiError, rate_limited
from cardtable.server.core.limits_store import StoredLimits
from cardtable.server.core.metrics import STORE_ERRORS, count_refusal
from cardtable.server.core.ratelimit import TokenBuckets, retry_after
from cardtable.server.core.settings import Settings
from cardtable.server.core.store import Store, StoreError, open_store

SITE_CLAIMS = "site-claims"
"""Transfer-code claims, the whole site (`Settings.site_claim_rate`)."""
SEEN_KEPT = 10_000
"""Credentials whose player `Runtime.limited` remembers (least recently seen out first)."""
SITE_LOOKUPS = "site-lookups"
"""Room-code lookups, the whole site (`Settings.site_lookup_rate`)."""


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None
        self._lock = threading.Lock()
        self.player_limit = _buckets(settings.player_rate, settings.player_burst, "player_rate")
        self.signup_limit = _buckets(settings.signup_rate, settings.signup_burst, "signup_rate")
        # docs/devices.md, "Limits": guesses of codes and recovery keys per address; codes
        # and recovery keys issued per player. Kept in the store (`stored_limit`), so they
        # hold across server processes: name -> (rate, burst), None for no limit.
        self.stored_limits: dict[str, tuple[float, int] | None] = {
            "claim": _stored(settings.claim_rate, settings.claim_burst),
            "transfer": _stored(settings.transfer_rate, settings.transfer_burst),
            "recovery": _stored(settings.recovery_rate, settings.recovery_burst),
            # One bucket for the whole site (`site_limit`), over the per-address limits: what
            # bounds a guesser with any number of addresses, however many processes serve.
            SITE_CLAIMS: _stored(settings.site_claim_rate, settings.site_claim_burst),
            SITE_LOOKUPS: _stored(settings.site_lookup_rate, settings.site_lookup_burst),
        }
        self.admission = Admission(settings)
        self._seen_lock = threading.Lock()
        self._seen: OrderedDict[str, str] = OrderedDict()
        """Credential key -> player, as last authenticated (`seen`, `limited`)."""

    def seen(self, cred: str, player: str) -> None:
        """Remember that ``cred`` authenticated as ``player`` (the newest `SEEN_KEPT`)."""
        with self._seen_lock:
            self._seen[cred] = player
            self._seen.move_to_end(cred)
            if len(self._seen) > SEEN_KEPT:
                self._seen.popitem(last=False)

    def limited(self, cred: str) -> None:
        """429 ``rate_limited`` at once when ``cred`` last authenticated as a player whose
        request bucket is empty: a client over its rate costs no store read and no thread.
        Only ever refuses: the request that goes on is authenticated from the store."""
        buckets = self.player_limit
        if buckets is None:
            return
        with self._seen_lock:
            player = self._seen.get(cred)
        if player is not None:
            wait = buckets.empty(player)
            if wait > 0:
                count_refusal(buckets.reason)
                raise rate_limited(retry_after(wait))

    def limit(self, buckets: TokenBuckets | None, key: str) -> None:
        """Take one token for ``key``, or answer 429 ``rate_limited`` with Retry-After."""
        if buckets is not None:
            wait = buckets.take(key)
            if wait > 0:
                count_refusal(buckets.reason)
                raise rate_limited(retry_after(wait))

    def stored_limit(self, name: str, key: str, now: datetime) -> None:
        """Take one token of the stored limit ``name`` for ``key`` (limits_store.py), or
        answer 429 ``rate_limited`` with Retry-After."""
        limit = self.stored_limits[name]
        if limit is not None:
            wait = StoredLimits(self.store).take(name, key, *limit, now.timestamp())
            if wait > 0:
                count_refusal(name.replace("-", "_") + "_rate")
                raise rate_limited(retry_after(wait))

    def site_limit(self, name: str, now: datetime) -> None:
        """Take one token of the site-wide stored limit ``name`` (`SITE_CLAIMS`,
        `SITE_LOOKUPS`: one bucket shared by every client and process), or answer 429
        ``rate_limited`` with Retry-After."""
        self.stored_limit(name, "site", now)

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
                        STORE_ERRORS.labels(error="open").inc()
                        raise ApiError(503, "unavailable", "the game store is unavailable") from exc
                store = self._store
        return store

    def opened(self) -> Store | None:
        """The store if it is already open (never blocks)."""
        return self._store

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()


def _buckets(rate: float | None, burst: int, reason: str) -> TokenBuckets | None:
    return None if rate is None else TokenBuckets(rate, burst, reason=reason)


def _stored(rate: float | None, burst: int) -> tuple[float, int] | None:
    return None if rate is None else (rate, burst)


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
