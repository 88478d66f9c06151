"""Provably fair shuffles over HTTP (docs/fairness.md): a real deal and a real round show the
commitment from the start and the seed and salt only at the end, and those recompute the
cards the player saw; a replay keeps the seed; X-Test-Seed deals stay integer-seeded and
unverifiable; a game saved before fair shuffles (no fair fields) still loads and plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable import fairness
from cardtable import poker_squares as ps
from cardtable.server import Settings
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api

PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=None, allow_seed_for_tests=True)


def test_a_poker_squares_deal_commits_then_reveals(api: Api) -> None:
    game = api.ps_new()
    committed = game["view"]["fairness"]["commitment"]
    turned = []
    for i in range(25):
        fair = game["view"]["fairness"]
        assert fair["commitment"] == committed and fair["seed"] is None and fair["salt"] is None
        assert fair["algorithm"] == fairness.ALGORITHM
        turned.append(game["view"]["card"])
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
    fair = game["view"]["fairness"]
    assert fair["commitment"] == committed
    deck = [str(c) for c in fairness.fair_deck(fair["seed"])]
    assert fairness.commitment(fair["seed"], fair["salt"]) == committed
    assert turned == deck[:25]
    # A replay deals the same cards from the same (now public) seed.
    again = api.ps_new(replay_of=game["id"])
    assert again["view"]["fairness"] == {**fair, "seed": None, "salt": None, "round": None}
    assert again["view"]["card"] == deck[0] and again["view"]["practice"]


def test_test_seeds_stay_integer_seeded(api: Api, client: TestClient) -> None:
    headers = {**api.headers, "X-Test-Seed": "12345"}
    body = {"table": "american", "target": "normal"}
    game = client.post("/api/poker-squares/games", json=body, headers=headers).json()
    assert game["view"]["fairness"] is None
    assert game["view"]["card"] == str(ps.deal("american", 12345).cards[0])
    seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
    kc = client.post("/api/kings-corner/games", json={"seats": seats}, headers=headers).json()
    assert kc["view"]["fairness"] is None


def test_an_old_saved_deal_loads_and_plays(api: Api, client: TestClient) -> None:
    game = api.ps_new()
    store = client.app.state.runtime.store  # type: ignore[attr-defined]
    assert api.player_id is not None
    record = store.load_game(game["id"], player_key(api.player_id))
    old = ps.ENGINE.to_dict(ps.deal("british", 77))  # the saved form before fair shuffles
    assert "fair" not in old
    record = store.save_game(record, old, finished=False, log=[])
    game = api.get(f"/api/poker-squares/games/{game['id']}")
    assert game["view"]["fairness"] is None and game["view"]["table"] == "british"
    for i in range(25):
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
    assert game["view"]["is_over"] and game["view"]["fairness"] is None


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_kings_corner_round_commits_then_reveals(api: Api) -> None:
    seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
    game = api.kc_new(seats=seats, rules={"preset": "simple"}, rounds=3)
    fair = game["view"]["fairness"]
    assert fair["round"] == 1 and fair["seed"] is None and fair["salt"] is None
    first_hand: list[str] | None = game["view"]["hand"] or None
    for _ in range(3000):
        if game["phase"] == "round_over":
            break
        if game["phase"] == "computer":
            game = api.kc(game, "computer-step")
            continue
        first_hand = first_hand or game["view"]["hand"]
        legal = game["view"]["legal_moves"]
        plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
        game = api.kc(game, "moves", move=plays[0] if plays else "end")
    end: dict[str, Any] = game["view"]["fairness"]
    assert end["commitment"] == fair["commitment"] and end["round"] == 1
    assert fairness.commitment(end["seed"], end["salt"]) == fair["commitment"]
    deck = [str(c) for c in fairness.fair_deck(end["seed"])]
    assert first_hand is not None and set(deck[:7]) <= set(first_hand)
    game = api.kc(game, "next-round")
    second = game["view"]["fairness"]
    assert second["round"] == 2 and second["seed"] is None
    assert second["commitment"] != fair["commitment"]
