"""The review routes (docs/review.md): a Poker Squares review computed in the background and
stored, refused before the end and for someone else's deal; a Kings Corner round replayed
only once the engine says it is over, never revealing a card of a round in progress."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable import poker_squares as ps
from cardtable.server import Settings, create_app
from cardtable.server.games.saved_match import SavedMatch
from cardtable.server.review import jobs as review_jobs
from cardtable.server.review.explain import GOOD_BELOW
from cardtable.server.review.store import ReviewStore
from tests.server.helpers import Api
from tests.server.kc_driver import play_match
from tests.server.test_hidden_info import cards_named, saved_state
from tests.support.postgres import fresh_schema

PS = "/api/review/poker-squares"
KC = "/api/review/kings-corner"
REVIEW_WAIT = 120.0
"""Seconds a test waits for a review: one takes a second or two at the tests' budget on an idle
machine, and over 30 s (the old limit) on PostgreSQL with a loaded machine's pool."""


def finished_deal(api: Api, **options: Any) -> Any:
    """A deal played to the end: each card on the first empty cell."""
    game = api.ps_new(**options)
    for _ in range(25):
        cells = [c for row in game["view"]["grid"] for c in row]
        row, col = divmod(cells.index(None), 5)
        game = api.ps(game, "moves", row=row, col=col)
    assert game["view"]["is_over"]
    return game


def wait_done(api: Api, game_id: str) -> Any:
    seen = []
    deadline = time.monotonic() + REVIEW_WAIT
    while time.monotonic() < deadline:
        answer = api.get(f"{PS}/{game_id}")
        seen.append((answer["state"], answer["done"]))
        if answer["state"] == "done":
            dones = [d for _, d in seen]
            assert dones == sorted(dones), "progress never goes back"
            return answer
        assert answer["state"] in ("running", "waiting"), answer
        if answer["state"] == "waiting":
            api.post(f"{PS}/{game_id}/start")
        time.sleep(0.05)
    raise AssertionError(f"the review did not finish: {seen[-3:]}")


def test_a_deal_in_progress_is_never_reviewed(api: Api, other: Api) -> None:
    game = api.ps_new()
    game = api.ps(game, "moves", row=0, col=0)
    for method, path in (("get", ""), ("post", "/start")):
        answer = getattr(api, method)(f"{PS}/{game['id']}{path}", status=409)
        assert answer["code"] == "wrong_phase" and "in progress" in answer["message"]
        assert set(answer) == {"code", "message"}
    # Someone else's deal does not exist for the caller, finished or not.
    done = finished_deal(api)
    for game_id in (game["id"], done["id"]):
        assert other.post(f"{PS}/{game_id}/start", status=404)["code"] == "not_found"
        assert other.get(f"{PS}/{game_id}", status=404)["code"] == "not_found"
    assert api.get(f"{PS}/no-such-game", status=404)["code"] == "not_found"


