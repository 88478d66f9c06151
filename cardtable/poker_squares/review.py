"""Engine review of a finished Poker Squares deal (issue 15, docs/review.md).

For every placement the review asks the hint engine about the position the player faced,
the grid as it was and the card on show, nothing else (the view: never a card still to
come), and compares the cell chosen with the engine's best:

- ``estimates``: every empty cell's estimated final total, exactly as the in-game hint
  shows them (the same search, `hint.analyse`, at the in-game hint's budget): the best
  ``budget // 3`` cells are valued two cards deep, the others one card deep;
- ``loss``: the estimate of the best cell minus the estimate of the chosen one (0 when the
  chosen cell is the best), in points of the deal's point table. A chosen cell outside the
  cells looked at two cards deep keeps its one-card value, which leans optimistic, so its
  loss is if anything understated (docs/review.md);
- ``mark``: ``"inaccuracy"``, ``"mistake"`` or ``"blunder"`` when the loss reaches the
  thresholds of `THRESHOLDS` (chosen from the measured distribution of losses,
  ``bench/review_thresholds.py``), else None.

The deal as a whole: the expected final total after each placement (the chosen cell's
estimate; after the last card, the score), the total expected loss, and **par**: the score
of the hint engine itself placing the same cards in the same order without seeing ahead
(`par_placements`), so ``total - par`` separates a hard deal from loose play.

`review_deal` yields its progress (one unit per placement reviewed and per card par
placed) so a caller can store it while it works. Everything is a function of (deal,
placements, budget): there is no randomness.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypedDict

from cardtable.cards import Card
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, analyse, hint

REVIEW_BUDGET = INTERACTIVE_BUDGET
"""The review looks as far as the in-game hint (docs/hint-engine.md: a higher budget was
measured no stronger), so its estimates are the ones the player could have asked for."""

MARKS = ("inaccuracy", "mistake", "blunder")

THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "american": (3.0, 8.0, 20.0),
    "british": (1.0, 3.0, 8.0),
}
"""Loss (points) from which a placement is an inaccuracy, a mistake, a blunder, per point
table. Chosen from the measured distribution of per-placement losses of the learned evaluator
playing alone, a decent player close to the hint (``python -m bench.review_thresholds``;
docs/review.md): an inaccuracy is a loss that player makes about once in 100 placements (its
99th percentile), a mistake one it makes at most once in 1000, a blunder one it never made."""

STEPS = 2 * CELLS
"""Progress units of one review: 25 placements reviewed, then 25 placed by par."""


class StepReview(TypedDict):
    """One placement: the card, the cell chosen and the engine's best, their estimates, the
    loss, the mark, and every empty cell's estimate (row-major)."""

    index: int
    card: str
    chosen: list[int]
    best: list[int]
    expected: float
    best_estimate: float
    loss: float
    mark: str | None
    estimates: list[dict[str, Any]]


def mark_of(loss: float, table: str) -> str | None:
    """The mark a loss earns on ``table``: None below the first threshold."""
    mark = None
    for name, limit in zip(MARKS, THRESHOLDS[table], strict=True):
        if loss >= limit:
            mark = name
    return mark


