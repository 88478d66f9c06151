"""The Poker Squares hint engine: where to put the current card (SPEC PS-8, C-8).

`hint(view, budget=..., seed=...)` returns the suggested ``(row, col)``; `evaluate` returns every
empty cell with the engine's estimate of the final total if the card goes there. Both read
only the player's view (the grid and the current card, hence the set of unseen cards) and
never the order of the cards to come: futures are sampled by shuffling the unseen set with
the given seed. `budget` counts playouts, so a result is reproducible from (view, budget, seed).

The engine: learned values of abstract partial lines (`abstract`, trained by `train`) give a
greedy policy; `search` compares candidate cells by greedy playouts of sampled futures, with
common random numbers and successive halving; the last two cells are solved exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, TypedDict

from cardtable.cards import Card, CardError
from cardtable.poker_squares.abstract import line_points, load_values
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.rollout import Position
from cardtable.poker_squares.search import search

INTERACTIVE_BUDGET = 200
"""Playouts per in-game hint: at most 250 ms per hint on the development machine."""

STRONG_BUDGET = 1500
"""Playouts per move for the strongest benchmarked play (about 1 s per move)."""


class CellEstimate(TypedDict):
    row: int
    col: int
    estimate: float


def parse_view(view: Mapping[str, Any]) -> tuple[str, list[int], int]:
    """(table, 25 cells as card indices or -1, current card index) from a player's view.

    Raises `ValueError` naming the reason for a view that is malformed or over.
    """
    if not isinstance(view, Mapping):
        raise ValueError("view must be a mapping (the dict returned by poker_squares.view)")
    table = view.get("table")
    if table not in TABLES:
        raise ValueError(f"unknown point table {table!r} (known: {', '.join(TABLES)})")
    if view.get("is_over"):
        raise ValueError("the deal is over: there is no card to place")
    grid = view.get("grid")
    if (
        not isinstance(grid, list | tuple)
        or len(grid) != 5
        or not all(isinstance(row, list | tuple) and len(row) == 5 for row in grid)
    ):
        raise ValueError("grid must be 5 rows of 5 cells")
    cells: list[int] = []
    try:
        for row in grid:
            for text in row:
                cells.append(-1 if text is None else Card.parse(text).index)
        raw = view.get("card")
        if raw is None:
            raise ValueError("the view has no current card")
        current = Card.parse(raw).index
    except CardError as exc:
        raise ValueError(f"bad card in view: {exc}") from None
    placed = [c for c in cells if c >= 0]
    if len(set(placed)) != len(placed) or current in placed:
        raise ValueError("a card appears twice in the view")
    if len(placed) == 25:
        raise ValueError("the deal is over: every cell is filled")
    return str(table), cells, current


def _estimates(
    view: Mapping[str, Any], budget: int, seed: int, all_cells: bool, seconds: float | None
) -> tuple[dict[int, float], int]:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise ValueError(f"budget must be a non-negative integer, got {budget!r}")
    table, cells, current = parse_view(view)
    pos = Position.from_cells(cells, current, table)
    rng = random.Random(seed)
    return search(
        pos,
        current,
        load_values(table),
        line_points(table),
        budget,
        rng,
        all_cells=all_cells,
        seconds=seconds,
    )


def hint(
    view: Mapping[str, Any],
    *,
    budget: int = INTERACTIVE_BUDGET,
    seed: int = 0,
    seconds: float | None = None,
) -> tuple[int, int]:
    """The suggested ``(row, col)`` (0-based) for the current card: always an empty cell.

    `budget` is the number of playouts (0: the learned evaluator alone); `seconds`, if given,
    replaces it by a time budget (benchmarks only: the result then depends on the clock).
    """
    _, cell = _estimates(view, budget, seed, False, seconds)
    return divmod(cell, 5)


def evaluate(
    view: Mapping[str, Any], *, budget: int = INTERACTIVE_BUDGET, seed: int = 0
) -> list[CellEstimate]:
    """Every empty cell with the estimated final total if the current card goes there.

    JSON-ready: a list of ``{"row", "col", "estimate"}`` in row-major order, estimates rounded
    to 0.1 points. Each cell gets an equal share of `budget` playouts on the same sampled
    futures; cells that are equivalent by symmetry share one estimate.
    """
    est, _ = _estimates(view, budget, seed, True, None)
    return [
        {"row": cell // 5, "col": cell % 5, "estimate": round(v, 1)}
        for cell, v in sorted(est.items())
    ]
