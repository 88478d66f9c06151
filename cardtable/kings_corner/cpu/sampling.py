"""What a seat cannot see, from its view alone: the unseen cards and random deals of them.

The unseen cards are every card in neither the seat's hand nor a pile: the other hands,
the stock and any cards out of play. A sample deals them, uniformly at random, into the
other hands (at the sizes the view shows), the stock (at its count) and the rest out of
play, so the resulting `State` agrees with everything the view shows (SPEC C-8, DESIGN).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner._tables import BY_TEXT, TEXT
from cardtable.kings_corner.deal import from_view
from cardtable.kings_corner.state import State


def hand_codes(view: Mapping[str, Any]) -> tuple[int, ...]:
    return tuple(sorted(BY_TEXT[t] for t in view["hand"]))


def pile_codes(view: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    from cardtable.kings_corner._tables import PILE_NAMES

    return tuple(tuple(BY_TEXT[t] for t in view["piles"][n]) for n in PILE_NAMES)


def unseen_cards(view: Mapping[str, Any]) -> tuple[int, ...]:
    """Engine numbers of the cards this seat cannot see, ascending (independent of where
    they really are)."""
    seen = set(BY_TEXT[t] for t in view["hand"])
    for cards in view["piles"].values():
        seen.update(BY_TEXT[t] for t in cards)
    return tuple(c for c in range(52) if c not in seen)


def sample_hidden(
    view: Mapping[str, Any], rng: random.Random
) -> tuple[dict[int, list[str]], list[str]]:
    """One random deal of the unseen cards consistent with ``view``: (other hands, stock)."""
    cards = list(unseen_cards(view))
    rng.shuffle(cards)
    seat = int(view["seat"])
    others: dict[int, list[str]] = {}
    pos = 0
    for i, n in enumerate(view["hand_sizes"]):
        if i == seat:
            continue
        others[i] = [TEXT[c] for c in cards[pos : pos + n]]
        pos += n
    stock = [TEXT[c] for c in cards[pos : pos + int(view["stock_count"])]]
    return others, stock


def sample_state(view: Mapping[str, Any], rng: random.Random) -> State:
    """A full `State` consistent with ``view`` (see `deal.from_view`), hidden cards random."""
    others, stock = sample_hidden(view, rng)
    return from_view(view, others, stock)
