"""The Poker Squares hint engine: where to put the current card (SPEC PS-8, C-8).

`hint(view, budget=...)` returns the suggested ``(row, col)``; `evaluate` returns every empty
cell with the engine's estimate of the final total if the card goes there; `analyse` gives
both from one search. All read only the player's view (the grid and the current card, hence
the set of unseen cards) and never the order of the cards to come: the lookahead averages
exactly over every unseen card, so a result depends only on (view, budget).

The engine: learned values of abstract partial lines (`abstract`, trained offline by the
`training` package) value an after-state; `search.analyse` values every cell by a one-card
expectimax over those values (`search_look`) and the best `budget // width` cells by a
two-card one. With three cells left that is exact. A table that ships a whole-grid correction
(`whole_grid`, issue 31) adds it to each cell's estimate. The last few analyses are cached,
so `hint` then `evaluate` on the same view cost one search.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, TypedDict

from cardtable.cards import Card, CardError
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint import search
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.whole_grid import load_whole_grid

INTERACTIVE_BUDGET = 9
"""In-game hint: the 3 best cells by the one-card lookahead are searched two cards deep, 3
cells per next card, as strong as the earlier budget 30 on the same deals (its time and
strength, and the command that measures them: docs/hint-engine.md, `INTERACTIVE_BUDGET`)."""


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


def _check_budget(budget: object) -> int:
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
        raise ValueError(f"budget must be a non-negative integer, got {budget!r}")
    return budget


@lru_cache(maxsize=64)
def _analysed(
    table: str, cells: tuple[int, ...], current: int, budget: int
) -> tuple[tuple[tuple[int, float], ...], int]:
    pos = Position.from_cells(cells, current, table)
    est, best = search.analyse(
        pos,
        current,
        load_values(table),
        line_points(table),
        budget,
        whole=load_whole_grid(table),
    )
    return tuple(sorted(est.items())), best


def clear_cache() -> None:
    """Forget the analysed positions (a benchmark measures every analysis cold)."""
    _analysed.cache_clear()


def _estimates(
    view: Mapping[str, Any], budget: int, seconds: float | None
) -> tuple[dict[int, float], int]:
    budget = _check_budget(budget)
    table, cells, current = parse_view(view)
    if seconds is not None:
        pos = Position.from_cells(cells, current, table)
        return search.analyse(
            pos,
            current,
            load_values(table),
            line_points(table),
            budget,
            seconds=seconds,
            whole=load_whole_grid(table),
        )
    est, best = _analysed(table, tuple(cells), current, budget)
    return dict(est), best


def analyse(
    view: Mapping[str, Any], *, budget: int = INTERACTIVE_BUDGET
) -> tuple[tuple[int, int], list[CellEstimate]]:
    """`hint` and `evaluate` in one call: ``((row, col), estimates)``.

    The suggested cell is always the one with the highest estimate (lowest cell on ties). The
    lookahead is exhaustive, so the result depends only on the view and the budget.
    """
    est, best = _estimates(view, budget, None)
    return divmod(best, 5), _as_json(est)


def _as_json(est: dict[int, float]) -> list[CellEstimate]:
    return [
        {"row": cell // 5, "col": cell % 5, "estimate": round(v, 1)}
        for cell, v in sorted(est.items())
    ]


def hint(
    view: Mapping[str, Any],
    *,
    budget: int = INTERACTIVE_BUDGET,
    seconds: float | None = None,
) -> tuple[int, int]:
    """The suggested ``(row, col)`` (0-based) for the current card: always an empty cell.

    `budget` counts two-card (candidate, cell) pairs (0: the learned evaluator alone; see
    `search.plan`); `seconds`, if given, replaces it by a time budget (benchmarks only: the
    result then depends on the clock).
    """
    _, cell = _estimates(view, budget, seconds)
    return divmod(cell, 5)


def evaluate(view: Mapping[str, Any], *, budget: int = INTERACTIVE_BUDGET) -> list[CellEstimate]:
    """Every empty cell with the estimated final total if the current card goes there.

    JSON-ready: a list of ``{"row", "col", "estimate"}`` in row-major order, estimates rounded
    to 0.1 points. Each cell's estimate is its deepest lookahead value (two cards for the best
    cells, one for the rest); cells that are equivalent by symmetry share one estimate.
    """
    est, _ = _estimates(view, budget, None)
    return _as_json(est)
