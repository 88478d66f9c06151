"""A compact position for the computer players' search: move generation and application.

A position here is one player's hand (a sorted tuple of engine card numbers) and the eight
piles (``_tables.PILE_NAMES`` order, head first), with the rules' two in-turn options. Moves
are the engine's move codes (``moves.END_CODE``, ``PLACE_BASE + card * 8 + pile``,
``SHIFT_BASE + source * 8 + target``). `moves` lists exactly what `engine.legal_moves` lists
for the same position, in the same order; the tests check that on many random positions.
"""

from __future__ import annotations

from cardtable.kings_corner._tables import CENTRE, CORNERS, KING, ON, RANK, RED
from cardtable.kings_corner.moves import END_CODE, PLACE_BASE, SHIFT_BASE
from cardtable.kings_corner.state import Hand, Piles

Pos = tuple[Hand, Piles]

# ACCEPTS[t]: the (at most two) cards that build on tail t (one rank lower, other colour).
ACCEPTS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(52) if RANK[c] + 1 == RANK[t] and RED[c] != RED[t]) for t in range(52)
)


def moves(hand: Hand, piles: Piles, pile_moves: bool, kings_first: bool) -> list[int]:
    """Legal move codes in engine order (see `engine.legal_moves`), "end" last."""
    empty_corners = [i for i in CORNERS if not piles[i]]
    if empty_corners and kings_first:
        kings = [c for c in hand if KING[c]]
        if kings:
            return [PLACE_BASE + k * 8 + i for k in kings for i in empty_corners]
    tails = [(i, p[-1]) for i, p in enumerate(piles) if p]
    empty_centre = [i for i in CENTRE if not piles[i]]
    out: list[int] = []
    add = out.append
    for c in hand:
        base = PLACE_BASE + c * 8
        if KING[c]:
            for i in empty_corners:
                add(base + i)
        else:
            on = ON[c]
            for i, t in tails:
                if on[t]:
                    add(base + i)
            for i in empty_centre:
                add(base + i)
    if pile_moves:
        for s in CENTRE:
            src = piles[s]
            if not src:
                continue
            head = src[0]
            base = SHIFT_BASE + s * 8
            if KING[head]:
                for i in empty_corners:
                    add(base + i)
            else:
                on = ON[head]
                for i, t in tails:
                    if on[t]:
                        add(base + i)
    add(END_CODE)
    return out


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


_CLASSES: dict[Hand, Hand] = {}


def _classes(cards: Hand) -> Hand:
    got = _CLASSES.get(cards)
    if got is None:
        if len(_CLASSES) > 50_000:
            _CLASSES.clear()
        got = _CLASSES[cards] = tuple(CLASS[c] for c in cards)
    return got


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


def kings_due(hand: Hand, piles: Piles) -> bool:
    return any(KING[c] for c in hand) and any(not piles[i] for i in CORNERS)
