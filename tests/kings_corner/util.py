"""Small helpers shared by the Kings Corner tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cardtable.kings_corner import IllegalMove, Rules, State, legal_moves, play, setup

STANDARD = Rules.preset("standard")
DRAW_LAST = Rules.preset("draw-last")
SIMPLE = Rules.preset("simple")
# Standard but drawing nothing at setup, so hands are exactly as written.
NO_DRAW: list[str] = []


def pos(
    rules: Rules = STANDARD,
    *,
    piles: Mapping[str, Sequence[str]] | None = None,
    hands: Sequence[Sequence[str]],
    stock: Sequence[str] = (),
    to_play: int = 0,
) -> State:
    return setup(
        rules,
        piles={k: list(v) for k, v in (piles or {}).items()},
        hands=[list(h) for h in hands],
        stock=list(stock),
        to_play=to_play,
    )


def moves(state: State) -> set[str]:
    return {str(m) for m in legal_moves(state)}


def refusal(state: State, move: str) -> str:
    """The reason `play` gives for refusing ``move``; fails if it is accepted."""
    try:
        play(state, move)
    except IllegalMove as e:
        return e.reason
    raise AssertionError(f"{move} was accepted")


def hand(state: State, seat: int) -> list[str]:
    return [str(c) for c in state.hands[seat]]


def pile(state: State, name: str) -> list[str]:
    return [str(c) for c in state.piles[name]]


def run(state: State, *ms: str) -> State:
    for m in ms:
        state = play(state, m)
    return state
