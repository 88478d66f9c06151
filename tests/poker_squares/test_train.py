"""The hint engine's trainer: the same seed and game count give the same value table."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardtable.poker_squares.hint.abstract import ValueTable, line_points
from cardtable.poker_squares.hint.position import Position
from training.train import Trainer, main, train


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_the_same_seed_and_games_give_the_same_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for out in (a, b):
        assert main(["--table", "british", "--games", "100", "--seed", "3", "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
    table = ValueTable.from_bytes("british", a.read_bytes())
    assert table.games == 100 and table.fine and table.coarse


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_learned_table_survives_a_round_trip_and_differs_by_seed() -> None:
    one = train("american", 100, 1, min_count=1, log=False)
    back = ValueTable.from_bytes("american", one.to_bytes())
    assert back.fine.keys() == one.fine.keys() and back.coarse.keys() == one.coarse.keys()
    # float32 on disk: values agree to about 7 significant digits.
    assert all(abs(back.fine[k] - v) <= 1e-4 * max(1.0, abs(v)) for k, v in one.fine.items())
    other = train("american", 100, 2, min_count=1, log=False)
    assert other.to_bytes() != one.to_bytes()


def test_td_lambda_training_is_reproducible_and_differs_from_monte_carlo(tmp_path: Path) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    run = ["--table", "american", "--games", "100", "--seed", "5", "--lam", "0.7"]
    for out in (a, b):
        assert main([*run, "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
    mc = train("american", 100, 5, log=False)
    assert train("american", 100, 5, lam=1.0, log=False).to_bytes() == mc.to_bytes()
    td = ValueTable.from_bytes("american", a.read_bytes())
    # Different targets, hence different values (and play): not the Monte Carlo table.
    assert td.to_bytes() != mc.to_bytes() and td.games == 100


def test_a_chooser_places_the_cards_and_the_values_follow_its_games() -> None:
    """`Trainer.play(choose=...)`: the chooser decides every cell (epsilon 0), and each line's
    after-state keys move towards the points that line ends with under that policy."""
    trainer = Trainer("american")
    asked: list[tuple[int, list[int]]] = []

    def last_empty(pos: Position, card: int, empties: list[int]) -> int:
        assert pos.mask >> card & 1 == 0  # the card has been seen before the choice
        asked.append((card, empties))
        return empties[-1]

    total = trainer.play(random.Random(4), 0.0, last_empty)
    assert [len(e) for _, e in asked] == list(range(25, 0, -1))
    assert [e[-1] for _, e in asked] == list(range(24, -1, -1))  # filled from the last cell
    # One game from nothing: every value is a mean of this game's final line points (a key met
    # by several lines averages them), so none is above the best line or the game's total.
    assert trainer.games == 1 and trainer.values
    assert all(
        0.0 <= v <= min(total, max(line_points("american"))) for v in trainer.values.values()
    )
    assert max(trainer.values.values()) > 0 or total == 0
