"""`view(state, seat)`: the one door out of the engine, with what one seat may see (C-8).

The seat's own hand, every pile, the stock as a count, every hand as a size, the legal
moves when it is that seat's turn. Never another hand's cards or the stock's order.
"""

from __future__ import annotations

from typing import Any

from ._tables import PILE_NAMES, TEXT
from .engine import legal_moves
from .state import State


def view(state: State, seat: int) -> dict[str, Any]:
    """JSON-ready dict for ``seat``. Keys: game, seat, players, to_play, turn, hand,
    hand_sizes, piles, stock_count, out_of_play_count, rules, rule_set, legal_moves,
    can_undo, last_draw, is_over, ending, penalties, winners."""
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be 0-{state.players - 1}, got {seat!r}")
    mine = seat == state._to_play and not state.is_over
    drawn = state._drawn
    on_table = sum(len(h) for h in state._hands) + sum(len(p) for p in state._piles)
    penalties = state.penalties
    winners = state.winners
    return {
        "game": "kings-corner",
        "seat": seat,
        "players": state.players,
        "to_play": state._to_play,
        "turn": state._turn,
        "hand": [TEXT[c] for c in state._hands[seat]],
        "hand_sizes": [len(h) for h in state._hands],
        "piles": {n: [TEXT[c] for c in p] for n, p in zip(PILE_NAMES, state._piles, strict=True)},
        "stock_count": len(state._stock),
        "out_of_play_count": 52 - on_table - len(state._stock),
        "rules": state.rules.to_dict(),
        "rule_set": state.rules.name,
        "legal_moves": [str(m) for m in legal_moves(state)] if mine else [],
        "can_undo": mine and bool(state._undo),
        # Only the seat that drew learns which card it was.
        "last_draw": TEXT[drawn[1]] if drawn is not None and drawn[0] == seat else None,
        "is_over": state.is_over,
        "ending": state.ending,
        "penalties": None if penalties is None else list(penalties),
        "winners": None if winners is None else list(winners),
    }
