"""Search on top of the learned evaluator.

`analyse` (used by the hint engine): every cell valued by a one-card expectimax over the
learned line values, the best ones by a two-card expectimax (`search_look`); exact averages
over the unseen cards, no sampling.

`search` (the previous engine, kept for comparison): for each candidate cell, futures
consistent with the player's view are sampled (the unseen cards shuffled by the seeded rng)
and played to the end with the greedy evaluator policy, with common random numbers and
successive halving; with at most `EXACT_CELLS` empty cells the expectation is exact.
"""

from __future__ import annotations

import math
import random
import time

from cardtable.poker_squares.abstract import MS_N, TB, ValueTable, line_key
from cardtable.poker_squares.rollout import (
    COL_OF,
    LINE_CELLS,
    ROW_OF,
    Position,
    deltas,
    exact_value,
    playout,
)
from cardtable.poker_squares.search_look import look2_values, look_values

EXACT_CELLS = 2
MAX_CANDIDATES = 6
"""Hint search keeps at most this many cells (best by the evaluator) before playouts."""
PRIOR_WEIGHT = 24
"""The evaluator's estimate counts as this many playouts in each candidate's mean: both
estimate the final total under greedy play, and the prior keeps a few noisy playouts from
overturning a clear evaluator choice."""


def static_estimate(pos: Position, vt: ValueTable) -> float:
    """Points of complete lines plus learned values of the incomplete ones."""
    tb = TB[pos.placed - 1]  # the card just placed was turned when pos.placed - 1 lay
    est = float(pos.total)
    for li in range(10):
        ms = pos.lms[li]
        if MS_N[ms] < 5:
            k = line_key(
                1 if li >= 5 else 0, tb, ms, pos.lst[li], pos.ru, pos.su, pos.avail, pos.mask
            )
            est += vt.value(k)
    return est


def _signature(pos: Position, cell: int) -> tuple[object, ...]:
    """Cells with equal signatures lead to positions that are the same up to symmetry."""
    out: list[object] = []
    for li in (ROW_OF[cell], COL_OF[cell]):
        empt = tuple(i for i, c in enumerate(LINE_CELLS[li]) if pos.cells[c] < 0)
        out.append((pos.lms[li], pos.lst[li], empt))
    return tuple(out)


