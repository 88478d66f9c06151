"""Computing Poker Squares reviews, admitted and in the search pool (docs/review.md,
docs/reliability.md "Admission").

`ensure` answers from the stored row when the review is done or some process is computing
it; otherwise it asks this process's `Reviews` for it:

- a player runs at most one review at a time in a process and may have `review_queue` more
  waiting; a further one is refused at once (429 ``rate_limited``, `too_many`);
- at most `review_running` reviews run at once in a process, and when one ends the next to
  start is the first waiting review of the next player in turn (round-robin between
  players), so a player with many deals waits behind nobody else's;
- a waiting review answers ``waiting`` (the page asks again every 0.4 s); one nobody asked
  about for `FORGOTTEN` seconds is dropped (its page was closed).

A review that starts claims the stored row (`ReviewStore.claim`: of several processes, one
computes) and computes its 50 steps one by one, each in the search pool (`Admission.run`,
a separate process, so a review never takes the server's own CPU) under a search slot taken
with `spare_slot`: only a free slot that no request (a hint) is waiting for, so a person's
hint always goes first. It writes its progress after every step and the review at the end;
any process answers from the row alone. A row whose lease ran out (its process stopped) is
claimed again by the next request. Only *when* a review runs depends on any of this: each
step is a pure function of the deal, the placements and the budget.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cardtable import poker_squares as ps
from cardtable.poker_squares.game import CELLS
from cardtable.poker_squares.hint import hint
from cardtable.poker_squares.review import STEPS, StepReview, review_step, summary, visible
from cardtable.server.core.admission import Admission, spare_slot
from cardtable.server.core.errors import ApiError
from cardtable.server.core.metrics import count_refusal
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import Store
from cardtable.server.review.store import DONE, FAILED, RUNNING, ReviewRow, ReviewStore

T = TypeVar("T")
PART = "placements"
LEASE = 30.0
"""Seconds a computing thread holds its row without writing progress (it writes after every
step, and renews it while it waits for a slot: only a stopped process lets it run out)."""
FORGOTTEN = 60.0
"""A waiting review nobody asked about for this long is dropped before it starts."""
SLOT_POLL = 0.02
"""Seconds between two looks for a spare search slot."""
BROKEN_TRIES = 3
"""Times a step is tried when the search pool breaks under it before the review fails."""
CLAIM_WAIT = 5.0
"""Seconds `ensure` waits for a review it started to claim its row, so that a GET right after
a start answered ``running`` reads ``running`` from the store too, not ``none``."""
SERVED_REMEMBERED = 10_000
"""Players whose last start is remembered (for the turns)."""

log = logging.getLogger("cardtable.server")
JobState = tuple[str, int, int, dict[str, Any] | None]


def too_many(queue: int) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"you already have a review being worked out and {queue} waiting, the most one player "
        "may have: wait for one of them to finish, then ask again",
        headers={"Retry-After": "5"},
    )


def status(row: ReviewRow | None, now: float) -> JobState:
    """(state, done, total, review) as the API shows a stored row."""
    if row is None:
        return "none", 0, STEPS, None
    if row.status == DONE:
        return "done", row.total, row.total, row.result
    if row.status == FAILED:
        return "failed", row.done, row.total, None
    if row.lease_until < now:
        return "waiting", row.done, row.total, None  # its process stopped: ask again
    return "running", row.done, row.total, None


@dataclass
class ReviewJob:
    store: Store
    game_id: str
    player: str
    version: int
    game: ps.Game
    budget: int
    asked: float = field(default_factory=time.monotonic)
    claimed: threading.Event = field(default_factory=threading.Event)
    """Set once the computing thread has tried to claim the stored row."""


class Reviews:
    """One app's reviews in this process: which run, which wait (module docstring)."""

    def __init__(self, admission: Admission, running: int, queue: int) -> None:
        self.admission = admission
        self.running_max = max(1, running)
        self.queue_max = max(0, queue)
        self._lock = threading.Lock()
        self._running: dict[str, str] = {}
        """player -> the game whose review runs."""
        self._waiting: OrderedDict[str, deque[ReviewJob]] = OrderedDict()
        """player -> their waiting reviews, in the order they first waited."""
        self._served: OrderedDict[str, None] = OrderedDict()
        """Players by their last review started, oldest first (whose turn is next)."""
        self.threads: list[threading.Thread] = []
        """The computing threads started (tests join them)."""

    def ask(self, job: ReviewJob) -> str:
        """Queue ``job`` (or note that it was asked about again): ``running`` when it runs
        here, else ``waiting``; `too_many` beyond the player's limit."""
        with self._lock:
            if self._running.get(job.player) == job.game_id:
                job.claimed.set()  # the running one claims (or has claimed) the row
                return RUNNING
            mine = self._waiting.get(job.player)
            for queued in mine or ():
                if queued.game_id == job.game_id:
                    queued.asked = time.monotonic()
                    return "waiting"
            waiting = len(mine or ())
            if (job.player in self._running) + waiting >= 1 + self.queue_max:
                count_refusal("review_queue_full")
                raise too_many(self.queue_max)
            self._waiting.setdefault(job.player, deque()).append(job)
            started = self._dispatch()
        return RUNNING if job in started else "waiting"

    def counts(self) -> tuple[int, int]:
        """(running, waiting) in this process."""
        with self._lock:
            return len(self._running), sum(len(q) for q in self._waiting.values())

    def _dispatch(self) -> list[ReviewJob]:
        """Start waiting reviews while there is room, the players in turn: the next start
        goes to the waiting player whose last one is oldest (under the lock)."""
        started: list[ReviewJob] = []
        forgotten = time.monotonic() - FORGOTTEN
        while len(self._running) < self.running_max:
            ready: list[str] = []
            for player in list(self._waiting):
                queue = self._waiting[player]
                while queue and queue[0].asked < forgotten:
                    queue.popleft()
                if not queue:
                    del self._waiting[player]
                elif player not in self._running:
                    ready.append(player)
            if not ready:
                break
            # The player whose last start is oldest (or who never had one) goes first.
            served = {p: i for i, p in enumerate(self._served)}
            player = min(ready, key=lambda p: served.get(p, -1))
            queue = self._waiting[player]
            job = queue.popleft()
            if not queue:
                del self._waiting[player]
            self._served.pop(player, None)
            self._served[player] = None
            if len(self._served) > SERVED_REMEMBERED:
                self._served.popitem(last=False)
            self._running[job.player] = job.game_id
            worker = threading.Thread(
                target=self._run, args=(job,), name=f"review-{job.game_id}", daemon=True
            )
            self.threads = [t for t in self.threads if t.is_alive()] + [worker]
            worker.start()
            started.append(job)
        return started

    def _run(self, job: ReviewJob) -> None:
        try:
            compute(self.admission, job)
        finally:
            with self._lock:
                self._running.pop(job.player, None)
                self._dispatch()


