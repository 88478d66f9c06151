"""Line values of the searched policy (`research/ps_search_values.py`)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from research import ps_search_values as sv
from training.train import Trainer


@pytest.mark.parametrize("seed", [0, 1])
def test_a_game_records_the_keys_train_py_records(seed: int) -> None:
    """With the search as its policy, `Trainer.play` counts the same after-state keys as
    `play_one` records, and the same total."""
    vt = load_values("british")
    pts = line_points("british")
    tr = Trainer("british")
    tr.values = dict(vt.fine)
    tr.counts = dict.fromkeys(vt.fine, 1)
    tr.refresh()

    def choose(pos: Position, card: int, empties: list[int]) -> int:
        return analyse(pos, card, vt, pts, 0)[1]

    total = tr.play(random.Random(seed), 0.0, choose)
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    mine_total, seen, finals = sv.play_one(deck, vt, pts, 0)
    assert mine_total == total == sum(finals)
    counted = Counter({k: n - (k in vt.fine) for k, n in tr.counts.items()})
    assert Counter(k for k, _ in seen) == +counted


def test_build_moves_known_values_by_the_train_py_rule_and_adds_new_keys() -> None:
    vt = load_values("american")
    known = sorted(vt.fine)[100]
    new = max(vt.fine) + 1
    rare = new + 1
    raw = ({known: 3 * 50.0, new: 4 * 7.0, rare: 2 * 9.0}, {known: 3, new: 4, rare: 2})
    out = sv.build("american", raw, horizon=10, min_count=3)
    step = 1 - (1 - 1 / 10) ** 3  # three observations of 50, each a 1/10 step
    assert out.fine[known] == pytest.approx(vt.fine[known] + step * (50 - vt.fine[known]), abs=1e-4)
    assert out.fine[new] == pytest.approx(7.0)
    assert rare not in out.fine  # seen twice: fewer than min_count
    other = sorted(vt.fine)[200]
    assert out.fine[other] == pytest.approx(vt.fine[other])


def test_play_and_build_round_trip(tmp_path: Path) -> None:
    raw, totals = sv.play("british", 2, 3, 1, 0)
    assert len(totals) == 2
    assert sum(raw[1].values()) > 2 * 150  # about ten open lines after most placements
    path = tmp_path / "raw.npz"
    sv.save_raw(path, raw, 2)
    assert sv.load_raw(path) == raw
    table = tmp_path / "t.npz"
    assert sv.main(["build", "--table", "british", "--raw", str(path), "--out", str(table)]) == 0
    assert ValueTable.from_bytes("british", table.read_bytes()).fine
