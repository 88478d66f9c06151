"""A compact position for the computer players' search: applying a move, and telling
positions apart.

A position here is one player's hand (a sorted tuple of engine card numbers) and the eight
piles (``PILE_NAMES`` order, head first). Moves are the engine's move codes, listed by the
engine's own generator (`engine.move_codes`, the one that also lists `legal_moves`);
`apply` plays one on the tuples without the checks `engine.play` makes (the code comes from
that generator), and the tests check it against `engine.play`.
"""

from __future__ import annotations

from functools import lru_cache

from cardtable.kings_corner._tables import ON, RANK, RED
from cardtable.kings_corner.moves import PLACE_BASE, SHIFT_BASE
from cardtable.kings_corner.position import Hand, Piles

Pos = tuple[Hand, Piles]

# ACCEPTS[t]: the (at most two) cards that build on tail t (the engine's ON table, by tail).
ACCEPTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(52) if ON[c][t]) for t in range(52)
)


def apply(hand: Hand, piles: Piles, code: int) -> Pos:
    """The position after an in-turn play or pile move (``code`` must be legal, not "end")."""
    if code < SHIFT_BASE:
        card, pile = divmod(code - PLACE_BASE, 8)
        i = hand.index(card)
        new_hand = hand[:i] + hand[i + 1 :]
        return new_hand, (*piles[:pile], (*piles[pile], card), *piles[pile + 1 :])
    source, target = divmod(code - SHIFT_BASE, 8)
    lst = list(piles)
    lst[target] = piles[target] + piles[source]
    lst[source] = ()
    return hand, tuple(lst)


# Suits never matter in Kings Corner, only rank and colour: 7S and 7C are the same card to
# the rules. CLASS[c] numbers the 26 (rank, colour) classes.
CLASS: tuple[int, ...] = tuple(RANK[c] * 2 + RED[c] for c in range(52))


@lru_cache(maxsize=65536)
def _classes(cards: Hand) -> Hand:
    return tuple(CLASS[c] for c in cards)


def canonical(hand: Hand, piles: Piles) -> tuple[Hand, tuple[Hand, ...], tuple[Hand, ...]]:
    """A key equal for positions the rules cannot tell apart: the four centre piles are
    interchangeable, so are the four corners, and so are two cards of one rank and colour
    (7S and 7C). Our own cards only: the unseen cards are spread evenly over all places."""
    cl = _classes
    return (
        tuple(sorted(cl(hand))),
        tuple(sorted((cl(piles[0]), cl(piles[1]), cl(piles[2]), cl(piles[3])))),
        tuple(sorted((cl(piles[4]), cl(piles[5]), cl(piles[6]), cl(piles[7])))),
    )
