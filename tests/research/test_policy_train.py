"""Continuing training on the one-card lookahead's choices (`research/ps_policy_train.py`)."""

from __future__ import annotations

import random

from cardtable.poker_squares.hint.abstract import load_values
from research import ps_policy_train


def test_policy_training_starts_from_the_shipped_values_and_moves_them() -> None:
    shipped = load_values("british")
    trainer = ps_policy_train.from_table(shipped, horizon=50)
    assert trainer.values == shipped.fine and set(trainer.counts.values()) == {50}
    choose = ps_policy_train.lookahead(trainer)
    rng = random.Random(2)
    for _ in range(3):
        trainer.play(rng, 0.0, choose)
    moved = [k for k, v in trainer.values.items() if k in shipped.fine and v != shipped.fine[k]]
    assert moved  # the keys the lookahead's games met moved towards their lines' points
    assert all(trainer.counts[k] > 50 for k in moved)
