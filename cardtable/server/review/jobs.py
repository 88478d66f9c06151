"""Computing Poker Squares reviews in the background (docs/review.md).

`ensure` starts the review of a finished deal unless it is stored or being computed: the
process that wins the claim on the stored row (`ReviewStore.claim`) computes it in a
thread, writing its progress after every step and the review at the end. Another process
(or this one) answers from the row alone, so every process shows the same progress; a row
whose lease ran out (its process stopped) is claimed again by the next request.

A process computes at most `WORKERS` reviews at once (each takes a few seconds of one
core); beyond that a request is answered "waiting" and the page asks again. That bound only
decides *when* a review starts, never what it says: the review depends on the deal and the
budget alone.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from typing import Any

from cardtable import poker_squares as ps
from cardtable.poker_squares.review import STEPS, review_deal
from cardtable.server.core.store import Store
from cardtable.server.review.store import DONE, FAILED, RUNNING, ReviewRow, ReviewStore

PART = "placements"
LEASE = 30.0
"""Seconds a computing thread holds its row without writing progress (a step takes well
under a second, so only a stopped process lets it run out)."""
WORKERS = 2

log = logging.getLogger("cardtable.server")
_slots = threading.BoundedSemaphore(WORKERS)


def status(row: ReviewRow | None, now: float) -> tuple[str, int, int, dict[str, Any] | None]:
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


def ensure(
    store: Store, game_id: str, version: int, game: ps.Game, budget: int
) -> tuple[str, int, int, dict[str, Any] | None]:
    """Start the review of a finished deal unless it is stored or running; its status."""
    reviews = ReviewStore(store)
    row = reviews.load(game_id, PART)
    now = time.time()
    state = status(row, now)
    if state[0] in ("done", "running"):
        return state
    if not _slots.acquire(blocking=False):
        return "waiting", state[1], state[2], None
    owner = secrets.token_hex(8)
    try:
        claimed = reviews.claim(
            game_id, PART, version=version, budget=budget, total=STEPS, owner=owner,
            at=now, lease=LEASE, seen=row,
        )  # fmt: skip
    except Exception:
        _slots.release()
        raise
    if not claimed:
        _slots.release()  # another request got there first: show what it wrote
        return status(reviews.load(game_id, PART), time.time())
    worker = threading.Thread(
        target=_compute,
        args=(reviews, game_id, owner, game, budget),
        name=f"review-{game_id}",
        daemon=True,
    )
    worker.start()
    return RUNNING, 0, STEPS, None


def _compute(reviews: ReviewStore, game_id: str, owner: str, game: ps.Game, budget: int) -> None:
    try:
        for out in review_deal(game, budget):
            if isinstance(out, int):
                if not reviews.progress(
                    game_id, PART, owner=owner, done=out, at=time.time(), lease=LEASE
                ):
                    return  # the row was taken over: that computation will finish it
            else:
                reviews.finish(game_id, PART, owner=owner, status=DONE, result=out)
    except Exception as exc:
        log.exception("review of %s failed", game_id)
        try:
            reviews.finish(game_id, PART, owner=owner, status=FAILED, result={"error": str(exc)})
        except Exception:  # the store closed (the server is stopping): the lease runs out
            log.warning("review of %s: could not record the failure", game_id)
    finally:
        _slots.release()
