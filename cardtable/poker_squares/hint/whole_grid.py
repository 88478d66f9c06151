"""Whole-grid correction of the evaluator (issue 31): what the ten line values cannot see.

The learned evaluator sums ten independent line values, so two lines counting the same last
cards of a rank as their outs, or four lines chasing flushes in a suit with few cards left,
are each valued as if the other did not exist. `features` describes an after-state by terms
that couple its lines (for each rank and suit, how many incomplete lines want it and how many
are left; how many lines hold each number of cards; how many cells remain), and a
`WholeGrid` adds a linear correction ``weights[placed] @ features`` to the evaluator's value,
one weight vector per number of cards on the grid. The weights are fitted by ridge regression
on the residuals (final score minus the evaluator's value) of self-play after-states
(`research/ps_whole_grid.py`; docs/hint-engine.md, "Whole-grid evaluator").

Everything here reads the grid and the unseen counts only (the player's view).
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources
from io import BytesIO

import numpy as np
import numpy.typing as npt

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import MIXED, MS_ID, MS_N, MS_WMASKS
from cardtable.poker_squares.hint.position import Position

FEATURES = (
    "bias",
    *(f"rows_{k}" for k in range(5)),
    *(f"cols_{k}" for k in range(5)),
    *(f"rank_shared_u{u}" for u in range(1, 5)),
    "rank_shared_pairs",
    "suit_shared",
    "suit_short",
    "suit_need_ratio",
    "flush_rows",
    "flush_cols",
    "straight_open",
)
"""Names of the features, in order (see `features`)."""
N_FEATURES = len(FEATURES)
RC_END = 11
"""Features before this index (bias, rows_k, cols_k) do not depend on which card is where."""


def features(pos: Position) -> list[float]:
    """The coupling features of an after-state (only incomplete lines count as wanting):

    - ``bias``: 1;
    - ``rows_k`` / ``cols_k``: how many rows / columns hold k cards (k = 0-4);
    - ``rank_shared_uU``: over the ranks with U cards unseen, the lines holding that rank
      beyond the first (two lines with a 9 and two 9s left add 1 to ``rank_shared_u2``);
    - ``rank_shared_pairs``: over ranks with a card unseen, the lines holding a pair or more
      of it times the other lines holding it;
    - ``suit_shared``: over suits, the lines with cards of that suit only, beyond the first;
    - ``suit_short``: over suits, the cells those lines still need beyond the unseen cards
      of the suit;
    - ``suit_need_ratio``: over suits, cells needed / (unseen of the suit + 1);
    - ``flush_rows`` / ``flush_cols``: rows / columns with cards of one suit only;
    - ``straight_open``: lines of 2-4 cards with a straight window that can still be filled.
    """
    f = [0.0] * N_FEATURES
    f[0] = 1.0
    lms = pos.lms
    lst = pos.lst
    ru = pos.ru
    su = pos.su
    avail = pos.avail
    holders = [0] * 14
    pairs = [0] * 14
    flush_lines = [0] * 4
    need = [0] * 4
    for li in range(10):
        ms = lms[li]
        n = MS_N[ms]
        if n == 5:
            continue
        f[(1 if li < 5 else 6) + n] += 1.0
        if n == 0:
            continue
        for r, c in MS_COUNTS[ms]:
            holders[r] += 1
            if c >= 2:
                pairs[r] += 1
        st = lst[li]
        if st < MIXED:
            flush_lines[st] += 1
            need[st] += 5 - n
            f[19 if li < 5 else 20] += 1.0
        if n >= 2:
            for w in MS_WMASKS[ms]:
                if w & avail == w:
                    f[21] += 1.0
                    break
    for r in range(1, 14):
        u = ru[r]
        if u and holders[r] > 1:
            f[10 + u] += holders[r] - 1
        if u and pairs[r]:
            f[15] += pairs[r] * (holders[r] - 1)
    for s in range(4):
        if flush_lines[s]:
            f[16] += flush_lines[s] - 1
            short = need[s] - su[s]
            if short > 0:
                f[17] += short
            f[18] += need[s] / (su[s] + 1)
    return f


MS_COUNTS: list[tuple[tuple[int, int], ...]] = [()] * len(MS_N)
"""MS_COUNTS[ms]: (rank, count) of each rank the multiset holds."""
for _ranks, _ms in MS_ID.items():
    MS_COUNTS[_ms] = tuple(sorted(Counter(_ranks).items()))

Weights = npt.NDArray[np.float64]


class WholeGrid:
    """A linear correction of the evaluator: ``weights[placed] @ features(pos)``."""

    __slots__ = ("at_leaves", "table", "weights")

    def __init__(self, table: str, weights: Weights, *, at_leaves: bool = False) -> None:
        if weights.shape != (25, N_FEATURES):
            raise ValueError(f"weights must be 25 x {N_FEATURES}, got {weights.shape}")
        if at_leaves and np.any(weights[:, RC_END:]):
            raise ValueError("a correction at the leaves uses the rows_k and cols_k terms only")
        self.table = table
        self.weights = weights
        self.at_leaves = at_leaves
        """False: the search adds the correction to each cell's estimate (the root); True:
        to every after-state it values (the leaves of the lookahead), like the fullness
        correction, which only card-independent terms allow."""

    def rows_cols(self) -> Weights:
        """The bias, rows_k and cols_k weights as a (25, 2, 6) array, [placed][0 rows,
        1 columns][k], for `search_look.rows_cols_after`: a row holding k cards adds
        ``out[placed][0][k]``, a column ``out[placed][1][k]`` (k = 5: a complete line). The
        bias is spread over the five rows, which always add up to it."""
        out = np.zeros((25, 2, 6))
        out[:, 0, :] = self.weights[:, :1] / 5.0
        out[:, 0, :5] += self.weights[:, 1:6]
        out[:, 1, :5] = self.weights[:, 6:11]
        return out

    def correction(self, pos: Position) -> float:
        """Points added to the evaluator's value of an after-state (0 when the grid is full
        or empty: a full grid's value is its score)."""
        if pos.placed == 0 or pos.placed >= 25:
            return 0.0
        return float(np.dot(self.weights[pos.placed], features(pos)))

    def to_bytes(self) -> bytes:
        buf = BytesIO()
        np.savez_compressed(
            buf,
            weights=self.weights,
            features=np.array(FEATURES),
            at_leaves=np.array([self.at_leaves]),
        )
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, table: str, data: bytes) -> WholeGrid:
        with np.load(BytesIO(data)) as z:
            if tuple(z["features"].tolist()) != FEATURES:
                raise ValueError("the weights were fitted for other features")
            at_leaves = bool(z["at_leaves"][0]) if "at_leaves" in z.files else False
            return cls(table, np.asarray(z["weights"], dtype=np.float64), at_leaves=at_leaves)


def data_name(table: str) -> str:
    return f"whole-grid-{table}.npz"


@cache
def load_whole_grid(table: str) -> WholeGrid | None:
    """The shipped whole-grid correction of a point table (cached), or None if none ships."""
    if table not in TABLES:
        raise ValueError(f"unknown point table {table!r} (known: {', '.join(TABLES)})")
    res = resources.files("cardtable.poker_squares").joinpath("data", data_name(table))
    if not res.is_file():
        return None
    return WholeGrid.from_bytes(table, res.read_bytes())
