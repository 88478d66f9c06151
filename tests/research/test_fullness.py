"""The fullness correction (issue 16, research/NOTEBOOK.md "Step 16"): its key, the engine's
use of it (`ValueTable.fullness` in `search.static_estimate` and `search_look.Context.leaves`),
what ships, and the experiment that learns and compares it (`research/ps_fullness.py`)."""

from __future__ import annotations

import random
from pathlib import Path

from cardtable.poker_squares.hint.abstract import (
    ValueTable,
    fullness_key,
    line_points,
    load_values,
)
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import static_estimate
from cardtable.poker_squares.hint.search_look import fullness_after
from research import ps_fullness

DEAL = [
    9,
    48,
    22,
    35,
    17,
    4,
    40,
    30,
    11,
    2,
    51,
    13,
    27,
    44,
    6,
    33,
    20,
    1,
    38,
    25,
    45,
    15,
    8,
    29,
    50,
]


def test_fullness_key_counts_rows_and_columns() -> None:
    cells = [-1] * 25
    assert fullness_key(cells) == 0
    cells[0] = 5  # row 0 and column 0 hold one card
    cells[1] = 7  # row 0 two cards, column 1 one
    digits = [0, 0, 0, 0, 2, 0, 0, 0, 1, 1]
    want = 0
    for n in digits:
        want = want * 6 + n
    assert fullness_key(cells) == want
    assert ps_fullness.placed_of(want) == 2


def test_the_search_s_per_cell_keys_are_the_after_states_keys() -> None:
    """`fullness_after` (five sorts per half) gives each cell the key of the grid with that
    cell filled, on random grids of every size."""
    rng = random.Random(1)
    pts = line_points("british")
    for _ in range(200):
        pos = Position()
        deck = rng.sample(range(52), 24)
        order = rng.sample(range(25), 25)
        for card, cell in zip(deck[: rng.randrange(24)], order, strict=False):
            pos.see(card)
            pos.put(cell, card, pts)
        empty = [c for c in range(25) if pos.cells[c] < 0]
        named: dict[int, float] = {}
        want = []
        for c in empty:
            cells = pos.cells[:]
            cells[c] = 0
            want.append(named.setdefault(fullness_key(cells), float(len(named) + 1)))
        assert fullness_after(named, pos.lms, empty) == want


def without(vt: ValueTable) -> ValueTable:
    return ValueTable(vt.table, vt.fine, vt.coarse, vt.games)


def test_british_ships_a_correction_and_american_does_not() -> None:
    british, american = load_values("british"), load_values("american")
    assert british.fullness is not None and len(british.fullness) > 1000
    assert american.fullness is None
    # Corrections are a few points either way (research/NOTEBOOK.md, steps 5-7).
    assert -6.0 < min(british.fullness.values()) < 0.0 < max(british.fullness.values()) < 6.0


def test_an_empty_correction_changes_no_choice_and_a_large_one_steers_the_search() -> None:
    plain = without(load_values("american"))
    empty = ValueTable("american", plain.fine, plain.coarse, plain.games, {})
    for budget in (0, 9):
        assert ps_fullness.play(DEAL, empty, budget) == ps_fullness.play(DEAL, plain, budget)
    # A bonus for every grid of up to 5 cards all in one row: the engine then puts its first
    # 4 cards in one row, at the evaluator alone (the after-state's own bonus) and with the
    # lookahead (the bonus of the best after-state for the next card).
    bonus: dict[int, float] = {}
    for n in range(1, 6):
        cells = [-1] * 25
        for c in range(n):
            cells[c] = c
        bonus[fullness_key(cells)] = 1000.0 * n
    steered = ValueTable("american", plain.fine, plain.coarse, plain.games, bonus)
    pts = line_points("american")
    for budget in (0, 9):
        pos = Position()
        for card in DEAL[:4]:
            pos.see(card)
            _, best = ps_fullness.analyse(pos, card, steered, pts, budget)
            pos.put(best, card, pts)
        rows = {c // 5 for c in range(25) if pos.cells[c] >= 0}
        assert len(rows) == 1, (budget, pos.cells)
    # The static estimate adds the after-state's correction while the grid is not full.
    pos = Position()
    pos.see(DEAL[0])
    pos.put(0, DEAL[0], pts)
    assert static_estimate(pos, steered) == static_estimate(pos, plain) + 1000.0


def test_learn_is_reproducible_and_saves(tmp_path: Path) -> None:
    a, ca = ps_fullness.learn("british", 20, 3)
    b, cb = ps_fullness.learn("british", 20, 3)
    assert a == b and ca == cb
    # 24 after-states per game (the full grid is exact and not counted)
    assert sum(ca.values()) == 20 * 24
    out = tmp_path / "g.npz"
    ps_fullness.save(out, a, ca, 20)
    back = ps_fullness.load(out)
    assert back.keys() == a.keys()
    assert all(abs(back[k] - a[k]) < 1e-4 for k in a)


def test_learning_on_the_lookahead_s_games_counts_every_after_state() -> None:
    """`--policy look1` plays each card by the one-card lookahead; split over two processes
    it is the same as their two seeds played one after the other."""
    g_of, counts = ps_fullness.learn("american", 6, 2, "look1", jobs=2)
    assert sum(counts.values()) == 6 * 24
    parts = [ps_fullness._play_many(("american", "look1", 3, 2000 + j, None)) for j in range(2)]
    merged: dict[int, int] = {}
    for _, part in parts:
        for k, n in part.items():
            merged[k] = merged.get(k, 0) + n
    assert merged == counts
    assert set(g_of) == set(counts)


def test_learning_for_a_table_file_plays_and_corrects_that_file(tmp_path: Path) -> None:
    """`--values FILE`: the shipped values given as a file learn the same g as the default;
    a blind (empty) table plays other games and so sees other keys."""
    same = tmp_path / "same.npz"
    same.write_bytes(load_values("british").to_bytes())
    assert ps_fullness.learn("british", 4, 3, values=same) == ps_fullness.learn("british", 4, 3)
    blind = tmp_path / "blind.npz"
    blind.write_bytes(ValueTable("british", {}, {}).to_bytes())
    assert (
        ps_fullness.learn("british", 4, 3, values=blind)[1] != ps_fullness.learn("british", 4, 3)[1]
    )
