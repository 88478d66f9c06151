"""How a Poker Squares review copes when things go wrong (docs/review.md, docs/reliability.md
"Admission"): a step that raises fails the review (the page shows "failed"), a search pool that
breaks under a step is tried again before the review fails, a review that waits too long for a
spare search slot keeps its row, a row another process took over is left to that process,
and waiting reviews nobody asks about any more are dropped.

The searches run in the test's own threads (``search_processes=0``); most tests call
`compute` / `Reviews` directly over a real SQLite store, one drives the HTTP API.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable import poker_squares as ps
from cardtable.server import create_app
from cardtable.server.core.admission import Admission, overloaded, spare_slot
from cardtable.server.core.store import Store, open_store
from cardtable.server.review import jobs as review_jobs
from cardtable.server.review.store import DONE, FAILED, RUNNING, ReviewRow, ReviewStore
from tests.server.helpers import Api

from .test_admitted import WAIT, Gate, settings_for
from .test_api import PS, finished_deal

PART = review_jobs.PART


@pytest.fixture
def admission(tmp_path: Path) -> Admission:
    return Admission(settings_for(tmp_path, max_searches=1))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(settings_for(tmp_path))
    try:
        yield opened
    finally:
        opened.close()


def a_job(
    store: Store, game_id: str = "g1", player: str = "ann", seed: int = 1
) -> review_jobs.ReviewJob:
    """The review of a finished deal (each card on the next cell, row by row)."""
    dealt = ps.deal("american", seed)
    game = ps.Game(dealt.table, dealt.cards, tuple(range(25)))
    assert game.is_over
    return review_jobs.ReviewJob(store, game_id, player, 1, game, 0)


def row_of(store: Store, game_id: str = "g1") -> ReviewRow:
    row = ReviewStore(store).load(game_id, PART)
    assert row is not None
    return row


def take_over(store: Store, game_id: str = "g1") -> None:
    """Another process claims the row as it is now (its lease ran out, say)."""
    reviews = ReviewStore(store)
    seen = reviews.load(game_id, PART)
    assert seen is not None
    assert reviews.claim(
        game_id, PART, version=1, budget=0, total=50, owner="rival", at=time.time(),
        lease=30, seen=seen,
    )  # fmt: skip


def counting(
    monkeypatch: pytest.MonkeyPatch, name: str, before: Callable[[int], None]
) -> list[int]:
    """Wrap the engine function ``name`` (review_step or hint) as jobs.py calls it: ``before``
    runs with the call's number (0-based) first; returns the numbers of the calls made."""
    real = getattr(review_jobs, name)
    calls: list[int] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls))
        before(calls[-1])
        return real(*args, **kwargs)

    monkeypatch.setattr(review_jobs, name, wrapped)
    return calls


# -- a step that fails -----------------------------------------------------------------------


def test_a_step_that_raises_fails_the_review_and_retry_computes_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(n: int) -> None:
        if n == 3:  # the fourth placement's review, the first time only
            raise ValueError("the engine could not read the deal")

    calls = counting(monkeypatch, "review_step", broken)
    with TestClient(create_app(settings_for(tmp_path))) as client:
        api = Api.new_player(client)
        game = finished_deal(api)
        reviews = review_jobs.reviews_of(client.app.state.runtime)  # type: ignore[attr-defined]
        store = client.app.state.runtime.store  # type: ignore[attr-defined]

        def settle() -> None:
            for thread in list(reviews.threads):
                thread.join(WAIT)
                assert not thread.is_alive()

        with caplog.at_level(logging.ERROR, logger="cardtable.server"):
            assert api.post(f"{PS}/{game['id']}/start")["state"] in ("running", "waiting")
            settle()
        assert calls == [0, 1, 2, 3]  # it stopped at the step that raised
        answer = api.get(f"{PS}/{game['id']}")
        assert answer == {"state": "failed", "done": 50, "total": 50, "review": None}
        row = row_of(store, game["id"])
        assert row.status == FAILED
        assert row.result == {"error": "the engine could not read the deal"}
        failed = [r for r in caplog.records if r.getMessage() == f"review of {game['id']} failed"]
        assert len(failed) == 1 and failed[0].exc_info is not None

        # The page's Retry button posts start again: the review is computed from the start.
        assert api.post(f"{PS}/{game['id']}/start")["state"] in ("running", "waiting")
        settle()
        assert len(calls) == 4 + 25
        done = api.get(f"{PS}/{game['id']}")
        assert (done["state"], done["done"], done["total"]) == ("done", 50, 50)
        assert done["review"]["total"] == game["view"]["total"]
        assert row_of(store, game["id"]).status == DONE


