"""Engine review work is admitted (issue 27): a player's Poker Squares reviews run one at a
time with a few waiting and are refused beyond (429), reviews start in turn between players,
their steps take only a search slot no request is waiting for, and a Kings Corner round's
replay is worked out once and then served from the cache.

The searches run in the test's own threads (``search_processes=0``) so that a test can hold
one at a chosen point; the pool itself is the hint's (tests/server/core/test_admission.py).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.admission import Admission, spare_slot
from cardtable.server.games.public import kc_replay
from cardtable.server.review import jobs as review_jobs
from cardtable.server.review import kings_corner as review_kc
from tests.server.helpers import Api
from tests.server.kc_driver import play_match

from .test_api import KC, PS, finished_deal, kc_match

WAIT = 20.0


def settings_for(tmp_path: Path, **options: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": None,
        "hint_budget": 0,  # the learned evaluator alone: a review takes well under a second
        "search_processes": 0,
        "max_searches": 4,  # a review held at the gate keeps its slot: room for the others
        "player_rate": None,
        "signup_rate": None,
    }
    return Settings(**{**base, **options})


class Gate:
    """Holds every review at its first step until opened; records the order reviews start."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = threading.Event()
        self.started: list[str] = []
        self.waiting = threading.Semaphore(0)
        real_step, real_compute = review_jobs.review_step, review_jobs.compute

        def review_step(game: Any, placed: int, budget: int) -> Any:
            if placed == 0:
                self.waiting.release()
                assert self.open.wait(WAIT), "the gate was never opened"
            return real_step(game, placed, budget)

        def compute(admission: Admission, job: review_jobs.ReviewJob) -> None:
            self.started.append(job.game_id)
            real_compute(admission, job)

        monkeypatch.setattr(review_jobs, "review_step", review_step)
        monkeypatch.setattr(review_jobs, "compute", compute)

    def held(self) -> None:
        """Wait until one more review is held at the gate."""
        assert self.waiting.acquire(timeout=WAIT)


