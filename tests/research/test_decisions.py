"""The decision-fitted whole-grid correction (issue 31, `research/ps_decisions.py`): the
rollout plays the given cards to the end, a decision tries one cell per symmetry class with
the same continuations, the fit sees only differences within a decision (a shift of a whole
decision changes nothing) and recovers weights that generated the data, and the script's
play / fit round trip writes a root correction the search accepts."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse, cell_classes, static_estimate
from cardtable.poker_squares.hint.search_look import look_values
from cardtable.poker_squares.hint.whole_grid import N_FEATURES, WholeGrid
from research import ps_decisions


def dealt(cards: list[int], table: str = "american") -> Position:
    """The position after placing ``cards`` greedily, in order."""
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    for card in cards:
        pos.see(card)
        _, cell = analyse(pos, card, vt, pts, 0)
        pos.put(cell, card, pts)
    return pos


def test_a_rollout_places_exactly_the_given_cards() -> None:
    deck = random.Random(4).sample(range(52), 25)
    vt = load_values("american")
    pts = line_points("american")
    start = dealt(deck[:10])
    total = ps_decisions.rollout(start, deck[10:], vt, pts)
    assert total == dealt(deck).total  # the same greedy choices from the same cards
    # One empty cell left: the rollout's total is that grid's score.
    last = dealt(deck[:24])
    (cell,) = last.empties()
    done = last.copy()
    done.see(deck[24])
    done.put(cell, deck[24], pts)
    assert ps_decisions.rollout(last, deck[24:], vt, pts) == done.total


def test_a_decision_values_each_cell_class_on_the_same_continuations() -> None:
    deck = random.Random(8).sample(range(52), 25)
    vt = load_values("british")
    pts = line_points("british")
    pos = dealt(deck[:6], "british")
    card = deck[6]
    pos.see(card)
    conts = [deck[7:], list(reversed(deck[7:]))]
    xs, vs, looks, ys = ps_decisions.decision(pos, card, conts, vt, pts)
    classes = list(cell_classes(pos))
    assert len(xs) == len(vs) == len(looks) == len(ys) == len(classes) > 1
    assert looks == [look_values(pos, card, classes, vt, pts)[0][c] for c in classes]
    assert all(len(x) == N_FEATURES and x[0] == 1.0 for x in xs)
    for cell, v, y in zip(classes, vs, ys, strict=True):
        after = pos.copy()
        after.put(cell, card, pts)
        assert v == static_estimate(after, vt)
        want = np.mean([ps_decisions.rollout(after, c, vt, pts) for c in conts])
        assert y == want


def test_the_fit_sees_only_differences_within_a_decision() -> None:
    rng = np.random.default_rng(3)
    n_groups, per = 400, 6
    group = np.repeat(np.arange(n_groups), per)
    t = np.full(group.shape, 12, dtype=np.int64)
    x = rng.integers(0, 4, size=(group.size, N_FEATURES)).astype(np.float64)
    x[:, 0] = 1.0
    true = np.zeros(N_FEATURES)
    true[11] = 2.5  # rank_shared_u1
    true[17] = -1.5  # suit_short
    v = rng.normal(100, 20, size=group.size)
    level = rng.normal(0, 50, size=n_groups)[group]  # how good each decision's position is
    y = v + x @ true + level
    keep = list(range(1, N_FEATURES))
    w, before, after = ps_decisions.fit_weights(x, v, y, t, group, 1e-6, keep)
    assert np.allclose(w[12], true, atol=1e-6)
    assert not w[:12].any() and not w[13:].any() and w[12, 0] == 0.0
    assert before > 1.0 and after < 1e-9
    shifted, _, _ = ps_decisions.fit_weights(x, v, y + 1000.0 * group, t, group, 1e-6, keep)
    assert np.allclose(shifted, w, atol=1e-6)


def test_play_then_fit_writes_a_root_correction(tmp_path: Path) -> None:
    data = tmp_path / "d.npz"
    out = tmp_path / "w.npz"
    ps_decisions.main(["play", "--table", "american", "--games", "3", "--seed", "2",
                       "--per-game", "2", "--out", str(data)])  # fmt: skip
    z = np.load(data)
    assert len(np.unique(z["group"])) == 6 and z["x"].shape == (len(z["y"]), N_FEATURES)
    assert len(z["v"]) == len(z["look"]) == len(z["y"])
    assert set(z["t"].tolist()) <= set(range(2, 25))
    ps_decisions.main(["fit", "--table", "american", "--data", str(data), "--target", "look",
                       "--only", "rank", "suit", "--out", str(out)])  # fmt: skip
    whole = WholeGrid.from_bytes("american", out.read_bytes())
    assert not whole.at_leaves and not whole.weights[:, 0].any()
    assert whole.weights[:, 11:19].any() and not whole.weights[:, 1:11].any()
