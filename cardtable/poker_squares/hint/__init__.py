"""Poker Squares' hint engine (SPEC PS-8, C-8): where to put the current card, and what every
empty cell is worth.

It reads only the player's view (the grid and the card on show, hence the unseen cards),
never the cards to come, and keeps nothing between calls that could change an answer: a
result depends only on (view, budget). The game itself (`cardtable.poker_squares`: game,
hands, moves, api) never imports it; the review of a finished deal (`review`) and the server
use it through this package.

- `api`: the entry points on a view: `hint`, `evaluate`, `analyse` (both from one search,
  cached), `parse_view`, `clear_cache`, `INTERACTIVE_BUDGET`.
- `search`: every cell's estimate by expectimax one card deep, the best cells two deep
  (`analyse`), or the learned evaluator alone (`static_estimate`); `cell_classes` groups
  cells equal by symmetry.
- `search_look`: the one- and two-card lookaheads, vectorised over the unseen cards.
- `whole_grid`: the whole-grid correction of the evaluator (issue 31).
- `position`: the engine's position, the view as plain ints (`Position`).
- `abstract`: the abstraction of partial lines into integer keys and the learned values of
  those keys (`ValueTable`, `load_values`, `line_points`); the shipped tables are read from
  ``cardtable/poker_squares/data/``.

The tables are learned offline by the top-level `training` package, which the product never
imports.

>>> from cardtable.poker_squares import deal, view
>>> row, col = hint(view(deal("american", seed=1)), budget=0)
>>> 0 <= row < 5 and 0 <= col < 5
True
"""

from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.api import (
    INTERACTIVE_BUDGET,
    CellEstimate,
    analyse,
    clear_cache,
    evaluate,
    hint,
    parse_view,
)
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import cell_classes, static_estimate

__all__ = [
    "INTERACTIVE_BUDGET",
    "CellEstimate",
    "Position",
    "ValueTable",
    "analyse",
    "cell_classes",
    "clear_cache",
    "evaluate",
    "hint",
    "line_points",
    "load_values",
    "parse_view",
    "static_estimate",
]
