"""A position in engine numbers, and the facts about it that need no `State`.

The types (`Hand`, `Piles`, `Snapshot`), the round's outcome codes, `StateError`, reading
cards and piles from text (`card_codes`, `piles_from_names`), the building rule (KC-4,
`build_refusal`), the blocked test (KC-20, `is_blocked`) and the one position validator
(`check_position`). Every other engine module builds on these; this one imports only the card
tables and the wording of refusals (`reasons`), so the modules above it form no cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from cardtable.cards import Card

from ._tables import BY_TEXT, CENTRE, CORNERS, KING, ON, PILE_INDEX, PILE_NAMES, RANK, TEXT
from .reasons import text

Hand = tuple[int, ...]
Piles = tuple[Hand, ...]  # eight piles in PILE_NAMES order, head first
Snapshot = tuple[Hand, Piles]  # the player's hand and the piles before one in-turn action


class Refusal(TypedDict):
    """Why the rules refuse something: a stable key and its parameters (see `engine.refusal`
    and `reasons`); JSON-ready as it stands, so a view shows it unchanged."""

    key: str
    params: dict[str, str]


RUNNING, WENT_OUT, BLOCKED = 0, 1, 2


class StateError(ValueError):
    """An impossible position or a saved state that does not load; the message says why."""


def _build_key(card: int, tail: int) -> str | None:
    if ON[card][tail]:
        return None
    if RANK[tail] == 1:
        return "on_ace"
    if KING[card]:
        return "king_on_card"
    if RANK[card] + 1 != RANK[tail]:
        return "not_one_below"
    return "same_colour"


# BUILD_KEY[card][tail]: why `card` cannot go on `tail` (None when it builds on it).
BUILD_KEY: tuple[tuple[str | None, ...], ...] = tuple(
    tuple(_build_key(c, t) for t in range(52)) for c in range(52)
)


def build_refusal(card: int, tail: int) -> Refusal | None:
    """Why ``card`` cannot go on ``tail`` (KC-4), or None when it builds on it. Keys:
    ``on_ace``, ``king_on_card``, ``not_one_below``, ``same_colour``; params card, tail."""
    key = BUILD_KEY[card][tail]
    return None if key is None else {"key": key, "params": {"card": TEXT[card], "tail": TEXT[tail]}}


def is_blocked(hands: tuple[Hand, ...], piles: Piles, pile_moves: bool) -> bool:
    """True when no hand can place any card and no pile move exists (KC-20, stock aside)."""
    tails = [p[-1] for p in piles if p]
    empty_centre = any(not piles[i] for i in CENTRE)
    empty_corner = any(not piles[i] for i in CORNERS)
    for hand in hands:
        for c in hand:
            if KING[c]:
                if empty_corner:
                    return False
            elif empty_centre or any(ON[c][t] for t in tails):
                return False
    if pile_moves:
        for s in CENTRE:
            src = piles[s]
            if src:
                head = src[0]
                if KING[head]:
                    if empty_corner:
                        return False
                elif any(ON[head][t] for t in tails):
                    return False
    return True


def check_position(hands: tuple[Hand, ...], piles: Piles, stock: Hand) -> None:
    """Raise `StateError` unless every card is unique and every pile is well built."""
    seen: set[int] = set()
    for c in (*stock, *(c for h in hands for c in h), *(c for p in piles for c in p)):
        if c in seen:
            raise StateError(f"{TEXT[c]} appears twice")
        seen.add(c)
    for i, pile in enumerate(piles):
        name = PILE_NAMES[i]
        if i in CORNERS and pile and not KING[pile[0]]:
            raise StateError(f"corner {name} must start with a King, not {TEXT[pile[0]]}")
        for lower, upper in zip(pile[1:], pile, strict=False):
            refused = build_refusal(lower, upper)
            if refused:
                reason = text(refused["key"], refused["params"])
                raise StateError(f"pile {name} does not build down: {reason}")


def card_codes(cards: Any, where: str) -> list[int]:
    """Engine numbers of a list of cards (`Card` values or text such as ``"9H"``, ``"10H"``);
    `StateError` naming ``where`` for anything else."""
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence | tuple | list):
        raise StateError(f"{where} must be a list of cards, got {cards!r}")
    out = []
    for c in cards:
        if isinstance(c, Card):
            out.append(c.index)
        elif isinstance(c, str) and c.strip().upper() in BY_TEXT:
            out.append(BY_TEXT[c.strip().upper()])
        elif isinstance(c, str) and c.strip().upper().startswith("10"):
            try:
                out.append(Card.parse(c).index)
            except ValueError:
                raise StateError(f"unknown card {c!r} in {where}") from None
        else:
            raise StateError(f"unknown card {c!r} in {where}")
    return out


def piles_from_names(piles: Mapping[str, Sequence[str | Card]]) -> Piles:
    """The eight piles from ``{name: cards head first}`` (missing names are empty)."""
    if not isinstance(piles, Mapping):
        raise StateError(f"piles must map pile names to cards, got {type(piles).__name__}")
    out: list[Hand] = [()] * 8
    for name, cards in piles.items():
        if name not in PILE_INDEX:
            raise StateError(f"unknown pile {name!r} (piles are {' '.join(PILE_NAMES)})")
        out[PILE_INDEX[name]] = tuple(card_codes(cards, f"pile {name}"))
    return tuple(out)