def visible(game: Game, placed: int) -> dict[str, Any]:
    """What the player saw before placement ``placed`` (0-based): the grid and the card on
    show. Built from the placed cards and that one card only, so nothing later can leak in."""
    grid: list[list[str | None]] = [[None] * 5 for _ in range(5)]
    for i in range(placed):
        cell = game.placements[i]
        grid[cell // 5][cell % 5] = str(game.cards[i])
    return {"table": game.table, "grid": grid, "card": str(game.cards[placed]), "is_over": False}


def cell_estimates(view: dict[str, Any], budget: int) -> tuple[dict[int, float], int]:
    """Every empty cell's estimate (0-24 -> points) and the best cell, exactly as the in-game
    hint computes and shows them (`hint.analyse`). Reads only the view."""
    (row, col), estimates = analyse(view, budget=budget)
    return {e["row"] * 5 + e["col"]: e["estimate"] for e in estimates}, row * 5 + col


def review_step(game: Game, placed: int, budget: int = REVIEW_BUDGET) -> StepReview:
    """The review of placement ``placed`` (0-based) of ``game``."""
    if placed >= game.placed:
        raise ValueError(f"placement {placed + 1} has not been made")
    chosen = game.placements[placed]
    est, best = cell_estimates(visible(game, placed), budget)
    if placed == CELLS - 1:
        # The last card has one cell: its value is the score itself.
        est = {chosen: float(game.total)}
        best = chosen
    loss = max(0.0, round(est[best] - est[chosen], 1))
    return {
        "index": placed,
        "card": str(game.cards[placed]),
        "chosen": list(divmod(chosen, 5)),
        "best": list(divmod(best, 5)),
        "expected": round(est[chosen], 1),
        "best_estimate": round(est[best], 1),
        "loss": loss,
        "mark": mark_of(loss, game.table),
        "estimates": [
            {"row": c // 5, "col": c % 5, "estimate": round(v, 1)} for c, v in sorted(est.items())
        ],
    }


def par_placements(table: str, cards: Sequence[Card], budget: int = REVIEW_BUDGET) -> Iterator[int]:
    """The cells the hint engine chooses placing ``cards`` in order, one at a time; each
    choice sees only the grid and the card on show (its own view), as a player would."""
    game = Game(table, tuple(cards))
    for placed in range(CELLS):
        row, col = hint(visible(game, placed), budget=budget)
        game = Game(table, game.cards, (*game.placements, row * 5 + col))
        yield row * 5 + col


def review_deal(game: Game, budget: int = REVIEW_BUDGET) -> Iterator[int | dict[str, Any]]:
    """Review a finished deal: yields the progress (1 to `STEPS`) as it works, then the
    review (a JSON-ready dict; docs/review.md). ValueError for a deal that is not over."""
    if not game.is_over:
        raise ValueError("the deal is not over: a deal in progress is never reviewed")
    steps: list[StepReview] = []
    for placed in range(CELLS):
        steps.append(review_step(game, placed, budget))
        yield len(steps)
    cells: list[int] = []
    for cell in par_placements(game.table, game.cards, budget):
        cells.append(cell)
        yield CELLS + len(cells)
    yield summary(game, steps, cells, budget)


def summary(
    game: Game, steps: Sequence[StepReview], par_cells: Sequence[int], budget: int
) -> dict[str, Any]:
    """The review of ``game`` from its 25 reviewed placements (`review_step`) and the 25
    cells par chose (`par_placements`): what `review_deal` yields last. A caller that
    computes the steps one at a time elsewhere (the server's search pool) assembles the same
    review with it."""
    par_game = Game(game.table, game.cards, tuple(par_cells))
    losses = [s["loss"] for s in steps]
    return {
        "table": game.table,
        "budget": budget,
        "thresholds": dict(zip(MARKS, THRESHOLDS[game.table], strict=True)),
        "cards": [str(c) for c in game.cards],
        "placements": [list(divmod(c, 5)) for c in game.placements],
        "total": game.total,
        "line_scores": list(game.line_scores),
        "line_hands": [None if h is None else h.key for h in game.line_hands],
        "start_estimate": steps[0]["best_estimate"],
        "expected_loss": round(sum(losses), 1),
        "marks": {m: sum(1 for s in steps if s["mark"] == m) for m in MARKS},
        "par": par_game.total,
        "vs_par": game.total - par_game.total,
        "par_placements": [list(divmod(c, 5)) for c in par_game.placements],
        "par_line_scores": list(par_game.line_scores),
        "steps": list(steps),
    }


def review(game: Game, budget: int = REVIEW_BUDGET) -> dict[str, Any]:
    """`review_deal` run to the end: the review alone."""
    *_, out = review_deal(game, budget)
    assert isinstance(out, dict)
    return out
