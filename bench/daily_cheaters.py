"""Players who know a daily deal's order, for `bench.daily_fairplay` (docs/daily.md, "Fair play").

- `clairvoyant`: the best final grid a local search over the known cards finds, placed card by
  card: what a throwaway id's knowledge buys a player who does not care about the check.
- `adaptive`: a clairvoyant who has read the check: it builds several grids that trade
  points for looking honest (honest play for the first cards and a planned grid for the rest;
  the planned grid followed only where a placement gives away at most a few expected points)
  and submits the highest-scoring one the check lets through (the honest engine's grid if
  none passes).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from cardtable.cards import DECK, Card
from cardtable.poker_squares.game import CELLS, LINES, Game
from cardtable.poker_squares.hands import TABLES, classify
from cardtable.poker_squares.hint import evaluate
from cardtable.poker_squares.review import visible

PLAN_STEPS = 40_000
"""Swaps of the full plan (about 0.35 s of one core); re-plans after a placement use a quarter."""
REPLAN_AFTER = (4, 8, 12, 16, 20)
"""`adaptive`: cards played honestly before the planned grid takes over."""
REGRET_CAPS = (2.0, 5.0, 10.0)
"""`adaptive`: the most expected points one placement may give away to follow the plan."""


def plan(
    table: str, cards: Sequence[Card], fixed: Sequence[int], steps: int, rng: random.Random
) -> list[int]:
    """Placements for all 25 cards: the first ``len(fixed)`` as given, the rest on the grid
    that simulated annealing over swaps of the free cells scores best (each swap rescored on
    the lines it touches), starting from the cards in order on the free cells."""
    points = TABLES[table]
    memo: dict[tuple[int, ...], int] = {}

    def line(grid: list[int], li: int) -> int:
        key = tuple(sorted(grid[c] for c in LINES[li]))
        got = memo.get(key)
        if got is None:
            got = memo[key] = points[classify(DECK[i] for i in key)]
        return got

    grid = [-1] * CELLS
    for k, cell in enumerate(fixed):
        grid[cell] = cards[k].index
    free = [c for c in range(CELLS) if grid[c] < 0]
    for cell, card in zip(free, cards[len(fixed) : CELLS], strict=True):
        grid[cell] = card.index
    scores = [line(grid, li) for li in range(10)]
    total = sum(scores)
    best, best_grid = total, grid[:]
    for step in range(steps if len(free) > 1 else 0):
        heat = 12.0 * (1 - step / steps) + 0.3
        a, b = rng.choice(free), rng.choice(free)
        if a == b:
            continue
        touched = {a // 5, b // 5, 5 + a % 5, 5 + b % 5}
        grid[a], grid[b] = grid[b], grid[a]
        new = {li: line(grid, li) for li in touched}
        delta = sum(new[li] - scores[li] for li in touched)
        if delta >= 0 or rng.random() < math.exp(delta / heat):
            for li, v in new.items():
                scores[li] = v
            total += delta
            if total > best:
                best, best_grid = total, grid[:]
        else:
            grid[a], grid[b] = grid[b], grid[a]
    cell_of = {card: cell for cell, card in enumerate(best_grid)}
    return [cell_of[c.index] for c in cards[:CELLS]]


def _rng(cards: Sequence[Card]) -> random.Random:
    return random.Random(sum(c.index << (i % 8) for i, c in enumerate(cards)))


def clairvoyant(table: str, cards: Sequence[Card], steps: int = PLAN_STEPS) -> list[int]:
    """The planned grid of all 25 known cards (module docstring)."""
    return plan(table, cards, [], steps, _rng(cards))


def ranked(
    table: str, cards: Sequence[Card], placed: Sequence[int], budget: int = 0
) -> list[tuple[float, int]]:
    """(estimate, cell) of every empty cell for the next card by the hint engine at
    ``budget``, best first (the lowest cell on ties)."""
    game = Game(table, tuple(cards[:CELLS]), tuple(placed))
    est = evaluate(visible(game, len(placed)), budget=budget)
    return sorted(
        ((e["estimate"], e["row"] * 5 + e["col"]) for e in est), key=lambda x: (-x[0], x[1])
    )


def honest(
    table: str, cards: Sequence[Card], placed: Sequence[int], upto: int, budget: int = 0
) -> list[int]:
    """``placed`` extended by the engine's cells (at ``budget``) up to ``upto`` cards."""
    out = list(placed)
    while len(out) < upto:
        out.append(ranked(table, cards, out, budget)[0][1])
    return out


def capped(
    table: str,
    cards: Sequence[Card],
    target: list[int],
    cap: float,
    rng: random.Random,
    steps: int = PLAN_STEPS,
) -> list[int]:
    """Follow the planned grid while a placement gives away at most ``cap`` expected points;
    otherwise take the engine's cell and plan the rest again around it."""
    out: list[int] = []
    for k in range(CELLS):
        if k == CELLS - 1:
            out.append(target[k])
            break
        order = ranked(table, cards, out)
        best = order[0][1]
        est = {cell: v for v, cell in order}
        if est[best] - est[target[k]] <= cap:
            out.append(target[k])
            continue
        out.append(best)
        target = plan(table, cards, out, steps // 4, rng)
    return out


def adaptive(
    table: str,
    cards: Sequence[Card],
    passes: Callable[[list[int]], bool],
    steps: int = PLAN_STEPS,
) -> tuple[list[int], int]:
    """The highest-scoring grid among the candidates (module docstring) that ``passes``
    (the honest engine's grid if none does); also how many candidates passed. ``steps``:
    swaps of the full plan."""
    rng = _rng(cards)
    target = plan(table, cards, [], steps, rng)
    grids = [target, honest(table, cards, [], CELLS)]
    for m in REPLAN_AFTER:
        grids.append(plan(table, cards, honest(table, cards, [], m), steps // 2, rng))
    for cap in REGRET_CAPS:
        grids.append(capped(table, cards, target, cap, rng, steps))

    def total(cells: list[int]) -> int:
        return Game(table, tuple(cards[:CELLS]), tuple(cells)).total

    ok = [g for g in grids if passes(g)]
    return max(ok or [grids[1]], key=total), len(ok)