def wait_done(api: Api, game_id: str) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        answer: dict[str, Any] = api.post(f"{PS}/{game_id}/start")
        if answer["state"] == "done":
            return answer
        time.sleep(0.02)
    raise AssertionError(f"review of {game_id} did not finish")


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Api, Api]]:
    with TestClient(create_app(settings_for(tmp_path, review_queue=0))) as client:
        yield Api.new_player(client), Api.new_player(client)


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_players_second_review_is_refused_while_the_first_runs(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = two
    gate = Gate(monkeypatch)
    first, second = finished_deal(ann), finished_deal(ann)
    theirs = finished_deal(bob)

    assert ann.post(f"{PS}/{first['id']}/start")["state"] == "running"
    gate.held()
    refused = ann.post(f"{PS}/{second['id']}/start", status=429)
    assert refused["code"] == "rate_limited"
    assert "already have a review" in refused["message"]
    assert (
        ann.client.post(f"{PS}/{second['id']}/start", headers=ann.headers).headers["Retry-After"]
        == "5"
    )
    # Asking about the running one again is no new review; another player is not held back.
    assert ann.post(f"{PS}/{first['id']}/start")["state"] == "running"
    assert bob.post(f"{PS}/{theirs['id']}/start")["state"] == "running"
    gate.held()

    gate.open.set()
    assert wait_done(ann, first["id"])["review"]["total"] == first["view"]["total"]
    assert wait_done(bob, theirs["id"])["review"]["total"] == theirs["view"]["total"]
    # The first is done: the second may run now.
    assert wait_done(ann, second["id"])["review"]["total"] == second["view"]["total"]
    assert gate.started == [first["id"], theirs["id"], second["id"]]


def test_waiting_reviews_start_in_turn_between_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(tmp_path, review_running=1, review_queue=1)
    with TestClient(create_app(settings)) as client:
        ann, bob = Api.new_player(client), Api.new_player(client)
        gate = Gate(monkeypatch)
        a1, a2, a3 = (finished_deal(ann) for _ in range(3))
        b1 = finished_deal(bob)

        assert ann.post(f"{PS}/{a1['id']}/start")["state"] == "running"
        gate.held()
        # One running and one waiting per player; the global cap (1) makes Bob's wait too.
        assert ann.post(f"{PS}/{a2['id']}/start")["state"] == "waiting"
        assert ann.post(f"{PS}/{a3['id']}/start", status=429)["code"] == "rate_limited"
        assert bob.post(f"{PS}/{b1['id']}/start")["state"] == "waiting"
        reviews = review_jobs.reviews_of(client.app.state.runtime)  # type: ignore[attr-defined]
        assert reviews.counts() == (1, 2)

        gate.open.set()
        for api, game in ((ann, a1), (bob, b1), (ann, a2)):
            assert wait_done(api, game["id"])["review"]["total"] == game["view"]["total"]
        # Ann's second waited first, but Bob had not had a turn: his started before it.
        assert gate.started == [a1["id"], b1["id"], a2["id"]]
        assert reviews.counts() == (0, 0)


def test_a_background_slot_never_goes_before_a_waiting_request(tmp_path: Path) -> None:
    admission = Admission(settings_for(tmp_path, max_searches=1, search_wait=5.0))
    with spare_slot(admission) as held:
        assert held
        with spare_slot(admission) as again:
            assert not again  # the only slot is taken
    holding, release = threading.Event(), threading.Event()
    order: list[str] = []

    def request(name: str, hold: bool) -> None:
        with admission.reserve(name, name, rated=False):
            order.append(name)
            if hold:
                holding.set()
                assert release.wait(WAIT)

    first = threading.Thread(target=request, args=("first", True))
    first.start()
    assert holding.wait(WAIT)
    second = threading.Thread(target=request, args=("second", False))
    second.start()
    end = time.monotonic() + WAIT
    while admission._waiting == 0:  # the second request now waits for the slot
        assert time.monotonic() < end
        time.sleep(0.005)
    release.set()
    tries = 0
    while "second" not in order and tries < 20_000:
        with spare_slot(admission) as held:
            # Only once the waiting request has had the slot may background work take it.
            assert not held or "second" in order, "background work went before a request"
        tries += 1
    first.join(WAIT)
    second.join(WAIT)
    assert order == ["first", "second"]
    with spare_slot(admission) as held:
        assert held  # free again, nobody waiting


# -- Kings Corner replays --------------------------------------------------------------------


class Spy:
    """Counts the engine's replays (and can slow one down)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, delay: float = 0.0) -> None:
        self.calls = 0
        real = review_kc.replay_round

        def replay_round(*args: Any) -> Any:
            self.calls += 1
            time.sleep(delay)
            return real(*args)

        monkeypatch.setattr(review_kc, "replay_round", replay_round)
        review_kc.REPLAYS.clear()


def finished_match(api: Api, rounds: int = 1) -> dict[str, Any]:
    game = kc_match(api, rounds=rounds)
    play_match(api, game)
    return game


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_replay_is_computed_once_for_repeated_fetches(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = two
    spy = Spy(monkeypatch)
    game = finished_match(ann)
    first = ann.get(f"{KC}/{game['id']}/rounds/1")
    second = ann.get(f"{KC}/{game['id']}/rounds/1")
    assert first == second and first["round"] == 1 and first["turns"]
    assert spy.calls == 1
    # The cache never answers for someone else's game.
    assert bob.get(f"{KC}/{game['id']}/rounds/1", status=404)["code"] == "not_found"
    assert spy.calls == 1


def test_two_fetches_at_once_compute_one_replay(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, _ = two
    spy = Spy(monkeypatch, delay=0.3)
    game = finished_match(ann)
    answers: list[Any] = []
    start = threading.Barrier(2)

    def fetch() -> None:
        start.wait(WAIT)
        answers.append(ann.get(f"{KC}/{game['id']}/rounds/1"))

    threads = [threading.Thread(target=fetch) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert len(answers) == 2 and answers[0] == answers[1]
    assert spy.calls == 1


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_replay_misses_are_admitted_like_hints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One search token and none coming back during the test.
    settings = settings_for(tmp_path, search_rate=0.001, search_burst=1)
    with TestClient(create_app(settings)) as client:
        api = Api.new_player(client)
        spy = Spy(monkeypatch)
        game = kc_match(api, rounds=3)
        play_match(api, game)
        one = api.get(f"{KC}/{game['id']}/rounds/1")
        refused = api.get(f"{KC}/{game['id']}/rounds/2", status=429)
        assert refused["code"] == "rate_limited"
        # A kept replay costs no search: it is answered whatever the rate.
        assert api.get(f"{KC}/{game['id']}/rounds/1") == one
        assert spy.calls == 1


class Held:
    """Holds every replay the engine starts until opened; records the order work started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, order: list[str]) -> None:
        self.open = threading.Event()
        self.started = threading.Semaphore(0)
        real = review_kc.replay_round

        def replay_round(*args: Any) -> Any:
            order.append("replay")
            self.started.release()
            assert self.open.wait(WAIT), "the replay was never let go"
            return real(*args)

        monkeypatch.setattr(review_kc, "replay_round", replay_round)
        review_kc.REPLAYS.clear()


