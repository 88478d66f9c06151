"""Reference players for benchmarks only (never reachable from the server): `greedy` and
`oracle`.

- `greedy(view)`: each step, a King into an empty corner if it holds one; else the highest
  card that fits anywhere (on a real pile if it can, else an empty centre slot); else the
  first pile move; else it ends the turn. Deterministic.
- `oracle(state)`: the strong search, but it sees every hand and the stock's order; the gap
  between it and `strong` is what the hidden cards cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner.moves import END, Move
from cardtable.kings_corner.state import State

from .strong import choose_oracle


def greedy(view: Mapping[str, Any]) -> Move:
    legal = [Move.parse(t) for t in view["legal_moves"]]
    piles = view["piles"]
    best: Move | None = None
    best_rank = -1
    best_real = False
    for m in legal:
        if not m.is_play or m.card is None or m.target is None:
            continue
        if m.card.rank == 13:
            return m  # only ever legal into an empty corner
        real = bool(piles[m.target])
        if m.card.rank > best_rank or (m.card.rank == best_rank and real and not best_real):
            best, best_rank, best_real = m, m.card.rank, real
    if best is not None:
        return best
    for m in legal:
        if m.is_pile_move:
            return m
    return END


def oracle(state: State) -> Move:
    return choose_oracle(state)
