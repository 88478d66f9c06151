"""The n-tuple network trainer (`training/ntuple.py`, issue 43) and its search
(`training/ntuple_search.py`): keys equal to `abstract.line_key`, the pair features on an exact
position, zero pair weights playing as the shipped engine (budget 0 and the interactive
search), and deterministic training. Skipped where numba (a training-only dependency) is
missing."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from cardtable.poker_squares.hint.abstract import line_key as py_line_key
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from training import ntuple
from training.ntuple_search import search_deals

TABLE = "american"


def _deck(seed: int) -> list[int]:
    rng = random.Random(seed)
    d = list(range(52))
    rng.shuffle(d)
    return d[:25]


def _np_pos(pos: Position) -> tuple[np.ndarray, ...]:
    return (
        np.array(pos.cells, dtype=np.int64),
        np.array(pos.lms, dtype=np.int64),
        np.array(pos.lst, dtype=np.int64),
        np.array(pos.ru, dtype=np.int64),
        np.array(pos.su, dtype=np.int64),
    )


def test_line_keys_equal_the_engine_s() -> None:
    tabs = ntuple.tables()
    n_t, pat, _, grank, gweight, wins_t, ranks_t, fit, pop = tabs
    pts = line_points(TABLE)
    rng = random.Random(5)
    checked = 0
    for seed in range(30):
        pos = Position()
        for p, card in enumerate(_deck(seed)):
            pos.see(card)
            _, _, _, ru, su = _np_pos(pos)
            for li in range(10):
                ms, st = pos.lms[li], pos.lst[li]
                if n_t[ms] == 5:
                    continue
                is_col = 1 if li >= 5 else 0
                want = py_line_key(is_col, p, ms, st, pos.ru, pos.su, pos.avail, pos.mask)
                got, _ = ntuple.line_key(
                    is_col, p, ms, st, ru, su, pos.avail, pos.mask,
                    pat, grank, gweight, wins_t, ranks_t, fit, pop,
                )  # fmt: skip
                assert got == want
                checked += 1
            pos.put(rng.choice(pos.empties()), card, pts)
    assert checked > 1000


def test_pair_features_on_an_exact_position() -> None:
    """Row 0 holds 9S 9H (a pair, both 9s still unseen twice), column 0 holds 9S 2S 5S (one
    suit): the row-column pair of (row 0, column 0) crosses at the filled cell 0."""
    tabs = ntuple.tables()
    n_t, pat, _add, grank, gweight, wins_t, ranks_t, fit, _ = tabs
    pts = line_points(TABLE)
    pos = Position()
    for cell, card in ((0, 8), (1, 13 + 8), (5, 1), (10, 4)):  # 9S, 9H, 2S, 5S
        pos.see(card)
        pos.put(cell, card, pts)
    cells, _lms, lst, ru, su = _np_pos(pos)
    row = ntuple.coarse_class(
        pos.lms[0], pos.lst[0], ru, su, pos.avail, n_t, pat, grank, gweight, wins_t, ranks_t, fit
    )
    # pattern (2,) = 2; mixed suits: fs 0; two 9s unseen: rb 2; no straight: 0
    assert row == ((2 * 3 + 0) * 4 + 2) * 2 + 0
    col = ntuple.coarse_class(
        pos.lms[5], pos.lst[5], ru, su, pos.avail, n_t, pat, grank, gweight, wins_t, ranks_t, fit
    )
    # pattern (1,1,1) = 6; spades: 10 unseen >= 2 * 2 needed: fs 2; top group's ranks 9, 2,
    # 5 have 2 + 4 + 4 unseen: rb 3; no 5-window holds 2, 5 and 9: 0
    assert col == ((6 * 3 + 2) * 4 + 3) * 2 + 0
    ck = np.array(
        [
            ntuple.coarse_class(
                pos.lms[li], pos.lst[li], ru, su, pos.avail, n_t, pat, grank, gweight,
                wins_t, ranks_t, fit,
            )
            for li in range(10)
        ],
        dtype=np.int64,
    )  # fmt: skip
    rm = np.zeros(10, dtype=np.int64)
    for cell, card in enumerate(pos.cells):
        if card >= 0:
            rm[cell // 5] |= 1 << (card % 13)
            rm[5 + cell % 5] |= 1 << (card % 13)
    base = 1000
    got = ntuple.pair_index(0, 5, ck, lst, rm, cells, 0, base)
    # not the same suit; shared ranks apart from the crossing 9: none; crossing cell filled
    want = base + (((2 * ntuple.NSTAGE + 0) * ntuple.CK_N + row) * ntuple.CK_N + col) * 8 + 0
    assert got == want
    # row 0 and column 1 (holding the 9H) cross at the filled cell 1; rows 0 and 1 (empty)
    assert (ntuple.pair_index(0, 6, ck, lst, rm, cells, 0, base) - base) % 8 == 0
    assert (ntuple.pair_index(0, 1, ck, lst, rm, cells, 0, base) - base) % 8 == 0
    # column 0 (spades) and row 2 (5S): crossing at the filled cell 10, same single suit
    assert (ntuple.pair_index(2, 5, ck, lst, rm, cells, 0, base) - base) % 8 == 1


def _shipped_play(deck: list[int], budget: int) -> int:
    vt = load_values(TABLE)
    pts = line_points(TABLE)
    pos = Position()
    for card in deck:
        pos.see(card)
        _, best = analyse(pos, card, vt, pts, budget)
        pos.put(best, card, pts)
    return pos.total


def test_zero_pairs_play_as_the_shipped_engine() -> None:
    fk, w = ntuple.initial_weights(TABLE, pairs=False)
    pts = np.array(line_points(TABLE), dtype=np.int64)
    decks = np.array([_deck(s) for s in range(100, 106)], dtype=np.int64)
    got = ntuple.play_deals(decks, w, fk, pts, False, ntuple.tables())
    assert got.tolist() == [_shipped_play(d.tolist(), 0) for d in decks]
    one = decks[:1]
    deep = search_deals(one, w, fk, pts, False, ntuple.tables(), 3, 3, False)
    assert deep.tolist() == [_shipped_play(one[0].tolist(), 9)]


def test_training_is_deterministic_and_learns_pairs() -> None:
    fk, w0 = ntuple.initial_weights(TABLE)
    pts = np.array(line_points(TABLE), dtype=np.int64)
    runs = []
    for _ in range(2):
        w = w0.copy()
        scores = ntuple.train_chunk(
            w, fk, pts, 200, 7, 0.05, 0.0, 0.0005, 0.002, True, ntuple.tables()
        )
        runs.append((scores, w))
    assert np.array_equal(runs[0][0], runs[1][0])
    assert np.array_equal(runs[0][1], runs[1][1])
    changed = np.flatnonzero(runs[0][1] != w0)
    assert (changed >= fk.shape[0] + ntuple.N_COARSE).any()  # pair weights learned
    assert (changed < fk.shape[0]).any()  # line weights too
