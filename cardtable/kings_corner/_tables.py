"""Precomputed card and pile tables shared by the engine modules (internal).

Inside the engine a card is its `Card.index` (0-51, suit-major: spades, hearts, diamonds,
clubs, Ace first), so legality checks are list lookups instead of attribute chains.
"""

from __future__ import annotations

from cardtable.cards import DECK, Card

CARDS: tuple[Card, ...] = DECK
TEXT: tuple[str, ...] = tuple(str(c) for c in DECK)
RANK: tuple[int, ...] = tuple(c.rank for c in DECK)
RED: tuple[bool, ...] = tuple(c.is_red for c in DECK)
KING: tuple[bool, ...] = tuple(c.rank == 13 for c in DECK)
PENALTY: tuple[int, ...] = tuple(10 if c.rank == 13 else 1 for c in DECK)

# ON[card][tail] is True when `card` builds on `tail`: one rank lower, other colour (KC-4).
ON: tuple[tuple[bool, ...], ...] = tuple(
    tuple(RANK[c] + 1 == RANK[t] and RED[c] != RED[t] for t in range(52)) for c in range(52)
)

PILE_NAMES: tuple[str, ...] = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
PILE_INDEX: dict[str, int] = {name: i for i, name in enumerate(PILE_NAMES)}
CENTRE: tuple[int, ...] = (0, 1, 2, 3)
CORNERS: tuple[int, ...] = (4, 5, 6, 7)
# Where a King dealt to the centre or drawn under draw-last goes: the first empty corner
# in the order NW, NE, SE, SW.
KING_CORNER_ORDER: tuple[int, ...] = (7, 4, 5, 6)

BY_TEXT: dict[str, int] = {t: i for i, t in enumerate(TEXT)}


def code(card: Card) -> int:
    """The engine's number for a card."""
    return card.index


def colour_word(c: int) -> str:
    return "red" if RED[c] else "black"
