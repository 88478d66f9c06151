"""What a seat can and cannot see, from its view alone (SPEC C-8): its hand and the piles
as engine numbers, the position when its turn began, and the unseen cards.

The unseen cards are every card in neither the seat's hand nor a pile: the other hands,
the stock and any cards out of play. Which of them is where the view does not say, so the
players treat each as equally likely to be in any hidden place (see `evaluate.model_for`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner._tables import BY_TEXT, PILE_NAMES
from cardtable.kings_corner.position import Hand, Piles


def hand_codes(view: Mapping[str, Any]) -> Hand:
    """The seat's hand, sorted engine numbers."""
    return tuple(sorted(BY_TEXT[t] for t in view["hand"]))


def pile_codes(view: Mapping[str, Any]) -> Piles:
    """The eight piles in engine order, head first."""
    return _piles(view["piles"])


def turn_start_codes(view: Mapping[str, Any]) -> tuple[Hand, Piles] | None:
    """Our hand (sorted) and the piles when the current turn began, after its draw (the
    view's ``turn_start``), or None when the view does not carry them."""
    start = view.get("turn_start")
    if not start or start.get("hand") is None:
        return None
    return tuple(sorted(BY_TEXT[t] for t in start["hand"])), _piles(start["piles"])


def _piles(piles: Mapping[str, Any]) -> Piles:
    return tuple(tuple(BY_TEXT[t] for t in piles[n]) for n in PILE_NAMES)


def unseen_cards(view: Mapping[str, Any]) -> tuple[int, ...]:
    """Engine numbers of the cards this seat cannot see, ascending (independent of where
    they really are)."""
    seen = set(BY_TEXT[t] for t in view["hand"])
    for cards in view["piles"].values():
        seen.update(BY_TEXT[t] for t in cards)
    return tuple(c for c in range(52) if c not in seen)
