"""Retention: what the store keeps per player, and the sweep that expires idle players
(docs/reliability.md, "Retention").

- Every new game prunes its player's games of that kind at once (`Store.prune`, one short
  transaction): at most `Settings.max_unfinished_games` unfinished games (the current one
  and the newest ones it replaced), `max_finished_games` finished games with their state and
  move log (older ones keep only their result row), and `max_finishes` result rows (plus the
  best total per table and practice flag). Storage per player therefore stays bounded
  whatever the request rate.
- Every `sweep_seconds`, one process of however many share the store claims the sweep
  (`Store.claim`: a compare-and-set on the time it last ran, stored in the database) and
  deletes players created more than `idle_player_days` ago that have saved no game since,
  with everything they have, in batches; then runs each feature's own expiry registered
  with `expires` (core imports no feature: the online tables register theirs, deleting
  lobbies that never started, finished tables and abandoned ones after
  `OnlineSettings.lobby_hours`, `finished_hours` and `idle_hours`).

Both are counted (core/metrics.py): ``cardtable_retention_sweeps_total{outcome}`` (``ran``,
``not_claimed``: another process has it, ``failed``) and ``cardtable_retention_deleted_total
{what}`` (``players``, each expiry's name such as ``online_tables``, and ``pruned``: games
and results a new game's pruning deleted).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.errors import ApiError
from cardtable.server.core.metrics import RETENTION_DELETED, RETENTION_SWEEPS
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import StoreError
from cardtable.server.core.store.base import Retention

log = logging.getLogger("cardtable.server")

BATCH = 500
"""Players one sweep deletes at most per transaction."""
BATCHES = 20
"""Transactions one sweep runs at most (the next sweep continues)."""


Expiry = Callable[[Runtime, float], int]
"""A feature's expiry: deletes what is past its time at epoch ``now``; how many rows."""
_EXPIRIES: dict[str, Expiry] = {}


def expires(name: str, expiry: Expiry) -> None:
    """Run ``expiry`` in every sweep (after the idle players), logged under ``name``."""
    _EXPIRIES[name] = expiry


def keep(runtime: Runtime) -> Retention:
    s = runtime.settings
    return Retention(s.max_unfinished_games, s.max_finished_games, s.max_finishes)


def sweep(runtime: Runtime, now: float | None = None) -> int | None:
    """Run the sweep if this process wins the claim; the players deleted (None: not run).
    The registered expiries (`expires`) run in the same sweep; they log what they delete."""
    settings = runtime.settings
    now = time.time() if now is None else now
    every = settings.sweep_seconds or 0.0
    store = runtime.store
    if settings.idle_player_days is None and not _EXPIRIES:
        return None
    if not store.claim("sweep", every * 0.9, now):
        RETENTION_SWEEPS.labels(outcome="not_claimed").inc()
        return None
    RETENTION_SWEEPS.labels(outcome="ran").inc()
    total = 0
    if settings.idle_player_days is not None:
        cutoff = datetime.fromtimestamp(now, UTC) - timedelta(days=settings.idle_player_days)
        since = cutoff.isoformat(timespec="microseconds")
        for _ in range(BATCHES):
            deleted = store.expire_players(since, limit=BATCH)
            total += deleted
            if deleted < BATCH:
                break
        if total:
            RETENTION_DELETED.labels(what="players").inc(total)
            log.info("retention sweep: %d idle players deleted", total)
    for name, expiry in list(_EXPIRIES.items()):
        gone = expiry(runtime, now)
        if gone:
            RETENTION_DELETED.labels(what=name.replace(" ", "_")).inc(gone)
            log.info("retention sweep: %d %s deleted", gone, name)
    return total


def iso(at: float) -> str:
    """Epoch seconds as the store's ISO text times (``created_at``), comparable as text."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="microseconds")


async def sweeper(runtime: Runtime) -> None:
    """The periodic sweep, for the app's lifespan (cancelled at shutdown)."""
    every = runtime.settings.sweep_seconds
    if every is None:
        return
    while True:
        # Spread the processes' attempts; the claim lets one of them run it.
        await asyncio.sleep(every * random.uniform(0.5, 1.0))
        try:
            await run_in_threadpool(sweep, runtime)
        except (ApiError, StoreError) as exc:
            RETENTION_SWEEPS.labels(outcome="failed").inc()
            log.warning("retention sweep skipped: %s", exc)


@contextlib.asynccontextmanager
async def running(runtime: Runtime) -> AsyncIterator[None]:
    task = asyncio.create_task(sweeper(runtime))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
