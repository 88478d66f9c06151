"""What is due at a Poker Squares table, for the deadline driver (the online tables' `Driver`,
any process; docs/ps-tables.md "Timers").

A table's row stores its next deadline (`Room.due_at`): the card timer's end, a grace period's
end, at once when an away seat has not placed the card on show, and without a timer a look
30 s after each card. `advance` reads the table, applies a grace that ended (compare-and-set
on the row), places the card on show for every seat the hint plays (a placement row each:
its key makes it once per seat and card however many processes race), and shows the next
card once everyone has placed.

The hint is the shipped Poker Squares hint engine on the seat's own view (never a later
card), admitted like every search: it runs in the search pool under a *spare* slot (one no
request is waiting for, `spare_slot`); with none spare the table waits and the driver tries
again a moment later. Nothing here runs on a request's path.
"""

from __future__ import annotations

import time
from typing import Any

from cardtable.poker_squares import view as ps_view
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, hint
from cardtable.server.core.admission import spare_slot
from cardtable.server.core.metrics import MOVES
from cardtable.server.pstables import service
from cardtable.server.pstables.room import Due, Room
from cardtable.server.pstables.store import Placement, Record
from cardtable.server.pstables.tables import PSTables, load

HINTED = MOVES.labels(game="poker_squares_table", by="hint")
"""A placement the hint made at a Poker Squares table (timer or away)."""


def hint_cell(view: dict[str, Any], budget: int) -> int:
    """The hint's cell (row * 5 + col) for the card on show of ``view`` (a player's view:
    run in the search pool)."""
    row, col = hint(view, budget=budget)
    return row * 5 + col


def advance(tables: PSTables, key: str, now: float) -> bool:
    """What is due at ``key`` at ``now``, once; False when nothing was done (nothing due,
    another process first, or no spare search slot: the driver looks again soon)."""
    record = tables.store.read(key)
    if record is None:
        return False
    try:
        room = load(record)
    except Exception:
        tables.store.set_due(key, record.row.version, None)  # a row that does not load
        raise
    due = room.due(now, record.placed())
    if due.hints:
        return _hinted(tables, record, room, due, now)
    if due.room is not None:
        return tables.change_with(key, lambda r, rec: r.due(now, rec.placed()).room) is not None
    tables.store.set_due(key, record.row.version, room.due_at(record.placed(), now))
    return False


def _hinted(tables: PSTables, record: Record, room: Room, due: Due, now: float) -> bool:
    """The hint places the card on show for ``due.hints`` (in the search pool, under a spare
    slot), then the next card if everyone has placed."""
    admission = tables.runtime.admission
    budget = tables.runtime.settings.hint_budget
    budget = INTERACTIVE_BUDGET if budget is None else budget
    placed = record.placed()
    card = room.card
    assert card is not None
    made = []
    with spare_slot(admission) as held:
        if not held:
            return False
        for seat, reason in due.hints:
            cells = placed.cells.get(seat, ())
            view = ps_view(room.game(cells), 0)
            cell = admission.run(hint_cell, view, budget)
            made.append(Placement(seat, card, cell, reason, time.time()))
    saved = tables.store.place(record.key, room.deal, made)
    HINTED.inc(len(saved))
    if due.room is not None:
        tables.change_with(record.key, lambda r, rec: r.due(now, rec.placed()).room)
    service.next_card(tables, record.key, placed=bool(saved), now=now)
    return bool(saved)
