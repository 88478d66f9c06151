"""Properties of whole random games under random rules and 2-4 players (hypothesis).

A random player mostly plays (it ends its turn with small probability when it could play)
and sometimes undoes, so every game must end within a generous bound: pile moves only
merge piles (or move a King-headed pile into a corner for good), hands only shrink between
draws, and the stock only shrinks.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.kings_corner import (
    IllegalMove,
    Move,
    Rules,
    State,
    deal,
    from_view,
    legal_moves,
    play,
    undo,
    view,
)
from cardtable.kings_corner.deal import redeal_hidden
from cardtable.kings_corner.engine import is_blocked
from cardtable.kings_corner.moves import PLACE, SHIFT

ALL_MOVES: list[Move] = [Move.end(), *(m for row in (*PLACE, *SHIFT) for m in row)]
MAX_STEPS = 3000

rules_st = st.builds(
    Rules,
    draw=st.sampled_from(["first", "last"]),
    pile_moves=st.booleans(),
    kings=st.sampled_from(["optional", "first"]),
    dealt_kings=st.sampled_from(["stay", "corner"]),
)


def choose(state: State, rng: random.Random, end_chance: float = 0.1) -> Move:
    ms = legal_moves(state)
    plays = [m for m in ms if not m.is_end]
    if plays and (len(plays) == len(ms) or rng.random() >= end_chance):
        return rng.choice(plays)
    return Move.end()


def check_invariants(s: State, rng: random.Random) -> None:
    codes = [c for h in s._hands for c in h] + [c for p in s._piles for c in p]
    codes += list(s._stock)
    assert sorted(codes) == list(range(52)), "the 52 cards are all accounted for"
    if not s.is_over:
        assert legal_moves(s), "a running round always has a legal move"
    assert State.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    # KC-20's detector agrees with legal_moves: blocked iff no seat has a non-end move.
    free = Rules(pile_moves=s.rules.pile_moves)
    anyone = any(
        not m.is_end
        for i in range(s.players)
        for m in legal_moves(State(free, s.players, i, 1, s._hands, s._piles, ()))
    )
    assert is_blocked(s._hands, s._piles, s.rules.pile_moves) == (not anyone)
    seat = rng.randrange(s.players)
    v = view(s, seat)
    # Once over, the penalties are public: redeal_hidden then keeps Kings where Kings were.
    assert view(redeal_hidden(s, seat, rng), seat) == v, "hidden cards do not show"
    assert view(redeal_hidden(s, seat, rng), None) == view(s, None)
    others = {i: s.hands[i] for i in range(s.players) if i != seat}
    rebuilt = from_view(v, others, s.stock)
    # from_view has no undo history: its turn starts where the view stands.
    start = {"piles": v["piles"], **({"hand": v["hand"]} if "hand" in v["turn_start"] else {})}
    assert view(rebuilt, seat) == dict(v, can_undo=False, turn_start=start)


@pytest.mark.untraced
@given(
    rules=rules_st,
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    pseed=st.integers(),
    end_chance=st.sampled_from([0.05, 0.3, 0.6]),
)
def test_random_games(rules: Rules, players: int, seed: int, pseed: int, end_chance: float) -> None:
    """Invariants on every step of random games; undo restores the turn start exactly;
    every game ends."""
    rng = random.Random(pseed)
    s = deal(players, rules, seed)
    turn_start = s
    for _ in range(MAX_STEPS):
        check_invariants(s, rng)
        if s.is_over:
            break
        if s.can_undo and rng.random() < 0.05:
            s = undo(s)
            continue
        move = choose(s, rng, end_chance)
        if move.is_end:
            back = s
            while back.can_undo:
                back = undo(back)
            assert back == turn_start, "undo back to the start of a turn restores it"
        s = play(s, move)
        if move.is_end:
            turn_start = s
    assert s.is_over, "random play that prefers playing ends the round"
    assert s.winners and s.penalties is not None
    assert all(s.penalties[w] == min(s.penalties) for w in s.winners)


@pytest.mark.untraced
@given(rules=rules_st, players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_legal_moves_are_exactly_the_accepted_moves(rules: Rules, players: int, seed: int) -> None:
    """Along a random game, `legal_moves` equals the set of well-formed moves `play`
    accepts; refusals leave the state unchanged and carry a reason."""
    rng = random.Random(seed)
    s = deal(players, rules, seed)
    steps = 0
    while not s.is_over and steps < 60:
        legal = set(legal_moves(s))
        snapshot = s.to_dict()
        for m in ALL_MOVES:
            try:
                play(s, m)
                accepted = True
            except IllegalMove as e:
                assert e.reason
                accepted = False
            assert accepted == (m in legal), m
        assert s.to_dict() == snapshot
        s = play(s, choose(s, rng))
        steps += 1
