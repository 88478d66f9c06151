"""The issue-16 coupled-correction experiment (`research/ps_coupled.py`): its key, its learning,
and its search patch, which with only the fullness values reproduces the shipped engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cardtable.poker_squares.hint import search, search_look
from cardtable.poker_squares.hint.abstract import fullness_key, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from research import ps_coupled, ps_fullness
from tests.research.test_fullness import DEAL


@pytest.fixture
def patched() -> Iterator[None]:
    static, leaves = search.static_estimate, search_look.Context.leaves
    ps_coupled.install()
    yield
    search.static_estimate = static
    search_look.Context.leaves = leaves  # type: ignore[method-assign]


def test_the_key_counts_lines_that_can_still_make_a_flush() -> None:
    pts = line_points("british")
    pos = Position()
    assert ps_coupled.coupled_key(pos) == 10  # h = 0, every line open
    pos.see(0)  # ace of suit 0 at the corner: its row and column stay open
    pos.put(0, 0, pts)
    assert ps_coupled.coupled_key(pos) == fullness_key(pos.cells) * ps_coupled.NF + 10
    pos.see(14)  # suit 1 beside it in row 0: row 0 can no longer make a flush
    pos.put(1, 14, pts)
    assert ps_coupled.coupled_key(pos) == fullness_key(pos.cells) * ps_coupled.NF + 9


def test_fullness_values_alone_play_as_the_shipped_engine(patched: None) -> None:
    """A coupled table holding only the shipped g(h) (no F-specific values) makes the same
    choices as the shipped British engine, at the evaluator alone and at budget 9."""
    shipped = load_values("british")
    assert shipped.fullness is not None
    only_h = {-1 - h: v for h, v in shipped.fullness.items()}
    coupled = ps_coupled.CoupledTable(shipped, only_h)
    for budget in (0, 9):
        assert ps_fullness.play(DEAL, coupled, budget) == ps_fullness.play(DEAL, shipped, budget)


def test_learn_counts_every_after_state_and_saves(tmp_path: Path) -> None:
    c, counts = ps_coupled.learn("british", 4, 5, jobs=2)
    assert sum(counts.values()) == 4 * 24
    assert all(k in c for k in counts)  # every seen (h, F), and each h's fallback
    assert {-1 - k // ps_coupled.NF for k in counts} <= set(c)
    out = tmp_path / "c.npz"
    ps_fullness.save(out, c, {k: counts.get(k, 0) for k in c}, 4)
    assert ps_fullness.load(out).keys() == c.keys()
