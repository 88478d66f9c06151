"""Admission of expensive work: engine searches (the Poker Squares hint, a strong Kings Corner
computer's step) are admitted, not just rate-limited (docs/reliability.md, "Admission").

A search is let in only if all of these hold, checked in this order and each refused at once:

1. the caller's version is the game's current one (the route checks it before asking);
2. no other search for the same game is in flight in this process (the game is *reserved*
   before the search starts, so a repeated click or a second tab cannot run the same search
   twice): else 409 ``busy``;
3. for a hint, the player has a hint token (`Settings.search_rate` per second after a burst
   of `search_burst`): else 429 ``rate_limited`` with ``Retry-After``. A computer step takes
   none: only the first step of a computer's turn searches (the rest walk its cached plan),
   each step moves the game on, so its searches are bounded by the game itself and by the
   per-player request rate;
4. a search slot is free (`Settings.max_searches` at once per process), or frees up within
   `search_wait` seconds with at most `search_queue` requests waiting: else 503
   ``unavailable`` with ``Retry-After``.

The search itself runs in a small pool of worker *processes* (`search_processes`; 0 runs it
in the calling thread): pure-Python search holds the GIL, and in a thread of the server it
would slow every other request down; in its own process it only takes its own CPU. The pool
is started on first use, shared by every app in the process and stopped when the process
exits. The work is a pure function
of what is sent (the view, the budget, the seeded random generator), so which process runs it
never changes an answer.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

from cardtable.server.core.errors import ApiError, rate_limited
from cardtable.server.core.ratelimit import TokenBuckets, retry_after
from cardtable.server.core.settings import Settings

T = TypeVar("T")


def busy() -> ApiError:
    return ApiError(
        409,
        "busy",
        "this game's hint or computer move is already being worked out (another tab or a "
        "repeated click); wait for that answer",
    )


def overloaded() -> ApiError:
    return ApiError(
        503,
        "unavailable",
        "the server is busy working out other players' hints; try again in a moment",
        headers={"Retry-After": "1"},
    )


class Admission:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._games: set[str] = set()
        self._slots = threading.BoundedSemaphore(max(1, settings.max_searches))
        self._waiting = 0
        self.searches = (
            None
            if settings.search_rate is None
            else TokenBuckets(settings.search_rate, settings.search_burst)
        )

    @contextmanager
    def reserve(self, game_id: str, player: str, *, rated: bool = True) -> Iterator[None]:
        """Hold ``game_id``'s search reservation and a search slot (rules 2-4 above; rule 3
        only when ``rated``)."""
        with self._lock:
            if game_id in self._games:
                raise busy()
            self._games.add(game_id)
        try:
            if rated and self.searches is not None:
                wait = self.searches.take(player)
                if wait > 0:
                    raise rate_limited(retry_after(wait))
            with self._slot():
                yield
        finally:
            with self._lock:
                self._games.discard(game_id)

    @contextmanager
    def _slot(self) -> Iterator[None]:
        if not self._slots.acquire(blocking=False):
            with self._lock:
                if self._waiting >= self.settings.search_queue:
                    raise overloaded()
                self._waiting += 1
            try:
                got = self._slots.acquire(timeout=self.settings.search_wait)
            finally:
                with self._lock:
                    self._waiting -= 1
            if not got:
                raise overloaded()
        try:
            yield
        finally:
            self._slots.release()

    def warm(self) -> None:
        """Start the search pool now (the server's start) rather than on the first search,
        which would otherwise wait for a new interpreter to import the engines."""
        if self.settings.search_processes > 0:
            _pool(self.settings.search_processes).submit(int)

    def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the search pool (or here, with `search_processes` 0);
        call it inside `reserve`. ``fn`` must be a module-level function (an engine's) and
        its arguments picklable."""
        if self.settings.search_processes <= 0:
            return fn(*args, **kwargs)
        pool = _pool(self.settings.search_processes)
        try:
            return pool.submit(fn, *args, **kwargs).result()
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a new pool for the next request.
            _reset(pool)
            raise overloaded() from None


_POOLS: dict[int, Executor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int) -> Executor:
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            # "spawn": a fresh interpreter, never a fork of a threaded server.
            context = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(
                max_workers=workers, mp_context=context, initializer=_preload_engines
            )
            _POOLS[workers] = pool
        return pool


def _preload_engines() -> None:
    """A new search worker imports the engines and reads both Poker Squares value tables
    before its first task, so the first hint after a start (or after a broken pool) costs a
    search, not an interpreter's imports."""
    from cardtable.kings_corner import cpu  # noqa: F401
    from cardtable.poker_squares.abstract import load_values
    from cardtable.poker_squares.hands import TABLES

    for table in TABLES:
        load_values(table)


def _reset(pool: Executor) -> None:
    with _POOLS_LOCK:
        for key, value in list(_POOLS.items()):
            if value is pool:
                del _POOLS[key]
    pool.shutdown(wait=False, cancel_futures=True)
