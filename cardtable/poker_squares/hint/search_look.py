"""Expectimax over the next one or two cards, with the learned evaluator at the leaves.

`look1` values an after-state by averaging, over every unseen next card, the best after-state
the greedy evaluator can reach with it; `look2` does the same one card deeper for a few cells
per next card. Both are exact averages over the unseen set (no sampling), so they depend only
on the player's view.

Speed: every leaf is a sum of ten line values, and a line's value for each possible next card
depends only on the line (row or column, rank multiset, suit state), the time bucket and the
unseen set. A `Context` fixes the last two and memoises, per line, numpy vectors over the
unseen cards of the line's value before and after the card joins it; sibling positions share
most lines, so a leaf costs a few vector operations instead of twenty key look-ups per card.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_ADD,
    MS_N,
    TB,
    ValueTable,
    line_key,
    sorted_counts_key,
)
from cardtable.poker_squares.hint.position import COL_OF, ROW_OF, Position

Vec = npt.NDArray[np.float64]
NEG = -1e9
"""Gain of adding a card to a full line (never chosen)."""


class Context:
    """Line values for every unseen next card, under one unseen set and time bucket.

    `placed` is the number of cards on the grid when the next card is turned. `rc`, if given,
    is a whole-grid correction by how many cards the rows and the columns hold
    (`whole_grid.WholeGrid.rows_cols`), added to every leaf.
    """

    __slots__ = (
        "avail",
        "full",
        "idx",
        "idx_mixed",
        "mask",
        "memo",
        "pts",
        "rc",
        "ru",
        "su",
        "tb",
        "variants",
        "vt",
        "xs",
    )

    def __init__(
        self,
        pos: Position,
        placed: int,
        vt: ValueTable,
        pts: list[int],
        rc: npt.NDArray[np.float64] | None = None,
    ) -> None:
        self.rc = rc
        self.tb = TB[min(placed, 24)]
        self.ru = pos.ru[:]
        self.su = pos.su[:]
        self.avail = pos.avail
        self.mask = pos.mask
        self.xs = [x for x in range(52) if pos.mask >> x & 1]
        self.vt = vt
        self.pts = pts
        self.memo: dict[int, tuple[Vec, Vec]] = {}
        self._index()

    def without(self, x: int, vt: ValueTable, pts: list[int], placed: int) -> Context:
        """The context after `x` is turned and placed (one card fewer unseen, one more placed)."""
        ctx = Context.__new__(Context)
        ctx.rc = self.rc
        r = x % 13 + 1
        ctx.tb = TB[min(placed, 24)]
        ctx.ru = self.ru[:]
        ctx.ru[r] -= 1
        ctx.su = self.su[:]
        ctx.su[x // 13] -= 1
        ctx.mask = self.mask & ~(1 << x)
        ctx.avail = self.avail if ctx.ru[r] else self.avail & ~(1 << (r - 1))
        ctx.xs = [y for y in self.xs if y != x]
        ctx.vt = vt
        ctx.pts = pts
        ctx.memo = {}
        ctx._index()
        return ctx

    def _index(self) -> None:
        """Index vectors from (rank, has the line's suit) variants to the unseen cards."""
        xs = self.xs
        n = len(xs)
        self.full = (np.zeros(n), np.full(n, NEG))
        base = np.array([2 * (x % 13) for x in xs], dtype=np.intp)
        suit = np.array([x // 13 for x in xs], dtype=np.intp)
        self.idx = [base + (suit == s) for s in range(4)]
        self.idx_mixed = base
        seen: set[tuple[int, int]] = set()
        for x in xs:
            r = x % 13 + 1
            seen.add((r, 1))
            seen.add((r, 0))
        self.variants = sorted(seen)

    def line(self, is_col: int, ms: int, st: int) -> tuple[Vec, Vec]:
        """(value now, value with the next card added) of a line, one entry per next card."""
        if MS_N[ms] == 5:
            return self.full
        mk = ((ms * 6 + st + 1) << 1) | is_col
        got = self.memo.get(mk)
        if got is not None:
            return got
        fine = self.vt.fine
        value = self.vt.value
        pts = self.pts
        tb = self.tb
        ru = self.ru
        su = self.su
        avail = self.avail
        mask = self.mask
        if st == -1:
            # Empty line: its value does not depend on the next card; with it, on rank and suit.
            k = line_key(is_col, tb, ms, st, ru, su, avail, mask)
            o = fine.get(k)
            if o is None:
                o = value(k)
            new: list[float] = []
            for x in self.xs:
                r = x % 13 + 1
                s = x // 13
                ru[r] -= 1
                su[s] -= 1
                av = avail if ru[r] else avail & ~(1 << (r - 1))
                k = line_key(is_col, tb, MS_ADD[ms * 14 + r], s, ru, su, av, mask & ~(1 << x))
                v = fine.get(k)
                new.append(value(k) if v is None else v)
                ru[r] += 1
                su[s] += 1
            out = (np.full(len(self.xs), o), np.array(new))
            self.memo[mk] = out
            return out
        # A line with cards: the next card matters only by its rank and whether it has the
        # line's suit; one value per such variant, then spread by index.
        olds = [0.0] * 26
        news = [0.0] * 26
        for r, same in self.variants:
            if same and st == MIXED:
                continue
            ru[r] -= 1
            av = avail if ru[r] else avail & ~(1 << (r - 1))
            if same:
                su[st] -= 1
                m = mask & ~(1 << (st * 13 + r - 1))
            else:
                m = mask
            i = 2 * (r - 1) + same
            k = line_key(is_col, tb, ms, st, ru, su, av, m)
            v = fine.get(k)
            olds[i] = value(k) if v is None else v
            ms2 = MS_ADD[ms * 14 + r]
            st2 = st if same else MIXED
            if MS_N[ms2] == 5:
                news[i] = float(pts[2 * ms2 + (st2 != MIXED)])
            else:
                k = line_key(is_col, tb, ms2, st2, ru, su, av, m)
                v = fine.get(k)
                news[i] = value(k) if v is None else v
            ru[r] += 1
            if same:
                su[st] += 1
        idx = self.idx[st] if st < MIXED else self.idx_mixed
        out = (np.array(olds)[idx], np.array(news)[idx])
        self.memo[mk] = out
        return out

    def leaves(self, pos: Position) -> tuple[Vec, npt.NDArray[np.float64], list[int]]:
        """For an after-state in this context: per next card, the value of the best greedy
        after-state; also the gain matrix (empty cells x next cards) and the empty cells."""
        olds = []
        news = []
        lms = pos.lms
        lst = pos.lst
        for li in range(10):
            o, n = self.line(1 if li >= 5 else 0, lms[li], lst[li])
            olds.append(o)
            news.append(n)
        o_arr = np.array(olds)
        d = np.array(news) - o_arr
        empt = [c for c in range(25) if pos.cells[c] < 0]
        gains = d[[ROW_OF[c] for c in empt]] + d[[COL_OF[c] for c in empt]]
        fullness = self.vt.fullness
        if fullness is not None and pos.placed < 24:  # the next card does not fill the grid
            gains = gains + np.array(fullness_after(fullness, lms, empt))[:, None]
        if self.rc is not None and pos.placed < 24:
            gains = gains + np.array(rows_cols_after(self.rc[pos.placed + 1], lms, empt))[:, None]
        best = o_arr.sum(0) + gains.max(0) + pos.total
        return best, gains, empt


def fullness_halves(lms: list[int]) -> list[int]:
    """For each line (rows 0-4, columns 5-9), the half of the `fullness_key` of its
    orientation after a card is added to it: a card in cell c gives the grid the key
    ``halves[ROW_OF[c]] * 6**5 + halves[COL_OF[c]]``. Only the counts matter, so five sorts
    of each orientation serve every cell."""
    counts = [MS_N[ms] for ms in lms]
    halves: list[int] = []
    for first in (0, 5):
        for li in range(first, first + 5):
            added = counts[first : first + 5]
            added[li - first] += 1
            halves.append(sorted_counts_key(sorted(added)))
    return halves


def fullness_after(fullness: dict[int, float], lms: list[int], empt: list[int]) -> list[float]:
    """The fullness correction of the grid after a card goes to each cell of ``empt``."""
    halves = fullness_halves(lms)
    return [fullness.get(halves[ROW_OF[c]] * 6**5 + halves[COL_OF[c]], 0.0) for c in empt]


def rows_cols_after(w: npt.NDArray[np.float64], lms: list[int], empt: list[int]) -> list[float]:
    """The whole-grid correction by line fullness of the grid after a card goes to each cell
    of ``empt``: ``w[0][n]`` per row and ``w[1][n]`` per column holding n cards (n = 5:
    0)."""
    wr = w[0].tolist()
    wc = w[1].tolist()
    counts = [MS_N[ms] for ms in lms]
    base = sum(wr[n] for n in counts[:5]) + sum(wc[n] for n in counts[5:])
    out = []
    for c in empt:
        nr = counts[ROW_OF[c]]
        nc = counts[COL_OF[c]]
        out.append(base + wr[nr + 1] - wr[nr] + wc[nc + 1] - wc[nc])
    return out


def look1(pos: Position, ctx: Context) -> float:
    """Mean over the next card of the best greedy after-state value (exact final total when the
    grid is full). `ctx` must match `pos` (same unseen set; `pos.placed` cards on the grid)."""
    if pos.placed == 25:
        return float(pos.total)
    best, _, _ = ctx.leaves(pos)
    return float(best.mean())


def look_values(
    pos: Position,
    card: int,
    reps: list[int],
    vt: ValueTable,
    pts: list[int],
    rc: npt.NDArray[np.float64] | None = None,
) -> tuple[dict[int, float], dict[int, tuple[npt.NDArray[np.float64], list[int]]], Context]:
    """One-card expectimax value of putting `card` (already seen in `pos`) on each cell of
    `reps`; also each cell's gain matrix for `look2` and the shared context (`rc`: see
    `Context`)."""
    ctx = Context(pos, pos.placed + 1, vt, pts, rc)
    out: dict[int, float] = {}
    gains: dict[int, tuple[npt.NDArray[np.float64], list[int]]] = {}
    for c in reps:
        p1 = pos.copy()
        p1.put(c, card, pts)
        if p1.placed == 25:
            out[c] = float(p1.total)
            continue
        best, g, empt = ctx.leaves(p1)
        out[c] = float(best.mean())
        gains[c] = (g, empt)
    return out, gains, ctx


def look2_values(
    pos: Position,
    card: int,
    cands: list[int],
    gains: dict[int, tuple[npt.NDArray[np.float64], list[int]]],
    ctx: Context,
    width: int,
    vt: ValueTable,
    pts: list[int],
) -> dict[int, float]:
    """Two-card expectimax for `cands`: for every next card, the best of its `width` most
    promising cells (by the evaluator) valued by `look1`. Exact when at most 3 cells are
    empty and `width` >= 2."""
    starts = {}
    picks = {}
    for c in cands:
        p1 = pos.copy()
        p1.put(c, card, pts)
        starts[c] = p1
        if c in gains:
            g, empt = gains[c]
            k = min(width, len(empt))
            order = np.argsort(-g, axis=0, kind="stable")[:k]
            picks[c] = [[empt[j] for j in col] for col in order.T.tolist()]
    sums = dict.fromkeys(cands, 0.0)
    placed = pos.placed + 2
    for i, x in enumerate(ctx.xs):
        sub = ctx.without(x, vt, pts, placed)
        for c in cands:
            p1 = starts[c]
            if p1.placed == 25:
                continue
            best = -1e18
            for cell in picks[c][i]:
                p2 = p1.copy()
                p2.put(cell, x, pts)
                v = look1(p2, sub)
                if v > best:
                    best = v
            sums[c] += best
    n = len(ctx.xs)
    return {c: (float(starts[c].total) if starts[c].placed == 25 else sums[c] / n) for c in cands}
