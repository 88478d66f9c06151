"""The whole-grid correction (issue 31): features of exact positions, the weights file, its use
in the search, and that it reads only the view."""

from __future__ import annotations

import random
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.cards import Card
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from cardtable.poker_squares.hint.search_look import rows_cols_after
from cardtable.poker_squares.hint.whole_grid import (
    FEATURES,
    N_FEATURES,
    WholeGrid,
    features,
    load_whole_grid,
)


def _pos(placed: dict[int, str], current: str) -> Position:
    cells = [-1] * 25
    for cell, name in placed.items():
        cells[cell] = Card.parse(name).index
    return Position.from_cells(cells, Card.parse(current).index, "american")


def _named(pos: Position) -> dict[str, float]:
    return dict(zip(FEATURES, features(pos), strict=True))


def test_features_of_an_exact_position() -> None:
    # row 0: 9S 9H; row 1: 9D (column 1 then holds 9H 9D); row 2: KS 2S; AC in hand.
    pos = _pos({0: "9S", 1: "9H", 6: "9D", 12: "KS", 13: "2S"}, "AC")
    f = _named(pos)
    assert f["bias"] == 1.0
    assert [f[f"rows_{k}"] for k in range(5)] == [2, 1, 2, 0, 0]
    assert [f[f"cols_{k}"] for k in range(5)] == [1, 3, 1, 0, 0]
    # Four lines hold a 9 and one 9 is unseen; a K and a 2 are each in two lines, 3 unseen.
    assert [f[f"rank_shared_u{u}"] for u in range(1, 5)] == [3, 0, 2, 0]
    # Row 0 and column 1 hold a pair of 9s; three other lines hold a 9 each... 2 x (4 - 1).
    assert f["rank_shared_pairs"] == 6
    # Spades only: row 2, columns 0, 2, 3 (need 3 + 4 + 4 + 4 = 15 of 10 unseen spades);
    # diamonds only: row 1 (needs 4 of 12).
    assert f["suit_shared"] == 3
    assert f["suit_short"] == 5
    assert f["suit_need_ratio"] == pytest.approx(15 / 11 + 4 / 13)
    assert f["flush_rows"] == 2
    assert f["flush_cols"] == 3
    assert f["straight_open"] == 0


def test_straight_open_and_spent_ranks() -> None:
    # Row 0: 5H 7D, row 1: 5S 5C, so column 0 holds 5H 5S and column 1 7D 5C; 2C in hand.
    pos = _pos({0: "5H", 1: "7D", 5: "5S", 6: "5C"}, "2C")
    f = _named(pos)
    assert f["straight_open"] == 2  # row 0 and column 1 (5 and 7: 3-7, 4-8, 5-9)
    # Four lines hold a 5 and only 5D is unseen; two hold a 7 with three 7s unseen.
    assert [f[f"rank_shared_u{u}"] for u in range(1, 5)] == [3, 0, 1, 0]
    assert f["rank_shared_pairs"] == 6  # row 1 and column 0 hold a pair: 2 x (4 - 1)
    assert f["flush_rows"] == f["flush_cols"] == f["suit_shared"] == 0  # every line is mixed


def test_a_full_line_wants_nothing() -> None:
    pos = _pos({0: "9S", 1: "9H", 2: "9D", 3: "KS", 4: "KH", 5: "9C"}, "2C")
    f = _named(pos)
    # Row 0 is complete and wants nothing; row 1 and columns 0-2 hold a 9 but no 9 is
    # unseen (no competition); columns 3 and 4 hold a K with two Ks unseen.
    assert [f[f"rank_shared_u{u}"] for u in range(1, 5)] == [0, 1, 0, 0]
    assert f["rows_0"] == 3 and f["rows_1"] == 1


@given(st.integers(0, 2**31), st.integers(1, 24))
def test_features_read_only_counts(seed: int, n: int) -> None:
    """The same grid and card give the same features whatever the order of the unseen cards,
    and every count is within its range."""
    rng = random.Random(seed)
    deck = rng.sample(range(52), 52)
    cells = [-1] * 25
    for card, cell in zip(deck[:n], rng.sample(range(25), n), strict=True):
        cells[cell] = card
    a = Position.from_cells(cells, deck[n], "british")
    f = features(a)
    assert len(f) == N_FEATURES
    full_rows = sum(1 for r in range(5) if all(cells[5 * r + j] >= 0 for j in range(5)))
    assert sum(f[1:6]) + full_rows == 5
    assert features(Position.from_cells(cells, deck[n], "american")) == f
    assert all(v >= 0 for v in f)


