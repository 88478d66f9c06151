"""The hint engine's search: an estimate for every empty cell, and the best cell.

`analyse` values every cell (one per symmetry class) by a one-card expectimax over the learned
line values and the best ones by a two-card expectimax (`search_look`): exact averages over
the unseen cards, no sampling. Budget 0 is the learned evaluator alone (`static_estimate`).
"""

from __future__ import annotations

import time

from cardtable.poker_squares.game import LINES
from cardtable.poker_squares.hint.abstract import MS_N, TB, ValueTable, fullness_key, line_key
from cardtable.poker_squares.hint.position import COL_OF, ROW_OF, Position
from cardtable.poker_squares.hint.search_look import look2_values, look_values
from cardtable.poker_squares.hint.whole_grid import WholeGrid


def static_estimate(pos: Position, vt: ValueTable) -> float:
    """Points of complete lines plus learned values of the incomplete ones (plus the table's
    fullness correction, if it has one, while the grid is not full)."""
    tb = TB[pos.placed - 1]  # the card just placed was turned when pos.placed - 1 lay
    est = float(pos.total)
    for li in range(10):
        ms = pos.lms[li]
        if MS_N[ms] < 5:
            k = line_key(
                1 if li >= 5 else 0, tb, ms, pos.lst[li], pos.ru, pos.su, pos.avail, pos.mask
            )
            est += vt.value(k)
    if vt.fullness is not None and pos.placed < 25:
        est += vt.fullness.get(fullness_key(pos.cells), 0.0)
    return est


def _signature(pos: Position, cell: int) -> tuple[object, ...]:
    """Cells with equal signatures lead to positions that are the same up to symmetry."""
    out: list[object] = []
    for li in (ROW_OF[cell], COL_OF[cell]):
        empt = tuple(i for i, c in enumerate(LINES[li]) if pos.cells[c] < 0)
        out.append((pos.lms[li], pos.lst[li], empt))
    return tuple(out)


def cell_classes(pos: Position) -> dict[int, list[int]]:
    """Empty cells grouped by signature: representative cell -> all cells of the group."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for cell in pos.empties():
        groups.setdefault(_signature(pos, cell), []).append(cell)
    return {cells[0]: cells for cells in groups.values()}


def _spread(est: dict[int, float], classes: dict[int, list[int]]) -> dict[int, float]:
    """Give every cell of a class its representative's estimate, in cell order."""
    out: dict[int, float] = {}
    for rep, v in est.items():
        for c in classes[rep]:
            out[c] = v
    return dict(sorted(out.items()))


def best_cell(est: dict[int, float]) -> int:
    """The cell with the highest estimate; ties go to the lowest cell index."""
    return min(est, key=lambda c: (-est[c], c))


TWO_CARD_WIDTH = 3
"""Cells tried per next card in the two-card lookahead (the evaluator's best ones)..."""
WIDE_BUDGET = 100
"""... and from this budget on, `WIDE_WIDTH` cells."""
WIDE_WIDTH = 5


def plan(budget: int, n_cells: int) -> tuple[int, int]:
    """(candidates refined two cards deep, cells tried per next card) for a budget.

    The budget counts (candidate, cell) pairs of the two-card lookahead: each pair costs one
    one-card expectimax per unseen next card.
    """
    width = WIDE_WIDTH if budget >= WIDE_BUDGET else TWO_CARD_WIDTH
    return min(n_cells, max(1, budget // width)), width


def root_corrections(
    pos: Position, card: int, reps: list[int], whole: WholeGrid | None, pts: list[int]
) -> dict[int, float]:
    """The whole-grid correction of the after-state of `card` on each cell of `reps` (0 for
    every cell without one)."""
    if whole is None:
        return dict.fromkeys(reps, 0.0)
    out: dict[int, float] = {}
    for c in reps:
        nxt = pos.copy()
        nxt.put(c, card, pts)
        out[c] = whole.correction(nxt)
    return out


def analyse(
    pos: Position,
    card: int,
    vt: ValueTable,
    pts: list[int],
    budget: int,
    *,
    seconds: float | None = None,
    whole: WholeGrid | None = None,
) -> tuple[dict[int, float], int]:
    """Estimated final total for every empty cell (card already seen in `pos`), and the best.

    `budget` 0: the evaluator's after-state values. Otherwise every cell is valued by a
    one-card expectimax (`search_look.look1`), and the best candidates by a two-card one
    (`plan`); a candidate's estimate is its deepest value. `whole`, if given, adds its
    correction of each cell's after-state (`root_corrections`) to that cell's estimate, before
    the candidates are chosen, or, if it is `at_leaves`, to every after-state the lookahead
    values (`search_look.Context`). The result is exact averages over the unseen cards, so it
    depends only on (pos, budget). With `seconds` the candidates are refined in order until
    the time is spent (benchmarks only).
    """
    classes = cell_classes(pos)
    reps = list(classes)
    leaves = whole is not None and whole.at_leaves and (budget > 0 or seconds is not None)
    corr = root_corrections(pos, card, reps, None if leaves else whole, pts)
    if budget <= 0 and seconds is None:
        static: dict[int, float] = {}
        for rep in reps:
            nxt = pos.copy()
            nxt.put(rep, card, pts)
            static[rep] = (
                static_estimate(nxt, vt) + corr[rep] if nxt.placed < 25 else float(nxt.total)
            )
        return _spread(static, classes), best_cell(static)
    t0 = time.perf_counter()
    rc = whole.rows_cols() if whole is not None and leaves else None
    est, gains, ctx = look_values(pos, card, reps, vt, pts, rc)
    for c in reps:
        est[c] += corr[c]
    order = sorted(reps, key=lambda c: (-est[c], c))
    if len(order) > 1:
        deep: dict[int, float] = {}
        if seconds is None:
            k, width = plan(budget, len(order))
            deep = look2_values(pos, card, order[:k], gains, ctx, width, vt, pts)
        else:
            for c in order:
                if time.perf_counter() - t0 > seconds * 0.5:
                    break
                deep.update(look2_values(pos, card, [c], gains, ctx, TWO_CARD_WIDTH, vt, pts))
        for c, v in deep.items():
            est[c] = v + corr[c]
    return _spread(est, classes), best_cell(est)