_REVIEWS: weakref.WeakKeyDictionary[Admission, Reviews] = weakref.WeakKeyDictionary()
_REVIEWS_LOCK = threading.Lock()


def reviews_of(runtime: Runtime) -> Reviews:
    """The app's `Reviews` (one per app, made on first use)."""
    admission = runtime.admission
    with _REVIEWS_LOCK:
        found = _REVIEWS.get(admission)
        if found is None:
            s = runtime.settings
            found = _REVIEWS[admission] = Reviews(admission, s.review_running, s.review_queue)
        return found


def ensure(
    runtime: Runtime, store: Store, player: str, game_id: str, version: int, game: ps.Game,
    budget: int,
) -> JobState:  # fmt: skip
    """Start the review of a finished deal unless it is stored or running; its status."""
    state = status(ReviewStore(store).load(game_id, PART), time.time())
    if state[0] in ("done", "running"):
        return state
    job = ReviewJob(store, game_id, player, version, game, budget)
    if reviews_of(runtime).ask(job) == RUNNING:
        # Its thread claims the row first: answer once it has, so that every process reading
        # the row from now on sees the review running.
        job.claimed.wait(CLAIM_WAIT)
        return RUNNING, 0, STEPS, None
    return "waiting", state[1], state[2], None


def compute(admission: Admission, job: ReviewJob) -> None:
    """Claim the review's row and compute it step by step in the search pool."""
    reviews = ReviewStore(job.store)
    owner = secrets.token_hex(8)
    try:
        row = reviews.load(job.game_id, PART)
        if status(row, time.time())[0] in ("done", "running"):
            return  # another process has it
        if not reviews.claim(
            job.game_id, PART, version=job.version, budget=job.budget, total=STEPS,
            owner=owner, at=time.time(), lease=LEASE, seen=row,
        ):  # fmt: skip
            return
    except Exception:
        log.exception("review of %s: could not claim it", job.game_id)
        return
    finally:
        job.claimed.set()
    done = 0

    def step(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``fn`` in the pool under a spare slot; None when the row was taken over."""
        nonlocal done
        renew = time.monotonic() + LEASE / 3
        broken = 0
        while True:
            with spare_slot(admission) as held:
                if held:
                    try:
                        out = admission.run(fn, *args, **kwargs)
                        break
                    except ApiError:  # a worker died (the pool starts again): try again
                        broken += 1
                        if broken >= BROKEN_TRIES:
                            raise
            if time.monotonic() > renew:
                renew = time.monotonic() + LEASE / 3
                if not reviews.progress(
                    job.game_id, PART, owner=owner, done=done, at=time.time(), lease=LEASE
                ):
                    return None
            time.sleep(SLOT_POLL)
        done += 1
        if not reviews.progress(
            job.game_id, PART, owner=owner, done=done, at=time.time(), lease=LEASE
        ):
            return None  # the row was taken over: that computation will finish it
        return out

    game, budget = job.game, job.budget
    try:
        steps: list[StepReview] = []
        for placed in range(CELLS):
            reviewed = step(review_step, game, placed, budget)
            if reviewed is None:
                return
            steps.append(reviewed)
        cells: list[int] = []
        for placed in range(CELLS):
            par = ps.Game(game.table, game.cards, tuple(cells))
            chosen = step(hint, visible(par, placed), budget=budget)
            if chosen is None:
                return
            cells.append(chosen[0] * 5 + chosen[1])
        reviews.finish(
            job.game_id, PART, owner=owner, status=DONE, result=summary(game, steps, cells, budget)
        )
    except Exception as exc:
        log.exception("review of %s failed", job.game_id)
        try:
            reviews.finish(
                job.game_id, PART, owner=owner, status=FAILED, result={"error": str(exc)}
            )
        except Exception:  # the store closed (the server is stopping): the lease runs out
            log.warning("review of %s: could not record the failure", job.game_id)