def test_weights_round_trip_and_checks() -> None:
    w = np.arange(25 * N_FEATURES, dtype=np.float64).reshape(25, N_FEATURES)
    wg = WholeGrid.from_bytes("american", WholeGrid("american", w).to_bytes())
    assert np.array_equal(wg.weights, w)
    with pytest.raises(ValueError, match="25 x"):
        WholeGrid("american", np.zeros((24, N_FEATURES)))
    pos = _pos({0: "9S"}, "AC")
    assert wg.correction(pos) == pytest.approx(float(w[1] @ np.array(features(pos))))
    assert wg.correction(Position()) == 0.0


@pytest.mark.parametrize("table", sorted(TABLES))
def test_shipped_weights_load_fast(table: str) -> None:
    load_whole_grid.cache_clear()
    t0 = time.process_time()
    wg = load_whole_grid(table)
    assert time.process_time() - t0 < 1.0
    if wg is not None:
        assert wg.weights.shape == (25, N_FEATURES)
        assert np.isfinite(wg.weights).all()
    with pytest.raises(ValueError, match="unknown point table"):
        load_whole_grid("klondike")


@pytest.mark.parametrize("budget", [0, 9])
def test_zero_correction_is_the_plain_search(budget: int) -> None:
    pos = _pos({0: "9S", 1: "9H", 6: "9D", 12: "KS", 13: "2S", 18: "QD", 24: "3C"}, "AC")
    for _ in range(12):
        pos.see(_next_unseen(pos))
    vt = load_values("american")
    pts = line_points("american")
    card = Card.parse("AC").index
    zero = WholeGrid("american", np.zeros((25, N_FEATURES)))
    assert analyse(pos, card, vt, pts, budget) == analyse(pos, card, vt, pts, budget, whole=zero)


def _next_unseen(pos: Position) -> int:
    return next(x for x in range(52) if pos.mask >> x & 1 and x != Card.parse("AC").index)


def test_a_correction_steers_the_choice() -> None:
    """A large weight on one feature moves the hint to the cell that maximises it, so the
    search does use the correction."""
    pos = _pos({0: "9S", 1: "9H"}, "9D")
    vt = load_values("american")
    pts = line_points("american")
    w = np.zeros((25, N_FEATURES))
    w[3, FEATURES.index("rows_0")] = 1000.0  # keep rows empty: the 9 goes to row 0
    _, best = analyse(pos, Card.parse("9D").index, vt, pts, 9, whole=WholeGrid("american", w))
    assert best // 5 == 0
    w[3, FEATURES.index("rows_0")] = -1000.0
    _, best = analyse(pos, Card.parse("9D").index, vt, pts, 9, whole=WholeGrid("american", w))
    assert best // 5 != 0


def _rows_cols_weights(seed: int) -> WholeGrid:
    rng = np.random.default_rng(seed)
    w = np.zeros((25, N_FEATURES))
    w[:, 0:11] = rng.normal(0.0, 3.0, (25, 11))
    return WholeGrid("american", w, at_leaves=True)


def test_rows_cols_after_is_the_correction_of_each_after_state() -> None:
    """The lookahead's per-cell shortcut gives `correction` of the grid after a card goes to
    each empty cell, whatever the card (the terms count cards per line only)."""
    wg = _rows_cols_weights(3)
    rc = wg.rows_cols()
    rng = random.Random(5)
    pts = line_points("american")
    for n in (0, 4, 11, 20, 23):
        deck = rng.sample(range(52), 52)
        cells = [-1] * 25
        for card, cell in zip(deck[:n], rng.sample(range(25), n), strict=True):
            cells[cell] = card
        pos = Position.from_cells(cells, deck[n], "american")
        empt = pos.empties()
        got = rows_cols_after(rc[pos.placed + 1], pos.lms, empt)
        for c, v in zip(empt, got, strict=True):
            after = pos.copy()
            after.put(c, deck[n], pts)
            assert v == pytest.approx(wg.correction(after))


def test_leaf_weights_take_only_line_counts() -> None:
    w = np.zeros((25, N_FEATURES))
    w[5, FEATURES.index("suit_shared")] = 1.0
    with pytest.raises(ValueError, match="rows_k and cols_k"):
        WholeGrid("american", w, at_leaves=True)
    wg = _rows_cols_weights(1)
    back = WholeGrid.from_bytes("american", wg.to_bytes())
    assert back.at_leaves and np.array_equal(back.weights, wg.weights)


def test_a_leaf_correction_changes_the_lookahead() -> None:
    pos = _pos({0: "9S", 1: "9H", 6: "9D", 12: "KS", 13: "2S"}, "AC")
    vt = load_values("american")
    pts = line_points("american")
    card = Card.parse("AC").index
    zero = WholeGrid("american", np.zeros((25, N_FEATURES)), at_leaves=True)
    plain = analyse(pos, card, vt, pts, 9)
    assert analyse(pos, card, vt, pts, 9, whole=zero) == plain
    est, _ = analyse(pos, card, vt, pts, 9, whole=_rows_cols_weights(2))
    assert est != plain[0]
