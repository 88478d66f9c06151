"""Playing cards: the `Card` value, its two-letter notation, the deck and seeded shuffles.

A card is written rank then suit: rank `A 2 3 4 5 6 7 8 9 T J Q K` (``10`` is accepted for
``T`` when parsing), suit `S H D C`. ``str(Card.parse("TH")) == "TH"``. Ranks are numbered
1 (Ace) to 13 (King); hearts and diamonds are red, spades and clubs black (SPEC C-1).

Every shuffle takes an explicit seed (SPEC C-2), so a deal can always be replayed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "SHDC"
RANK_NAMES = {
    1: "Ace",
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "10",
    11: "Jack",
    12: "Queen",
    13: "King",
}


class CardError(ValueError):
    """Text that is not a card, or a card that cannot exist."""


class Colour(Enum):
    RED = "red"
    BLACK = "black"


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def colour(self) -> Colour:
        return Colour.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Colour.BLACK

    @property
    def title(self) -> str:
        return self.name.lower()


_SUITS_BY_CHAR = {s.value: s for s in Suit}


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the 52-card deck. Hashable, ordered by (rank, suit letter order)."""

    rank: int
    suit: Suit
    index: int = field(init=False, repr=False, compare=False, hash=False)
    """0-51: suit-major (spades, hearts, diamonds, clubs), Ace first within a suit."""

    def __post_init__(self) -> None:
        if not isinstance(self.rank, int) or not 1 <= self.rank <= 13:
            raise CardError(f"rank must be 1-13, got {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise CardError(f"suit must be a Suit, got {self.suit!r}")
        object.__setattr__(self, "index", SUIT_CHARS.index(self.suit.value) * 13 + self.rank - 1)

    @property
    def colour(self) -> Colour:
        return self.suit.colour

    @property
    def is_red(self) -> bool:
        return self.suit.colour is Colour.RED

    @property
    def name(self) -> str:
        """English name a screen reader can speak: "7 of hearts"."""
        return f"{RANK_NAMES[self.rank]} of {self.suit.title}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse "TH", "10H", "as" (case-insensitive). Raises `CardError` naming the text."""
        if not isinstance(text, str):
            raise CardError(f"not a card: {text!r}")
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise CardError(f"not a card: {text!r} (expected rank A23456789TJQK and suit SHDC)")
        return card

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 1] + self.suit.value

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: Card) -> bool:
        return (self.rank, self.index) < (other.rank, other.index)


DECK: tuple[Card, ...] = tuple(Card(r, s) for s in Suit for r in range(1, 14))
"""The 52 cards in a fixed order (suit-major), so that `DECK[card.index] is card`."""

_BY_TEXT: dict[str, Card] = {}
for _c in DECK:
    _BY_TEXT[str(_c)] = _c
    if _c.rank == 10:
        _BY_TEXT["10" + _c.suit.value] = _c


def shuffled_deck(seed: int | random.Random) -> list[Card]:
    """The 52 cards shuffled by an explicit seed (or a seeded `random.Random`)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    return deck
