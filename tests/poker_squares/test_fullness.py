"""The issue-16 fullness-correction experiment (`bench/ps_fullness.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import ps_fullness
from cardtable.poker_squares import search, search_look
from cardtable.poker_squares.abstract import load_values

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
    assert ps_fullness.fullness_key(cells) == 0
    cells[0] = 5  # row 0 and column 0 hold one card
    cells[1] = 7  # row 0 two cards, column 1 one
    digits = [0, 0, 0, 0, 2, 0, 0, 0, 1, 1]
    want = 0
    for n in digits:
        want = want * 6 + n
    assert ps_fullness.fullness_key(cells) == want
    assert ps_fullness.placed_of(want) == 2


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


def test_plain_table_plays_as_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = load_values("american")
    before = ps_fullness.play(DEAL, plain, 0)
    monkeypatch.setattr(search, "static_estimate", ps_fullness._static_corrected)
    monkeypatch.setattr(search_look.Context, "leaves", ps_fullness._leaves_corrected)
    assert ps_fullness.play(DEAL, plain, 0) == before
    # an empty correction changes nothing; a correction is looked up by the after-state's key
    zero = ps_fullness.CorrectedTable(plain, {})
    assert ps_fullness.play(DEAL, zero, 0) == before
    bonus = {}
    for n in range(1, 5):
        cells = [-1] * 25
        for c in range(n):
            cells[c] = c
        bonus[ps_fullness.fullness_key(cells)] = 1000.0 * n
    vt = ps_fullness.CorrectedTable(plain, bonus)
    assert vt.correction([0, 1, 2, -1] + [-1] * 21) == 3000.0