def in_thread(fn: Any, out: list[Any]) -> threading.Thread:
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread


def test_a_players_second_replay_is_refused_while_the_first_is_worked_out(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = two
    ann_game, bob_game = kc_match(ann, rounds=3), kc_match(bob)
    play_match(ann, ann_game)
    play_match(bob, bob_game)
    order: list[str] = []
    held = Held(monkeypatch, order)
    first: list[Any] = []
    thread = in_thread(lambda: ann.get(f"{KC}/{ann_game['id']}/rounds/1"), first)
    assert held.started.acquire(timeout=WAIT)
    refused = ann.client.get(f"{KC}/{ann_game['id']}/rounds/2", headers=ann.headers)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
    assert refused.json()["code"] == "rate_limited"
    assert "already being worked out" in refused.json()["message"]
    # Another player is not held back by it (a second slot is spare).
    theirs: list[Any] = []
    other = in_thread(lambda: bob.get(f"{KC}/{bob_game['id']}/rounds/1"), theirs)
    assert held.started.acquire(timeout=WAIT)
    held.open.set()
    thread.join(WAIT)
    other.join(WAIT)
    assert first[0]["round"] == 1 and theirs[0]["round"] == 1
    # Once the first is ready, the next round may be worked out.
    assert ann.get(f"{KC}/{ann_game['id']}/rounds/2")["round"] == 2


@contextlib.contextmanager
def waiting(monkeypatch: pytest.MonkeyPatch, api: Api, url: str, n: int) -> Iterator[list[Any]]:
    """One fetch of ``url`` held while the engine works it out and ``n`` more waiting for
    it; once the block ends the engine is let go, and the list holds every answer."""
    held = Held(monkeypatch, [])
    answers: list[Any] = []
    threads = [in_thread(lambda: api.get(url), answers)]
    assert held.started.acquire(timeout=WAIT)
    try:
        threads += [in_thread(lambda: api.get(url), answers) for _ in range(n)]
        end = time.monotonic() + WAIT
        while review_kc.REPLAYS.waiting() < n:
            assert time.monotonic() < end, f"{review_kc.REPLAYS.waiting()} of {n} waited"
            time.sleep(0.01)
        yield answers
    finally:
        held.open.set()
        for thread in threads:
            thread.join(WAIT)


def test_fetches_waiting_for_a_replay_hold_no_thread(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: 45 fetches wait for a round being worked out, more than the 40 threads of
    the request pool, and a request that needs a thread is still answered meanwhile; once
    the replay is ready, each of them gets it."""
    ann, _ = two
    game = finished_match(ann)
    monkeypatch.setattr(kc_replay, "WAITING_PER_PLAYER", 64)
    monkeypatch.setattr(kc_replay, "WAITING", 64)
    with waiting(monkeypatch, ann, f"{KC}/{game['id']}/rounds/1", 45) as answers:
        # A request that needs a thread of the pool is answered.
        assert ann.get(f"/api/kings-corner/games/{game['id']}")["id"] == game["id"]
    assert len(answers) == 46 and all(a == answers[0] for a in answers)
    assert review_kc.REPLAYS.waiting() == 0


def test_only_two_fetches_of_a_player_wait_for_a_replay(
    two: tuple[Api, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The third fetch of one player while two wait is refused at once (429), and counted."""
    ann, bob = two
    game = finished_match(ann)
    url = f"{KC}/{game['id']}/rounds/1"
    refusals = ("cardtable_waits_refused_total", {"what": "replay", "reason": "player"})
    with waiting(monkeypatch, ann, url, 2) as answers:
        before = REGISTRY.get_sample_value(*refusals) or 0.0
        refused = ann.client.get(url, headers=ann.headers)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
        assert "already waiting" in refused.json()["message"]
        assert REGISTRY.get_sample_value(*refusals) == before + 1
    assert len(answers) == 3 and answers[0]["round"] == 1
    # Someone else's game is still 404, never a wait for another's replay.
    assert bob.get(url, status=404)["code"] == "not_found"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_no_replay_starts_while_a_hint_waits_for_the_slot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(create_app(settings_for(tmp_path, max_searches=1))) as client:
        api = Api.new_player(client)
        admission: Admission = client.app.state.runtime.admission  # type: ignore[attr-defined]
        game = kc_match(api)
        play_match(api, game)
        order: list[str] = []
        held = Held(monkeypatch, order)
        held.open.set()  # the replay itself runs through once it starts
        release_first = threading.Event()

        def hint(name: str, hold: threading.Event | None) -> None:
            with admission.reserve(name, name, rated=False):
                order.append(name)
                if hold is not None:
                    assert hold.wait(WAIT)

        threads = [threading.Thread(target=hint, args=("hint-1", release_first), daemon=True)]
        threads[0].start()
        end = time.monotonic() + WAIT
        while order != ["hint-1"] and time.monotonic() < end:
            time.sleep(0.01)
        threads.append(threading.Thread(target=hint, args=("hint-2", None), daemon=True))
        threads[1].start()
        while admission._waiting != 1 and time.monotonic() < end:
            time.sleep(0.01)
        replayed: list[Any] = []
        threads.append(in_thread(lambda: api.get(f"{KC}/{game['id']}/rounds/1"), replayed))
        time.sleep(0.3)  # the replay looks for a spare slot meanwhile
        assert order == ["hint-1"]
        release_first.set()
        for thread in threads:
            thread.join(WAIT)
        # The waiting hint went first, then the replay.
        assert order == ["hint-1", "hint-2", "replay"]
        assert replayed[0]["round"] == 1


def test_a_replay_gets_503_when_no_slot_is_spare_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kc_replay, "SLOT_WAIT", 0.3)
    with TestClient(create_app(settings_for(tmp_path, max_searches=1))) as client:
        api = Api.new_player(client)
        admission: Admission = client.app.state.runtime.admission  # type: ignore[attr-defined]
        game = kc_match(api)
        play_match(api, game)
        with admission.reserve("a-hint", "someone", rated=False):
            answer = client.get(f"{KC}/{game['id']}/rounds/1", headers=api.headers)
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
        # With the slot free again the same fetch is worked out.
        assert api.get(f"{KC}/{game['id']}/rounds/1")["round"] == 1
