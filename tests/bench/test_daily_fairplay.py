"""The fair-play benchmark's own parts (docs/daily.md, "Fair play"): the clairvoyant who
reads the check submits the best grid the check lets through, and the fit separates two
sets of readings with its threshold at the honest side's out-of-fold quantile."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from bench import daily_fairplay
from bench.daily_cheaters import adaptive, clairvoyant, honest, plan
from cardtable.cards import shuffled_deck
from cardtable.poker_squares.game import CELLS, Game
from cardtable.server.daily.public import fairplay


def total(cards: list, cells: list[int]) -> int:
    return Game("american", tuple(cards), tuple(cells)).total


def test_the_adaptive_player_submits_the_best_grid_that_passes() -> None:
    cards = shuffled_deck(random.Random(3))[:CELLS]  # the plan: 159 points, the engine: 61
    seen: list[tuple[int, list[int]]] = []
    bar = total(cards, honest("american", cards, [], CELLS)) + 5

    def passes(cells: list[int]) -> bool:
        seen.append((total(cards, cells), cells))
        return total(cards, cells) <= bar  # a stand-in for the check

    cells, passed = adaptive("american", cards, passes, steps=4_000)
    assert sorted(cells) == list(range(CELLS))
    assert len(seen) == 10
    allowed = [t for t, _ in seen if t <= bar]
    assert 0 < passed == len(allowed) < len(seen)
    assert total(cards, cells) == max(allowed)
    # the first two tried are the plan of all 25 cards and the honest engine's grid
    assert seen[0][1] == clairvoyant("american", cards, 4_000)
    assert seen[1][1] == honest("american", cards, [], CELLS)


def test_a_plan_keeps_the_cards_already_placed() -> None:
    cards = shuffled_deck(random.Random(6))[:CELLS]
    fixed = [12, 0, 24, 7]
    cells = plan("american", cards, fixed, 2_000, random.Random(1))
    assert cells[:4] == fixed and sorted(cells) == list(range(CELLS))


def test_the_fit_separates_and_sets_its_threshold_out_of_fold(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n = len(fairplay.feature_names())
    shift = np.zeros(n)
    shift[:5] = 2.5  # the "clairvoyant" is lucky on five features
    paths = []
    for name, mean in (("clair", shift), ("engine", np.zeros(n)), ("noisy", np.zeros(n))):
        path = tmp_path / f"{name}.npz"
        read = daily_fairplay.read_path(path)
        np.savez(read, features=rng.normal(mean, 1.0, (400, n)), player=name, table="american")
        paths.append(path)
    model = daily_fairplay.fit("american", paths[0], paths[1:], 0.99, 0.01)
    assert model.weights[:5].min() > 3 * np.abs(model.weights[5:]).max()
    score = {
        p.stem: ((np.load(daily_fairplay.read_path(p))["features"] - model.center) / model.scale)
        @ model.weights
        for p in paths
    }
    assert np.mean(score["clair"] >= model.threshold) > 0.9
    for fair in ("engine", "noisy"):
        assert np.mean(score[fair] >= model.threshold) < 0.03
    again = fairplay.parse_model(model.to_json({"test": True}))
    assert np.allclose(again.weights, model.weights, atol=1e-6)
