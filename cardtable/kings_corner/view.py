"""`view(state, seat)`: the one door out of the engine, with what one seat may see (C-8).

The seat's own hand, every pile, the stock as a count, every hand as a size, the legal
moves when it is that seat's turn. Never another hand's cards or the stock's order.
``seat=None`` is a spectator: the same keys, no hand, no moves, no draw.

Beside the position the view carries what the engine derives from it, so a page or a
computer player never re-implements a rule:

- ``accepts``: per pile, what it takes now: ``{"what": "build", "rank": "8", "colour":
  "black"}`` (a card of that rank and colour), ``{"what": "king"}`` (an empty corner),
  ``{"what": "any_but_king"}`` (an empty centre pile), ``{"what": "nothing"}`` (an Ace).
- ``refusals`` (only for the seat to play, else ``{}``): ``{"cards": {card: {pile:
  {"key", "params"}}}, "piles": {source: {target: {"key", "params"}}}}``: why each hand
  card may not go on each pile where it is refused, and why each non-empty centre pile may
  not move onto each target where it is refused (``piles`` is empty with pile moves off).
  They come from `engine.refusal`, the function `play` refuses moves with; the keys are
  listed in `reasons`.
- ``turn_start``: ``{"piles": ...}``, the board when the current turn began (after its
  draw), plus ``"hand"`` (its hand then) for the seat to play. From the undo history: its
  first snapshot is the turn's start; with none, the turn has not moved yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cardtable.cards import RANK_CHARS

from ._tables import CENTRE, PILE_NAMES, RANK, RED, TEXT
from .engine import kings_due, legal_moves, place_refusal, shift_refusal
from .position import Hand, Piles, Refusal
from .state import State

JSON = dict[str, Any]


def view(state: State, seat: int | None) -> JSON:
    """JSON-ready dict for ``seat`` (None: a spectator). Keys: game, seat, players, to_play,
    turn, hand, hand_sizes, piles, stock_count, out_of_play_count, rules, rule_set,
    legal_moves, can_undo, last_draw, is_over, ending, penalties, winners, accepts,
    refusals, turn_start."""
    if seat is not None and (
        not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.players
    ):
        raise ValueError(f"seat must be 0-{state.players - 1} or None, got {seat!r}")
    mine = seat == state._to_play and not state.is_over
    drawn = state._drawn
    piles = state._piles
    on_table = sum(len(h) for h in state._hands) + sum(len(p) for p in piles)
    penalties = state.penalties
    winners = state.winners
    start_hand, start_piles = state._undo[0] if state._undo else (None, piles)
    turn_start: JSON = {"piles": _piles(start_piles)}
    if mine:
        turn_start["hand"] = _cards(
            state._hands[state._to_play] if start_hand is None else start_hand
        )
    return {
        "game": "kings-corner",
        "seat": seat,
        "players": state.players,
        "to_play": state._to_play,
        "turn": state._turn,
        "hand": [] if seat is None else _cards(state._hands[seat]),
        "hand_sizes": [len(h) for h in state._hands],
        "piles": _piles(piles),
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
        "accepts": accepts(piles),
        "refusals": refusals(state) if mine else {},
        "turn_start": turn_start,
    }


def accepts(piles: Piles) -> dict[str, JSON]:
    """What each pile takes now (see the module docstring)."""
    out: dict[str, JSON] = {}
    for i, pile in enumerate(piles):
        if pile:
            tail = pile[-1]
            rank = RANK[tail]
            if rank == 1:
                out[PILE_NAMES[i]] = {"what": "nothing"}
            else:
                colour = "black" if RED[tail] else "red"
                out[PILE_NAMES[i]] = {
                    "what": "build",
                    "rank": RANK_CHARS[rank - 2],
                    "colour": colour,
                }
        else:
            out[PILE_NAMES[i]] = {"what": "any_but_king" if i in CENTRE else "king"}
    return out


def refusals(state: State) -> JSON:
    """Why each hand card and each non-empty centre pile is refused where it is (for the
    seat to play; see the module docstring)."""
    rules = state._rules
    hand = state._hands[state._to_play]
    piles = state._piles
    due = kings_due(rules, hand, piles)
    cards = {
        TEXT[card]: _refused(
            place_refusal(hand, piles, card, p, due) for p in range(len(PILE_NAMES))
        )
        for card in hand
    }
    moves = {
        PILE_NAMES[s]: _refused(
            shift_refusal(piles, s, t, True, due) for t in range(len(PILE_NAMES))
        )
        for s in (CENTRE if rules.pile_moves else ())
        if piles[s]
    }
    return {
        "cards": {k: r for k, r in cards.items() if r},
        "piles": {k: r for k, r in moves.items() if r},
    }


def _refused(per_pile: Iterable[Refusal | None]) -> dict[str, Refusal]:
    """The refusals of one card or pile, by target pile name (the piles that accept it left out)."""
    return {name: r for name, r in zip(PILE_NAMES, per_pile, strict=True) if r is not None}


def _cards(cards: Hand) -> list[str]:
    return [TEXT[c] for c in cards]


def _piles(piles: Piles) -> dict[str, list[str]]:
    return {n: [TEXT[c] for c in p] for n, p in zip(PILE_NAMES, piles, strict=True)}
