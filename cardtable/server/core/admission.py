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

Work a person asks for but that must never delay a hint or a computer step (the first
replay of a Kings Corner round: up to a few seconds of engine work) is admitted by
`reserve_spare_async` instead: one at a time per player (else 429 ``rate_limited``), at most
`SPARE_WAITING` such requests in the process at once (else 503), the player's search token,
and then only a *spare* slot, one that no request is waiting for (`spare_slot`), looked for
every `SPARE_POLL` seconds for up to `spare_wait` seconds (then 503). A hint that arrives
while such work runs waits for that one piece of work at most, and no new piece starts
while it waits.

Requests waiting for a slot, searches running and every refusal above are counted
(``cardtable_search_queue``, ``cardtable_search_busy``, ``cardtable_refused_total``;
metrics.py).

The search itself runs in a small pool of worker *processes* (`search_processes`; 0 runs it
in the calling thread): pure-Python search holds the GIL, and in a thread of the server it
would slow every other request down; in its own process it only takes its own CPU. The work
is a pure function of what is sent (the view, the budget, the seeded random generator), so
which process runs it never changes an answer.

Lifecycle (docs/reliability.md, "Lifecycle"). The pool is started on first use (`warm`, at the
server's start) and shared by every app in the process; it is stopped when the last app using
it stops (`Admission.close`, from the app's lifespan): waiting work is cancelled, a running
search may finish for `SHUTDOWN_WAIT` seconds, and the stop waits until every worker is gone.
That must not rely on the interpreter's exit handlers: uvicorn re-raises SIGTERM and SIGINT
after its shutdown, so the process dies by the signal and `atexit` never runs. And a server
killed outright (SIGKILL, out of memory) runs nothing at all, so each worker also watches its
parent and exits by itself within moments when the parent is gone (`_watch_parent`). The
multiprocessing resource tracker, which the server starts with the pool, exits when every
process holding its pipe (the server and the workers) has exited.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager, contextmanager
from multiprocessing import connection as mp_connection
from typing import Any, TypeVar

from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.errors import ApiError, rate_limited
from cardtable.server.core.metrics import SEARCH_BUSY, SEARCH_QUEUE, count_refusal
from cardtable.server.core.ratelimit import TokenBuckets, retry_after
from cardtable.server.core.settings import Settings

T = TypeVar("T")
SPARE_POLL = 0.02
"""Seconds between two looks for a spare search slot (`reserve_spare_async`)."""
SPARE_WAITING = 8
"""Requests admitted by `reserve_spare_async` that may wait or run at once in a process."""


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


def one_at_a_time() -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        "one of your replays is already being worked out; ask again once it is ready",
        headers={"Retry-After": "2"},
    )


class Admission:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._games: set[str] = set()
        self._slots = threading.BoundedSemaphore(max(1, settings.max_searches))
        self._waiting = 0
        self._spare_players: set[str] = set()
        self._pool_held = False
        self.searches = (
            None
            if settings.search_rate is None
            else TokenBuckets(settings.search_rate, settings.search_burst, reason="hint_rate")
        )

    @contextmanager
    def reserve(self, game_id: str, player: str, *, rated: bool = True) -> Iterator[None]:
        """Hold ``game_id``'s search reservation and a search slot (rules 2-4 above; rule 3
        only when ``rated``)."""
        with self._lock:
            if game_id in self._games:
                count_refusal("search_game_busy")
                raise busy()
            self._games.add(game_id)
        try:
            if rated:
                self._take_token(player)
            with self._slot():
                yield
        finally:
            with self._lock:
                self._games.discard(game_id)

    @asynccontextmanager
    async def reserve_spare_async(
        self, job: str, player: str, *, wait: float
    ) -> AsyncIterator[None]:
        """Hold ``job``'s reservation and a spare search slot, for work that must not delay
        requests (module docstring): 429 while the player already has such work in this
        process or has no search token, 503 when `SPARE_WAITING` are in already or no slot
        is spare within ``wait`` seconds. The looks for a spare slot are awaited, so a
        request waiting for one holds no thread."""
        self._enter_spare(job, player)
        try:
            deadline = time.monotonic() + wait
            while True:
                with spare_slot(self) as held:
                    if held:
                        yield
                        return
                if time.monotonic() >= deadline:
                    count_refusal("spare_wait")
                    raise overloaded()
                await asyncio.sleep(SPARE_POLL)
        finally:
            self._leave_spare(job, player)

    def _enter_spare(self, job: str, player: str) -> None:
        with self._lock:
            if player in self._spare_players:
                count_refusal("spare_one_at_a_time")
                raise one_at_a_time()
            if len(self._spare_players) >= SPARE_WAITING or job in self._games:
                count_refusal("search_game_busy" if job in self._games else "spare_full")
                raise busy() if job in self._games else overloaded()
            self._spare_players.add(player)
            self._games.add(job)
        try:
            self._take_token(player)
        except ApiError:
            self._leave_spare(job, player)
            raise

    def _leave_spare(self, job: str, player: str) -> None:
        with self._lock:
            self._spare_players.discard(player)
            self._games.discard(job)

    def _take_token(self, player: str) -> None:
        """One of ``player``'s search tokens (rule 3), or 429 saying when to ask again."""
        if self.searches is not None:
            left = self.searches.take(player)
            if left > 0:
                count_refusal(self.searches.reason)
                raise rate_limited(retry_after(left))

    @contextmanager
    def _slot(self) -> Iterator[None]:
        if not self._slots.acquire(blocking=False):
            with self._lock:
                if self._waiting >= self.settings.search_queue:
                    count_refusal("search_queue_full")
                    raise overloaded()
                self._waiting += 1
            SEARCH_QUEUE.inc()
            try:
                got = self._slots.acquire(timeout=self.settings.search_wait)
            finally:
                SEARCH_QUEUE.dec()
                with self._lock:
                    self._waiting -= 1
            if not got:
                count_refusal("search_wait")
                raise overloaded()
        try:
            yield
        finally:
            self._slots.release()

    def warm(self) -> None:
        """Start the search pool now (the server's start) rather than on the first search,
        which would otherwise wait for a new interpreter to import the engines."""
        if self.settings.search_processes > 0:
            self._hold_pool()
            _pool(self.settings.search_processes).submit(int)

    def close(self) -> None:
        """The app stops: let go of the search pool, which stops when no app in the process
        uses it any more (its workers exit, then the resource tracker)."""
        with self._lock:
            held, self._pool_held = self._pool_held, False
        if held:
            _release(self.settings.search_processes)

    def _hold_pool(self) -> None:
        with self._lock:
            if self._pool_held:
                return
            self._pool_held = True
        _acquire(self.settings.search_processes)

    def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the search pool (or here, with `search_processes` 0);
        call it inside `reserve`. ``fn`` must be a module-level function (an engine's) and
        its arguments picklable."""
        with _busy():
            if self.settings.search_processes <= 0:
                return fn(*args, **kwargs)
            self._hold_pool()
            pool = _pool(self.settings.search_processes)
            try:
                return pool.submit(fn, *args, **kwargs).result()
            except BrokenProcessPool:
                # A worker died (killed, out of memory): start a new pool for the next request.
                _reset(pool)
                count_refusal("search_pool_broken")
                raise overloaded() from None

    async def run_async(self, fn: Callable[..., T], *args: Any) -> T:
        """`run` awaited: the search pool's answer is awaited on the event loop, holding no
        thread. (With `search_processes` 0 the work runs in a thread of the request pool, as
        `run` runs it in the request's.)"""
        with _busy():
            if self.settings.search_processes <= 0:
                return await run_in_threadpool(fn, *args)
            self._hold_pool()
            pool = _pool(self.settings.search_processes)
            try:
                return await asyncio.wrap_future(pool.submit(fn, *args))
            except BrokenProcessPool:
                _reset(pool)
                count_refusal("search_pool_broken")
                raise overloaded() from None


@contextmanager
def _busy() -> Iterator[None]:
    """A search running (``cardtable_search_busy``) while this is held."""
    SEARCH_BUSY.inc()
    try:
        yield
    finally:
        SEARCH_BUSY.dec()


_POOLS: dict[int, Executor] = {}
_POOLS_LOCK = threading.Lock()
_USERS: dict[int, int] = {}  # workers -> Admissions holding that pool (warm, run; until close)
_KEPT = 0  # > 0: pools with no user stay up (`kept`)
_WATCH: dict[int, Any] = {}  # id(pool) -> (reader, writer): the pipe a worker watches
WORKER_NICE = 5
"""How much lower the search workers' CPU priority is than the server's: on a machine with
few cores a search never takes the CPU that answering requests needs (a niceness 5 lower gets
about a third of the CPU share when both want it)."""
SHUTDOWN_WAIT = 5.0
"""Seconds a stopping app waits for the search workers to finish before killing them."""
KILL_WAIT = 5.0
"""Seconds it then waits for each killed worker to be gone (SIGKILL is at once, but on a
loaded machine the exit can take longer than a short grace: it once took over 0.3 s)."""


def _acquire(workers: int) -> None:
    with _POOLS_LOCK:
        _USERS[workers] = _USERS.get(workers, 0) + 1


def _release(workers: int) -> None:
    with _POOLS_LOCK:
        users = _USERS.get(workers, 0) - 1
        if users > 0:
            _USERS[workers] = users
            return
        _USERS.pop(workers, None)
        pool = None if _KEPT else _POOLS.pop(workers, None)
    if pool is not None:
        _stop(pool)


@contextmanager
def kept() -> Iterator[None]:
    """Keep the search pools up while this is held, even when no app uses them (a test run
    starts and stops hundreds of apps; a worker costs about 4 s of CPU to start). Pools with
    no user are stopped when the last holder leaves."""
    global _KEPT
    with _POOLS_LOCK:
        _KEPT += 1
    try:
        yield
    finally:
        with _POOLS_LOCK:
            _KEPT -= 1
            idle = [] if _KEPT else [w for w in _POOLS if not _USERS.get(w)]
            pools = [_POOLS.pop(w) for w in idle]
        for pool in pools:
            _stop(pool)


def _pool(workers: int) -> Executor:
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            # "spawn": a fresh interpreter, never a fork of a threaded server. Each worker
            # watches a pipe whose writing end only this process holds (`_watch_parent`).
            context = multiprocessing.get_context("spawn")
            reader, writer = context.Pipe(duplex=False)
            pool = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(reader, os.getpid()),
            )
            _POOLS[workers] = pool
            _WATCH[id(pool)] = (reader, writer)
        return pool


def _stop(pool: Executor) -> None:
    """Stop ``pool``: cancel what waits, let a running search finish for up to
    `SHUTDOWN_WAIT` seconds, then kill what is left; wait until every worker is gone."""
    processes = list(getattr(pool, "_processes", {}).values())
    # The executor's own thread reaps the workers too; `shutdown` forgets it, so take it first.
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    sentinels = {p.sentinel: p for p in processes}
    deadline = time.monotonic() + SHUTDOWN_WAIT
    while sentinels:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for ready in mp_connection.wait(list(sentinels), left):
            sentinels.pop(ready)
    for process in sentinels.values():
        process.kill()
    for process in processes:
        process.join(KILL_WAIT)
    # Once that thread is done, every worker's exit code is known (a `join` that lost the race
    # to reap a worker returns before its code is set).
    if manager is not None:
        manager.join(KILL_WAIT)
    pipe = _WATCH.pop(id(pool), None)
    if pipe is not None:
        for end in pipe:
            end.close()


def _start_worker(parent: Any, parent_pid: int) -> None:
    """A new search worker: a lower CPU priority than the server's (`WORKER_NICE`), exit on
    its own when the server process is gone, leave Ctrl-C to the server (which stops the
    pool), then preload the engines."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    atexit.register(_exit_now)
    threading.Thread(
        target=_watch_parent, args=(parent, parent_pid), name="parent-watch", daemon=True
    ).start()
    _preload_engines()


def _exit_now() -> None:
    """A worker's last exit handler: end the process without tearing down the interpreter,
    whose freeing of the engines' tables took 2 to 4 s on a busy machine (the pool's
    shutdown waits for it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _watch_parent(parent: Any, parent_pid: int) -> None:
    """Exit the worker as soon as the server process is gone, however it ended (SIGKILL,
    out of memory): the pipe's writing end is held by the server alone, so when the kernel
    closes the server's files the pipe reads end-of-file; the parent's pid is checked too,
    every half second, in case another process inherited that end. (PR_SET_PDEATHSIG is
    not used: it fires when the *thread* that started the worker ends, and workers are
    started from request threads, which come and go.)"""
    while True:
        try:
            if parent.poll(0.5):
                break  # end of file (nothing is ever written)
        except (OSError, EOFError):
            break
        if os.getppid() != parent_pid:
            break
    os._exit(0)


def _preload_engines() -> None:
    """A new search worker imports the engines and reads both Poker Squares value tables
    before its first task, so the first hint after a start (or after a broken pool) costs a
    search, not an interpreter's imports."""
    from cardtable.kings_corner import cpu  # noqa: F401
    from cardtable.poker_squares.hands import TABLES
    from cardtable.poker_squares.hint.abstract import load_values

    for table in TABLES:
        load_values(table)


def _reset(pool: Executor) -> None:
    with _POOLS_LOCK:
        for key, value in list(_POOLS.items()):
            if value is pool:
                del _POOLS[key]
    pool.shutdown(wait=False, cancel_futures=True)
    # Closing the pipe ends any worker of the broken pool that is still alive.
    for end in _WATCH.pop(id(pool), ()):
        end.close()


@contextmanager
def spare_slot(admission: Admission) -> Iterator[bool]:
    """A search slot for work that no request waits on (the steps of a Poker Squares review,
    an online table's computer step; docs/reliability.md, "Admission"): yields True while
    holding a slot when one is free and no request is waiting for one, else False at once
    (the caller tries again later). Requests therefore always go first, and such work never
    queues among them; run it with `Admission.run` while the slot is held."""
    with admission._lock:
        held = admission._waiting == 0 and admission._slots.acquire(blocking=False)
    try:
        yield held
    finally:
        if held:
            admission._slots.release()
