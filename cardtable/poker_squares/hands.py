"""Poker hands for Poker Squares: the ten categories, classification and the point tables.

`classify` is the one function that decides which category five cards make (SPEC PS-3);
`score` turns that into points with one of the two tables (SPEC PS-4). Classification goes
through a table built once at import: every multiset of five ranks maps to its category
without a flush, and a flush upgrades it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import IntEnum
from itertools import combinations_with_replacement

from cardtable.cards import Card


class HandError(ValueError):
    """Cards that are not exactly five distinct cards."""


class Hand(IntEnum):
    """The ten categories, weakest first."""

    NOTHING = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def label(self) -> str:
        """English name: "Full house"."""
        return _LABELS[self]

    @property
    def key(self) -> str:
        """Stable lower-case identifier for JSON and translations: "full_house"."""
        return self.name.lower()


_LABELS = {
    Hand.NOTHING: "Nothing",
    Hand.ONE_PAIR: "One pair",
    Hand.TWO_PAIR: "Two pair",
    Hand.THREE_OF_A_KIND: "Three of a kind",
    Hand.STRAIGHT: "Straight",
    Hand.FLUSH: "Flush",
    Hand.FULL_HOUSE: "Full house",
    Hand.FOUR_OF_A_KIND: "Four of a kind",
    Hand.STRAIGHT_FLUSH: "Straight flush",
    Hand.ROYAL_FLUSH: "Royal flush",
}

TABLES: dict[str, dict[Hand, int]] = {
    "american": {
        Hand.ROYAL_FLUSH: 100,
        Hand.STRAIGHT_FLUSH: 75,
        Hand.FOUR_OF_A_KIND: 50,
        Hand.FULL_HOUSE: 25,
        Hand.FLUSH: 20,
        Hand.STRAIGHT: 15,
        Hand.THREE_OF_A_KIND: 10,
        Hand.TWO_PAIR: 5,
        Hand.ONE_PAIR: 2,
        Hand.NOTHING: 0,
    },
    "british": {
        Hand.ROYAL_FLUSH: 30,
        Hand.STRAIGHT_FLUSH: 30,
        Hand.FOUR_OF_A_KIND: 16,
        Hand.FULL_HOUSE: 10,
        Hand.FLUSH: 5,
        Hand.STRAIGHT: 12,
        Hand.THREE_OF_A_KIND: 6,
        Hand.TWO_PAIR: 3,
        Hand.ONE_PAIR: 1,
        Hand.NOTHING: 0,
    },
}

TARGETS: dict[str, tuple[int, int, int]] = {"american": (18, 28, 38), "british": (9, 15, 20)}
"""Target totals per table: easy, normal, hard (SPEC PS-7)."""

TARGET_LEVELS = ("easy", "normal", "hard")

_BROADWAY = (1, 10, 11, 12, 13)


def _is_straight(ranks: tuple[int, ...]) -> bool:
    """Five distinct consecutive ranks; Ace low (A-5) or high (10-A); no wrap."""
    if len(set(ranks)) != 5:
        return False
    return ranks == _BROADWAY or ranks[4] - ranks[0] == 4


def _category_without_flush(ranks: tuple[int, ...]) -> Hand:
    counts = sorted(Counter(ranks).values(), reverse=True)
    if counts[0] == 4:
        return Hand.FOUR_OF_A_KIND
    if counts[:2] == [3, 2]:
        return Hand.FULL_HOUSE
    if _is_straight(ranks):
        return Hand.STRAIGHT
    if counts[0] == 3:
        return Hand.THREE_OF_A_KIND
    if counts[:2] == [2, 2]:
        return Hand.TWO_PAIR
    if counts[0] == 2:
        return Hand.ONE_PAIR
    return Hand.NOTHING


# Every sorted multiset of five ranks with at most four of a rank.
_BY_RANKS: dict[tuple[int, ...], Hand] = {
    ranks: _category_without_flush(ranks)
    for ranks in combinations_with_replacement(range(1, 14), 5)
    if max(Counter(ranks).values()) <= 4
}


def classify_ranks(ranks: tuple[int, ...], flush: bool) -> Hand:
    """Category of five ranks (sorted ascending) that are, or are not, all of one suit.

    The fast path for search code that already knows its cards are valid.
    """
    hand = _BY_RANKS[ranks]
    if not flush:
        return hand
    if hand is Hand.STRAIGHT:
        return Hand.ROYAL_FLUSH if ranks == _BROADWAY else Hand.STRAIGHT_FLUSH
    return Hand.FLUSH


_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
# A multiset of ranks is identified by the product of its ranks' primes.
_BY_PRODUCT: dict[int, Hand] = {}
_FLUSH_BY_PRODUCT: dict[int, Hand] = {}
for _ranks in _BY_RANKS:
    _product = 1
    for _r in _ranks:
        _product *= _PRIMES[_r - 1]
    _BY_PRODUCT[_product] = classify_ranks(_ranks, False)
    if len(set(_ranks)) == 5:
        _FLUSH_BY_PRODUCT[_product] = classify_ranks(_ranks, True)
_PRIME_OF = tuple(_PRIMES[i % 13] for i in range(52))  # by card index (suit-major)


def classify(cards: Iterable[Card]) -> Hand:
    """The category of exactly five distinct cards; anything else raises `HandError`."""
    hand = tuple(cards)
    if len(hand) != 5:
        raise HandError(f"a poker hand needs exactly 5 cards, got {len(hand)}")
    for x in hand:
        if type(x) is not Card:
            raise HandError(f"not a card: {x!r}")
    a, b, c, d, e = (x.index for x in hand)
    if len({a, b, c, d, e}) != 5:
        dup = next(str(x) for x in hand if hand.count(x) > 1)
        raise HandError(f"duplicate card {dup}")
    p = _PRIME_OF
    product = p[a] * p[b] * p[c] * p[d] * p[e]
    s = a // 13
    if b // 13 == s and c // 13 == s and d // 13 == s and e // 13 == s:
        return _FLUSH_BY_PRODUCT[product]
    return _BY_PRODUCT[product]


def check_table(table: str) -> dict[Hand, int]:
    """The point table by name; an unknown name raises `ValueError` listing the known ones."""
    try:
        return TABLES[table]
    except (KeyError, TypeError):
        known = ", ".join(TABLES)
        raise ValueError(f"unknown point table {table!r} (known: {known})") from None


def score(cards: Iterable[Card], table_name: str) -> int:
    """Points for five cards under the named table ("american" or "british")."""
    points = check_table(table_name)
    return points[classify(cards)]
