"""The easy player: it notices only some of its plays, chosen at random each step.

Each play is seen with probability `SEE` (a pile move with `SEE_PILE`); it plays one of the
plays it sees, at random, and ends the turn when it sees none. It always sees a play that
empties its hand (it goes out when it can), and when Kings must be placed first it places
one (ending the turn is not allowed then).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner.moves import END, Move

SEE = 0.4
SEE_PILE = 0.15


def choose(view: Mapping[str, Any], rng: random.Random) -> Move:
    legal = [Move.parse(t) for t in view["legal_moves"]]
    if END not in legal:
        return legal[rng.randrange(len(legal))]
    if len(view["hand"]) == 1:
        for m in legal:
            if m.is_play:
                return m
    seen = [
        m for m in legal if not m.is_end and rng.random() < (SEE_PILE if m.is_pile_move else SEE)
    ]
    if seen:
        return seen[rng.randrange(len(seen))]
    return END
