"""The normal player: short runs, one step at a time, without planning the turn.

Each step, in this order: go out if the last card fits; place a King in an empty corner;
play a card that fits on a pile (preferring one that another card in hand can then follow,
then the highest); an obvious pile move (one that opens a centre slot or corner while it
holds a card to fill it); fill an empty centre slot (preferring a card another card in hand
builds on, then the highest); otherwise end the turn. Ties are broken at random with its
own generator.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner._tables import BY_TEXT, KING, ON, RANK
from cardtable.kings_corner.moves import END, Move


def choose(view: Mapping[str, Any], rng: random.Random) -> Move:
    legal = [Move.parse(t) for t in view["legal_moves"]]
    if END not in legal:
        return legal[rng.randrange(len(legal))]  # Kings first: any King placement
    hand = [BY_TEXT[t] for t in view["hand"]]
    piles = view["piles"]
    plays = [m for m in legal if m.is_play and m.card is not None and m.target is not None]
    if len(hand) == 1 and plays:
        return plays[0]
    kings = [m for m in plays if m.card is not None and m.card.rank == 13]
    if kings:
        return kings[rng.randrange(len(kings))]
    on_piles = [m for m in plays if m.target is not None and piles[m.target]]
    if on_piles:
        return _pick(on_piles, hand, rng)
    slots = [m for m in plays if m.target is not None and not piles[m.target]]
    if not slots:
        for m in legal:
            if m.is_pile_move and m.target is not None:
                into_corner = not piles[m.target]
                holds_card = any(not KING[c] for c in hand)
                if holds_card or (into_corner and any(KING[c] for c in hand)):
                    return m
    if slots:
        return _pick(slots, hand, rng)
    return END


def _followers(card: int, hand: list[int]) -> int:
    return sum(1 for c in hand if ON[c][card])


def _pick(ms: list[Move], hand: list[int], rng: random.Random) -> Move:
    def score(m: Move) -> tuple[int, int]:
        c = m.card.index if m.card is not None else 0
        return (min(1, _followers(c, hand)), RANK[c])

    top = max(score(m) for m in ms)
    best = [m for m in ms if score(m) == top]
    return best[rng.randrange(len(best))]
