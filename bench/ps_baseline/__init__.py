"""The frozen baseline Poker Squares player: the hint engine before issue 16.

`values-<table>.npz` here are byte copies of the value tables the engine shipped before issue
16 (Monte Carlo self-play: `python -m training.train --table american --seed 1
--games 300000`, British 150000 games, as of commit 2888b1e). The search is the engine's own
`search.analyse` with the same budget, so `hint` plays exactly as the pre-issue-16 in-game hint
did: issue 16 changed the trainer and added the fullness correction (British), which the
search adds only for a table that carries one (`ValueTable.fullness`); these frozen tables
carry none, so they are searched with the same floats as before. If a later change alters the
search itself, freeze a copy of the old search here. `cardtable bench poker-squares --player
baseline` plays it, and `--compare baseline` pairs it with the current engine on the same
deals.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from cardtable.poker_squares.hint import parse_view, search
from cardtable.poker_squares.hint.abstract import ValueTable, line_points
from cardtable.poker_squares.hint.position import Position

DATA = Path(__file__).parent


@cache
def values(table: str) -> ValueTable:
    """The frozen value table of a point table."""
    return ValueTable.from_bytes(table, (DATA / f"values-{table}.npz").read_bytes())


def hint(view: Mapping[str, Any], *, budget: int) -> tuple[int, int]:
    """The baseline's ``(row, col)`` for the current card of a player's view."""
    table, cells, current = parse_view(view)
    pos = Position.from_cells(cells, current, table)
    _, best = search.analyse(pos, current, values(table), line_points(table), budget)
    return divmod(best, 5)
