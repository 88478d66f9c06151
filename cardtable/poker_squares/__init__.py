"""Poker Squares: a solitaire scoring puzzle on a 5x5 grid.

Rules (SPEC PS-1 to PS-9)
-------------------------
One standard 52-card deck. Twenty-five cards are turned one at a time; each must be placed on
any empty cell of a 5x5 grid (no adjacency rule, no skipping, no discard, and a placed card
never moves). When the grid is full, each of the 5 rows and 5 columns is scored as a poker
hand; order inside a line does not matter and diagonals do not count. A line scores its one
best category:

==================  ========  =======
category            American  British
==================  ========  =======
royal flush              100       30
straight flush            75       30
four of a kind            50       16
full house                25       10
flush                     20        5
straight                  15       12
three of a kind           10        6
two pair                   5        3
one pair                   2        1
nothing                    0        0
==================  ========  =======

A straight is five distinct consecutive ranks: Ace low (A-2-3-4-5) or high (10-J-Q-K-A), never
wrapping (Q-K-A-2-3 is nothing). A flush needs five cards of one suit, not one colour.
Royal flush is 10-J-Q-K-A of one suit. Targets (easy / normal / hard): American 18 / 28 / 38,
British 9 / 15 / 20; play always continues to the 25th card.

Undo takes back placements; a deal where undo or a hint was used, or a replay of an earlier
deal, is practice, scored apart from unassisted results.

Moves
-----
A move is the cell for the current card: column letter then row number, ``"c4"`` (module
`moves`). `legal_moves` lists the empty cells; `play` places the card.

Public API
----------
`Hand`, `classify`, `TABLES`, `score`, `TARGETS`; `deal`, `deal_cards`, `Game`, `Move`,
`legal_moves`, `play`, `place` (row and column), `undo`, `view`, `MoveError`,
`IllegalMove`, `GameError`; `ENGINE`, the game through the one game interface
(`cardtable.interface`); `hint`, `evaluate`, `analyse`, `INTERACTIVE_BUDGET`, the hint.

Layout
------
The game is the modules at the top (`hands`, `moves`, `game`, `api`); the hint engine, which
reads only a player's view, is the subpackage `hint` (its search, lookahead and learned line
values; the tables it ships are in ``data/``); `review` reviews a finished deal with it. The
tables are learned by the top-level `training` package, which nothing here imports.
"""

from cardtable.interface import IllegalMove, MoveError
from cardtable.poker_squares.api import ENGINE
from cardtable.poker_squares.game import (
    CELLS,
    LINES,
    Game,
    GameError,
    deal,
    deal_cards,
    hinted,
    legal_moves,
    place,
    play,
    undo,
    view,
)
from cardtable.poker_squares.hands import (
    TABLES,
    TARGET_LEVELS,
    TARGETS,
    Hand,
    HandError,
    classify,
    classify_ranks,
    score,
)
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, analyse, evaluate, hint
from cardtable.poker_squares.moves import SIZE, Move

__all__ = [
    "CELLS",
    "ENGINE",
    "INTERACTIVE_BUDGET",
    "LINES",
    "SIZE",
    "TABLES",
    "TARGETS",
    "TARGET_LEVELS",
    "Game",
    "GameError",
    "Hand",
    "HandError",
    "IllegalMove",
    "Move",
    "MoveError",
    "analyse",
    "classify",
    "classify_ranks",
    "deal",
    "deal_cards",
    "evaluate",
    "hint",
    "hinted",
    "legal_moves",
    "place",
    "play",
    "score",
    "undo",
    "view",
]
