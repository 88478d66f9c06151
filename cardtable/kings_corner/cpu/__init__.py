"""Kings Corner computer players (SPEC KC-23, C-8): `choose_move(view, strength, rng)`.

Every player sees only a seat's `view` (never the full state): its own hand, the piles, the
hand sizes, the stock count and the turn start. Hidden cards are treated as unseen cards
spread evenly over the other hands and the stock (module `sampling`), so a player's choice
cannot depend on where they really are. A choice is a function of the view (and, for easy
and normal, the generator's state) alone: no player keeps anything between calls that could
change it, so any process given the same view chooses the same move.

- ``"easy"`` (`easy`): notices each play only with some probability; still ends turns and
  goes out when it can.
- ``"normal"`` (`normal`): short runs step by step: a last card that fits, Kings, plays on
  piles, obvious pile moves.
- ``"strong"`` (`lookahead`, on `strong`'s search and `evaluate`): searches every sequence
  of the turn and scores each end by what it keeps and what it hands the next players, the
  next seat's part measured on sampled deals of the hidden cards (its reply played on each,
  `rollout.reply`) instead of estimated; it plans from the turn start and follows the plan,
  so every call of a turn agrees. The one-turn search alone (`strong.choose`, issue 46's
  "today's strong") stays for the benchmarks and the review's play-outs.

The reference players `greedy` and `oracle` (benchmarks only) live in `reference` and are
not reachable through `choose_move`.

>>> import random
>>> from cardtable.kings_corner import Rules, deal, view
>>> s = deal(2, Rules.preset("standard"), seed=7)
>>> v = view(s, s.to_play)
>>> str(choose_move(v, "strong", random.Random(1))) in v["legal_moves"]
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner.moves import Move

from . import easy, lookahead, normal

STRENGTHS = ("easy", "normal", "strong")


def choose_move(view: Mapping[str, Any], strength: str, rng: random.Random) -> Move:
    """The next move of the seat whose ``view`` this is (it must be its turn), at
    ``strength``; always one of ``view["legal_moves"]``. Reproducible: the same view, strength
    and generator state give the same move. Raises ValueError for an unknown strength or a
    view with no legal move."""
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r} (expected one of {', '.join(STRENGTHS)})")
    if not view.get("legal_moves"):
        raise ValueError("no legal move in this view (not this seat's turn, or the round is over)")
    if strength == "easy":
        return easy.choose(view, rng)
    if strength == "normal":
        return normal.choose(view, rng)
    return lookahead.choose(view, lookahead.STRONG)


__all__ = ["STRENGTHS", "choose_move"]