@pytest.mark.variants("table")
@pytest.mark.parametrize("table", ["american", "british"])
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_review_is_computed_stored_and_shown_again(api: Api, table: str) -> None:
    game = finished_deal(api, table=table)
    assert api.get(f"{PS}/{game['id']}") == {
        "state": "none",
        "done": 0,
        "total": 50,
        "review": None,
    }
    first = api.post(f"{PS}/{game['id']}/start")
    assert first["state"] in ("running", "done") and first["total"] == 50
    review = wait_done(api, game["id"])["review"]
    view = game["view"]
    assert review["table"] == table and review["total"] == view["total"]
    assert review["line_scores"] == view["line_scores"]
    assert len(review["steps"]) == 25 and len(review["cards"]) == 25
    assert review["placements"] == [[i // 5, i % 5] for i in range(25)]
    truth = ps.Game.from_dict(saved_state(api, game["id"]))
    assert review["cards"] == [str(c) for c in truth.cards]
    assert review["vs_par"] == review["total"] - review["par"]
    assert review["expected_loss"] == pytest.approx(
        sum(s["loss"] for s in review["steps"]), abs=0.2
    )
    assert review["steps"][-1]["expected"] == view["total"]
    for i, step in enumerate(review["steps"]):
        assert step["index"] == i and step["chosen"] == [i // 5, i % 5]
        assert len(step["estimates"]) == 25 - i
    # The words: accuracy from the steps, and the line each cell served (the first card of a
    # row-by-row deal starts row 1; the first card of each later row joins a column).
    limit = GOOD_BELOW[table]
    good = sum(1 for s in review["steps"] if s["chosen"] == s["best"] or s["loss"] < limit)
    assert review["accuracy"] == {
        "percent": round(100 * good / 25), "good": good, "placements": 25, "good_below": limit,
        "hinted": 0,
    }  # fmt: skip
    assert not any(s["hinted"] for s in review["steps"])  # no hint was asked
    first_line = review["steps"][0]["chosen_line"]
    assert first_line == {"line": "row", "index": 0, "hand": "start", "rank": None}
    assert review["steps"][5]["chosen_line"]["line"] == "column"
    assert all(s["best_line"]["line"] in ("row", "column") for s in review["steps"])
    # Stored: asked again (POST or GET), it is there at once and unchanged.
    again = api.post(f"{PS}/{game['id']}/start")
    assert again["state"] == "done" and again["review"] == review


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_another_process_sees_the_stored_progress_and_review(api: Api, settings: Settings) -> None:
    game = finished_deal(api)
    api.post(f"{PS}/{game['id']}/start")
    review = wait_done(api, game["id"])["review"]
    with TestClient(create_app(settings)) as second:
        elsewhere = Api(second, api.player_id)
        assert elsewhere.get(f"{PS}/{game['id']}")["review"] == review


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_started_review_reads_as_running_at_once(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start answered ``running`` has claimed the stored row: a GET right after it (from
    any process) reads ``running``, not ``none``, however late the computing thread gets to
    its claim (CI once read ``none`` on a loaded machine)."""
    claim = ReviewStore.claim

    def late_claim(self: ReviewStore, *args: Any, **kwargs: Any) -> bool:
        time.sleep(0.3)
        return claim(self, *args, **kwargs)

    monkeypatch.setattr(ReviewStore, "claim", late_claim)
    game = finished_deal(api)
    assert api.post(f"{PS}/{game['id']}/start")["state"] == "running"
    assert api.get(f"{PS}/{game['id']}")["state"] in ("running", "done")
    assert wait_done(api, game["id"])["review"]["total"] == game["view"]["total"]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_review_whose_process_stopped_is_taken_over(api: Api) -> None:
    game = finished_deal(api)
    store = api.client.app.state.runtime.store  # type: ignore[attr-defined]
    reviews = ReviewStore(store)
    # A process claimed it, wrote some progress and stopped: its lease ran out a minute ago.
    assert reviews.claim(
        game["id"], review_jobs.PART, version=game["version"], budget=8, total=50,
        owner="gone", at=time.time() - 100, lease=30, seen=None,
    )  # fmt: skip
    assert reviews.progress(
        game["id"], review_jobs.PART, owner="gone", done=7, at=time.time() - 60, lease=0
    )
    assert api.get(f"{PS}/{game['id']}")["state"] == "waiting"
    assert api.post(f"{PS}/{game['id']}/start")["state"] in ("running", "done")
    assert wait_done(api, game["id"])["review"]["total"] == game["view"]["total"]
    # The stopped owner can no longer write.
    assert not reviews.progress(
        game["id"], review_jobs.PART, owner="gone", done=8, at=time.time(), lease=30
    )


def test_only_one_of_two_claims_wins(api: Api) -> None:
    game = finished_deal(api)
    reviews = ReviewStore(api.client.app.state.runtime.store)  # type: ignore[attr-defined]
    args: dict[str, Any] = {"version": 1, "budget": 8, "total": 50, "lease": 30}
    now = time.time()
    assert reviews.claim(game["id"], "x", owner="a", at=now, seen=None, **args)
    assert not reviews.claim(game["id"], "x", owner="b", at=now, seen=None, **args)
    row = reviews.load(game["id"], "x")
    assert row is not None and row.owner == "a"
    stale = row.__class__(**{**row.__dict__, "owner": "z"})
    assert not reviews.claim(game["id"], "x", owner="b", at=now, seen=stale, **args)
    assert reviews.claim(game["id"], "x", owner="c", at=now, seen=row, **args)


@pytest.fixture
def pg_settings(postgres_url: str, tmp_path: Path) -> Iterator[Settings]:
    with fresh_schema(postgres_url) as url:
        yield Settings(data_dir=tmp_path, database_url=url, hint_budget=4)


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_review_on_postgresql(pg_settings: Settings) -> None:
    with TestClient(create_app(pg_settings)) as client:
        api = Api.new_player(client)
        game = finished_deal(api, table="british")
        assert api.post(f"{PS}/{game['id']}/start")["state"] in ("running", "done")
        assert wait_done(api, game["id"])["review"]["total"] == game["view"]["total"]
        reviews = ReviewStore(client.app.state.runtime.store)  # type: ignore[attr-defined]
        args: dict[str, Any] = {"version": 1, "budget": 4, "total": 50, "lease": 30}
        assert not reviews.claim(game["id"], "placements", owner="b", at=0, seen=None, **args)


# -- Kings Corner -----------------------------------------------------------------------------


def kc_match(api: Api, rounds: int = 1, players: int = 2) -> Any:
    seats = [{"kind": "human"}] + [{"kind": "computer", "strength": "easy"}] * (players - 1)
    return api.kc_new(seats=seats, rounds=rounds)


def test_a_round_in_progress_is_never_replayed(api: Api, other: Api) -> None:
    game = kc_match(api, rounds=3)
    answer = api.get(f"{KC}/{game['id']}/rounds/1", status=409)
    assert answer["code"] == "wrong_phase" and set(answer) == {"code", "message"}
    assert not cards_named(answer)
    assert api.get(f"{KC}/{game['id']}/rounds/4", status=409)["code"] == "wrong_phase"
    assert api.get(f"{KC}/{game['id']}/rounds/6", status=422)["code"] == "invalid_request"
    assert other.get(f"{KC}/{game['id']}/rounds/1", status=404)["code"] == "not_found"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_replay_of_finished_rounds_shows_every_turn(api: Api, other: Api) -> None:
    game = kc_match(api, rounds=3, players=3)
    # Play round 1 only (stop at round_over): round 2 is then dealt but must stay closed.
    stop: dict[str, Any] = {"round": None}

    def until_round_over(g: dict[str, Any]) -> None:
        if g["phase"] == "round_over" and stop["round"] is None:
            stop["round"] = g
            raise StopIteration

    with pytest.raises(StopIteration):
        play_match(api, game, on_answer=until_round_over)
    over = stop["round"]
    assert over is not None
    replay = api.get(f"{KC}/{over['id']}/rounds/1")
    assert replay["round"] == 1 and replay["players"] == 3 and replay["finished_rounds"] == 1
    assert replay["seats"] == ["human", "computer", "computer"]
    table = saved_state(api, over["id"])
    assert replay["result"]["penalties"] == over["match"]["results"][0]["penalties"]
    assert replay["final"]["piles"] == over["view"]["piles"]
    # Every hand at the end is the engine's.
    state = SavedMatch.from_dict(table).match.state
    assert replay["final"]["hands"] == [[str(c) for c in h] for h in state.hands]
    turns = replay["turns"]
    assert turns and all(t["moves"] for t in turns)
    for before, after in itertools.pairwise(turns):
        assert before["moves"][-1]["move"] == "end"
        assert before["moves"][-1]["frame"] == after["start"]
        assert after["turn"] == before["turn"] + 1
    for t in turns:
        assert t["suggested"]["moves"] and t["same"] == (
            t["suggested"]["moves"] == [m["move"] for m in t["moves"]]
        )
    # The next round is dealt but not over: closed, and the answer names no card.
    nxt = api.kc(over, "next-round")
    closed = api.get(f"{KC}/{nxt['id']}/rounds/2", status=409)
    assert not cards_named(closed)
    assert api.get(f"{KC}/{nxt['id']}/rounds/1")["turns"] == turns
    assert other.get(f"{KC}/{nxt['id']}/rounds/1", status=404)["code"] == "not_found"


def test_replay_follows_undo_and_a_whole_match(api: Api) -> None:
    game = kc_match(api, rounds=1)
    undone = {"n": 0}

    def person(g: dict[str, Any]) -> str:
        legal = g["view"]["legal_moves"]
        plays = [m for m in legal if m != "end"]
        if plays and g["view"]["can_undo"] is False and undone["n"] < 3:
            # Play, take it back, then carry on: the replay must not show the undone play.
            after = api.kc(g, "moves", move=plays[0])
            if after["phase"] == "play" and after["view"]["can_undo"]:
                api.kc(after, "undo")
                undone["n"] += 1
            return "__refresh__"
        return plays[0] if plays else "end"

    for _ in range(500):
        current = api.get(f"/api/kings-corner/games/{game['id']}")
        if current["phase"] == "match_over":
            break
        if current["phase"] == "computer":
            api.kc(current, "computer-step")
        elif current["phase"] == "play":
            move = person(current)
            if move != "__refresh__":
                api.kc(current, "moves", move=move)
    else:
        raise AssertionError("the match did not end")
    assert undone["n"] > 0
    replay = api.get(f"{KC}/{game['id']}/rounds/1")
    state = SavedMatch.from_dict(saved_state(api, game["id"])).match.state
    assert replay["final"]["hands"] == [[str(c) for c in h] for h in state.hands]
    assert api.get(f"{KC}/{game['id']}/rounds/2", status=409)["code"] == "wrong_phase"