def cell_classes(pos: Position) -> dict[int, list[int]]:
    """Empty cells grouped by signature: representative cell -> all cells of the group."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for cell in pos.empties():
        groups.setdefault(_signature(pos, cell), []).append(cell)
    return {cells[0]: cells for cells in groups.values()}


def search(
    pos: Position,
    card: int,
    vt: ValueTable,
    pts: list[int],
    budget: int,
    rng: random.Random,
    *,
    all_cells: bool = False,
    seconds: float | None = None,
) -> tuple[dict[int, float], int]:
    """Estimated final total per empty cell (card already seen in `pos`), and the chosen cell.

    With `all_cells` every empty cell gets an estimate from the same number of playouts;
    otherwise the estimates cover the candidates the search looked at, and the choice is the
    best of the last round. `budget` counts playouts; with `seconds` the budget is set from the
    measured playout speed instead.
    """
    classes = cell_classes(pos)
    if len(pos.empties()) <= EXACT_CELLS:
        exact = exact_value(pos, card, pts)
        return _spread(exact, classes, all_cells), best_cell(exact)
    static: dict[int, float] = {}
    for rep in classes:
        nxt = pos.copy()
        nxt.put(rep, card, pts)
        static[rep] = static_estimate(nxt, vt)
    reps = sorted(classes, key=lambda c: -static[c])
    if not all_cells:
        d = deltas(pos, card, vt, pts)
        reps.sort(key=lambda c: -(d[ROW_OF[c]] + d[COL_OF[c]]))
        reps = reps[:MAX_CANDIDATES]
    if len(reps) == 1 or (budget <= 0 and seconds is None):
        est = {c: static[c] for c in reps}
        return _spread(est, classes, all_cells), best_cell(est)

    unseen = pos.unseen()
    need = 25 - pos.placed - 1
    sums = dict.fromkeys(reps, 0.0)
    samples = 0
    starts: dict[int, Position] = {}
    for rep in reps:
        nxt = pos.copy()
        nxt.put(rep, card, pts)
        starts[rep] = nxt

    def run(alive: list[int], n: int) -> None:
        nonlocal samples
        for _ in range(n):
            seq = rng.sample(unseen, need)
            for c in alive:
                sums[c] += playout(starts[c].copy(), seq, vt, pts)
            samples += 1

    alive = list(reps)
    if seconds is not None:
        t0 = time.perf_counter()
        run(alive, 1)
        per = (time.perf_counter() - t0) / len(alive)
        budget = max(len(alive), int(seconds / max(per, 1e-6)))
        budget -= len(alive)
    if all_cells:
        run(alive, max(1, budget // len(alive)))
        est = {c: (sums[c] + PRIOR_WEIGHT * static[c]) / (samples + PRIOR_WEIGHT) for c in alive}
        return _spread(est, classes, all_cells), best_cell(est)

    rounds = max(1, math.ceil(math.log2(len(alive))))
    out: dict[int, float] = {}
    for rnd in range(rounds):
        per_cand = max(1, budget // (rounds * len(alive)))
        run(alive, per_cand)
        means = {c: (sums[c] + PRIOR_WEIGHT * static[c]) / (samples + PRIOR_WEIGHT) for c in alive}
        alive.sort(key=lambda c: -means[c])
        if rnd == rounds - 1 or len(alive) <= 1:
            out.update(means)
            break
        keep = max(1, (len(alive) + 1) // 2)
        for c in alive[keep:]:
            out[c] = means[c]
        alive = alive[:keep]
    return _spread(out, classes, all_cells), best_cell({c: out[c] for c in alive})


def _spread(
    est: dict[int, float], classes: dict[int, list[int]], all_cells: bool
) -> dict[int, float]:
    """Give every cell of a class its representative's estimate (all_cells), or keep reps."""
    if not all_cells:
        return est
    out: dict[int, float] = {}
    for rep, v in est.items():
        for c in classes.get(rep, [rep]):
            out[c] = v
    # exact_value returns every cell already; keep any cell not covered by a class.
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
    one-card expectimax per unseen next card (about 1 ms of one core for all of them).
    """
    width = WIDE_WIDTH if budget >= WIDE_BUDGET else TWO_CARD_WIDTH
    return min(n_cells, max(1, budget // width)), width


def analyse(
    pos: Position,
    card: int,
    vt: ValueTable,
    pts: list[int],
    budget: int,
    *,
    seconds: float | None = None,
) -> tuple[dict[int, float], int]:
    """Estimated final total for every empty cell (card already seen in `pos`), and the best.

    `budget` 0: the evaluator's after-state values. Otherwise every cell is valued by a
    one-card expectimax (`search_look.look1`), and the best candidates by a two-card one
    (`plan`); a candidate's estimate is its deepest value. The result is exact averages over
    the unseen cards, so it depends only on (pos, budget). With `seconds` the candidates are
    refined in order until the time is spent (benchmarks only).
    """
    classes = cell_classes(pos)
    reps = list(classes)
    if budget <= 0 and seconds is None:
        static: dict[int, float] = {}
        for rep in reps:
            nxt = pos.copy()
            nxt.put(rep, card, pts)
            static[rep] = static_estimate(nxt, vt) if nxt.placed < 25 else float(nxt.total)
        return _spread(static, classes, True), best_cell(static)
    t0 = time.perf_counter()
    est, gains, ctx = look_values(pos, card, reps, vt, pts)
    order = sorted(reps, key=lambda c: (-est[c], c))
    if len(order) > 1:
        if seconds is None:
            k, width = plan(budget, len(order))
            est.update(look2_values(pos, card, order[:k], gains, ctx, width, vt, pts))
        else:
            for c in order:
                if time.perf_counter() - t0 > seconds * 0.5:
                    break
                est.update(look2_values(pos, card, [c], gains, ctx, TWO_CARD_WIDTH, vt, pts))
    return _spread(est, classes, True), best_cell(est)