def test_a_failure_the_stopping_store_cannot_record_is_only_a_warning(
    tmp_path: Path, admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    def stopping(n: int) -> None:
        if n == 2:
            store.close()  # the server stops under the review
            raise RuntimeError("cancelled")

    calls = counting(monkeypatch, "review_step", stopping)
    with caplog.at_level(logging.WARNING, logger="cardtable.server"):
        review_jobs.compute(admission, a_job(store))  # returns: nothing escapes the thread
    assert calls == [0, 1, 2]
    messages = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (logging.ERROR, "review of g1 failed") in messages
    assert (logging.WARNING, "review of g1: could not record the failure") in messages
    # The row stays "running" with its last progress; its lease runs out and the next
    # request (to the restarted server) claims it again.
    again = open_store(settings_for(tmp_path))
    try:
        row = row_of(again)
        assert (row.status, row.done) == (RUNNING, 2)
        assert review_jobs.status(row, row.lease_until + 1)[0] == "waiting"
    finally:
        again.close()


# -- the search pool breaks under a step -----------------------------------------------------


def broken_pool(admission: Admission, monkeypatch: pytest.MonkeyPatch, failures: int) -> list[str]:
    """The first ``failures`` searches find the pool broken (a worker died: 503)."""
    real = admission.run
    tries: list[str] = []

    def run(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        tries.append(fn.__name__)
        if len(tries) <= failures:
            raise overloaded()
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(admission, "run", run)
    return tries


def test_a_step_is_tried_again_when_the_pool_breaks_under_it(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    tries = broken_pool(admission, monkeypatch, review_jobs.BROKEN_TRIES - 1)
    review_jobs.compute(admission, a_job(store))
    row = row_of(store)
    assert (row.status, row.done, row.total) == (DONE, 50, 50)
    assert row.result is not None and row.result["total"] == a_job(store).game.total
    # The first step was tried BROKEN_TRIES times, every other once: 50 + 2 searches.
    assert len(tries) == 50 + review_jobs.BROKEN_TRIES - 1
    assert tries[: review_jobs.BROKEN_TRIES] == ["review_step"] * review_jobs.BROKEN_TRIES


def test_a_review_fails_when_the_pool_stays_broken(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    tries = broken_pool(admission, monkeypatch, 1000)
    review_jobs.compute(admission, a_job(store))
    assert len(tries) == review_jobs.BROKEN_TRIES
    row = row_of(store)
    assert (row.status, row.done) == (FAILED, 50)
    assert row.result == {"error": overloaded().message}
    with spare_slot(admission) as held:
        assert held  # the slot was given back after each try


# -- no spare slot for a while ---------------------------------------------------------------


def run_in_thread(admission: Admission, job: review_jobs.ReviewJob) -> threading.Thread:
    worker = threading.Thread(target=review_jobs.compute, args=(admission, job), daemon=True)
    worker.start()
    return worker


def wait_for(check: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < end, what
        time.sleep(0.01)


def test_a_review_waiting_for_a_slot_renews_its_lease_then_finishes(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_jobs, "LEASE", 1.5)
    monkeypatch.setattr(review_jobs, "SLOT_POLL", 0.005)
    with spare_slot(admission) as held:  # a search holds the only slot
        assert held
        worker = run_in_thread(admission, a_job(store))
        wait_for(lambda: ReviewStore(store).load("g1", PART) is not None, "never claimed")
        first = row_of(store).lease_until
        # Without a slot it writes no step, yet its lease is renewed every LEASE/3 seconds:
        # the row is never taken for a stopped process's.
        wait_for(lambda: row_of(store).lease_until > first + 0.05, "the lease was not renewed")
        row = row_of(store)
        assert (row.status, row.done) == (RUNNING, 0)
        assert review_jobs.status(row, time.time())[0] == "running"
    worker.join(WAIT)
    assert not worker.is_alive()
    row = row_of(store)
    assert (row.status, row.done) == (DONE, 50)


def test_a_review_waiting_for_a_slot_stops_when_its_row_was_taken_over(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_jobs, "LEASE", 1.5)
    monkeypatch.setattr(review_jobs, "SLOT_POLL", 0.005)
    calls = counting(monkeypatch, "review_step", lambda n: None)
    with spare_slot(admission) as held:
        assert held
        worker = run_in_thread(admission, a_job(store))
        wait_for(lambda: ReviewStore(store).load("g1", PART) is not None, "never claimed")
        take_over(store)
        # At its next renewal it finds the row is not its own any more, and stops.
        worker.join(WAIT)
        assert not worker.is_alive()
    assert calls == []
    row = row_of(store)
    assert (row.owner, row.status, row.done) == ("rival", RUNNING, 0)


# -- the row is another process's -----------------------------------------------------------


@pytest.mark.parametrize(("name", "at"), [("review_step", 2), ("hint", 4)])
def test_a_review_stops_without_writing_once_another_process_took_its_row_over(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch, name: str, at: int
) -> None:
    def over(n: int) -> None:
        if n == at:
            take_over(store)

    calls = counting(monkeypatch, name, over)
    review_jobs.compute(admission, a_job(store))
    assert calls == list(range(at + 1))  # nothing after the step during which it lost the row
    row = row_of(store)
    # The rival's row is untouched: still its own, its progress not overwritten.
    assert (row.owner, row.status, row.done, row.result) == ("rival", RUNNING, 0, None)


def test_a_review_another_process_is_computing_is_not_computed_again(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    reviews = ReviewStore(store)
    assert reviews.claim(
        "g1", PART, version=1, budget=0, total=50, owner="rival", at=time.time(), lease=30,
        seen=None,
    )  # fmt: skip
    assert reviews.progress("g1", PART, owner="rival", done=7, at=time.time(), lease=30)
    calls = counting(monkeypatch, "review_step", lambda n: None)
    review_jobs.compute(admission, a_job(store))
    assert calls == []
    row = row_of(store)
    assert (row.owner, row.done) == ("rival", 7)


def test_of_two_processes_starting_at_once_only_the_first_claim_computes(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This process reads "no row", then another process inserts its claim before this one.
    real_load = ReviewStore.load

    def load(self: ReviewStore, game_id: str, part: str) -> ReviewRow | None:
        seen = real_load(self, game_id, part)
        if seen is None:
            assert self.claim(
                game_id, part, version=1, budget=0, total=50, owner="rival", at=time.time(),
                lease=30, seen=None,
            )  # fmt: skip
        return seen

    monkeypatch.setattr(ReviewStore, "load", load)
    calls = counting(monkeypatch, "review_step", lambda n: None)
    review_jobs.compute(admission, a_job(store))
    assert calls == []
    row = real_load(ReviewStore(store), "g1", PART)
    assert row is not None and (row.owner, row.status, row.done) == ("rival", RUNNING, 0)


def test_a_review_whose_store_is_closed_is_not_started(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    calls = counting(monkeypatch, "review_step", lambda n: None)
    store.close()
    with caplog.at_level(logging.ERROR, logger="cardtable.server"):
        review_jobs.compute(admission, a_job(store))
    assert calls == []
    assert [r.getMessage() for r in caplog.records] == ["review of g1: could not claim it"]


# -- waiting reviews -------------------------------------------------------------------------


def test_asking_again_keeps_a_review_and_a_forgotten_one_is_dropped(
    admission: Admission, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_jobs, "SERVED_REMEMBERED", 1)
    gate = Gate(monkeypatch)
    reviews = review_jobs.Reviews(admission, running=1, queue=1)
    running = a_job(store, "a1", "ann", seed=1)
    forgotten = a_job(store, "a2", "ann", seed=2)
    kept = a_job(store, "b1", "bob", seed=3)

    assert reviews.ask(running) == RUNNING
    gate.held()
    assert reviews.ask(forgotten) == "waiting"
    assert reviews.ask(kept) == "waiting"
    # The page polls: asking about the same reviews again queues nothing new.
    assert reviews.ask(a_job(store, "a1", "ann", seed=1)) == RUNNING
    assert reviews.ask(a_job(store, "b1", "bob", seed=3)) == "waiting"
    assert reviews.counts() == (1, 2)
    # Both pages were last heard from longer ago than FORGOTTEN: Ann closed hers, Bob's
    # still polls and asks about b1 again.
    for job in (forgotten, kept):
        job.asked -= review_jobs.FORGOTTEN + 1
    before = kept.asked
    assert reviews.ask(a_job(store, "b1", "bob", seed=3)) == "waiting"
    assert kept.asked > before

    gate.open.set()
    wait_for(lambda: reviews.counts() == (0, 0), "the reviews did not end")
    for thread in list(reviews.threads):
        thread.join(WAIT)
    # Ann's forgotten review was dropped without a start; Bob's ran next.
    assert gate.started == ["a1", "b1"]
    assert ReviewStore(store).load("a2", PART) is None
    assert row_of(store, "b1").status == DONE
    # Only the last player started is remembered for the turns (SERVED_REMEMBERED = 1).
    assert list(reviews._served) == ["bob"]
