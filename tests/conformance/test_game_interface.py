"""The conformance suite: what every registered game must satisfy (`cardtable.interface`).

Parametrised over `cardtable.registry.ENGINES` and each engine's ``example_options``, so a new
game gets every check by registering. Each test plays seeded random games through the
interface alone and checks, at the positions along the way:

- every legal move's notation round-trips, and every legal move plays;
- every other well-formed move raises `IllegalMove` and changes nothing;
- malformed text raises `MoveError`;
- saving and loading round-trips (through JSON text);
- ``replay(seed, moves)`` reproduces the state exactly;
- a seat's view is unchanged when the cards hidden from it are redrawn, and the spectator's
  view is unchanged whichever seat's hidden cards are redrawn (so it holds no hand);
- events agree with ``play`` and keep private fields from other seats;
- random games always end.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.interface import GameEngine, IllegalMove, MoveError
from cardtable.registry import ENGINES, engine

Engine = GameEngine[Any, Any]
CASES = [
    pytest.param(engine, dict(options), id=f"{name}-{i}")
    for name, engine in sorted(ENGINES.items())
    for i, options in enumerate(engine.example_options)
]
MAX_MOVES = 20_000
"""A random game longer than this counts as one that does not end."""
CHECKS_PER_GAME = 12
"""Positions of each random game that get the expensive checks (spread along the game)."""

seeds = st.integers(min_value=0, max_value=2**63 - 1)
few = settings(max_examples=6, deadline=None)

MALFORMED: list[Any] = [
    "",
    "   ",
    "??",
    "x>y",
    "\x00",
    "🂡",
    "end end",
    "z9",
    "9Z>N",
    "a" * 300,
    ">",
    "1",
    None,
    7,
    ["a1"],
]


def random_game(engine: Engine, seed: int, options: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """States and moves of one random game: ``states[i + 1] == play(states[i], moves[i])``."""
    rng = random.Random(seed)
    state = engine.new(seed, options)
    states, moves = [state], []
    while not engine.is_over(state):
        assert len(moves) < MAX_MOVES, f"a random game of {engine.name} did not end"
        move = rng.choice(engine.legal_moves(state))
        state = engine.play(state, move)
        states.append(state)
        moves.append(move)
    return states, moves


def sampled(states: list[Any]) -> Iterator[Any]:
    step = max(1, len(states) // CHECKS_PER_GAME)
    yield from states[::step]
    if (len(states) - 1) % step:
        yield states[-1]


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_legal_moves_round_trip_their_notation_and_play(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    states, _ = random_game(engine, seed, options)
    for state in sampled(states):
        legal = engine.legal_moves(state)
        assert len(set(legal)) == len(legal), "a legal move is listed twice"
        for move in legal:
            assert engine.parse_move(str(move)) == move
            after = engine.play(state, move)
            assert engine.play(state, str(move)) == after
            events_after, events = engine.play_events(state, move)
            assert events_after == after and events, "play_events agrees with play"


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_every_other_well_formed_move_is_illegal_and_changes_nothing(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    states, _ = random_game(engine, seed, options)
    for state in sampled(states):
        legal = set(engine.legal_moves(state))
        saved = engine.to_dict(state)
        space = engine.move_space(state)
        assert legal <= set(space), "every legal move is well formed"
        for move in space:
            if move in legal:
                continue
            with pytest.raises(IllegalMove) as info:
                engine.play(state, move)
            assert info.value.reason, "an illegal move says why"
        assert engine.to_dict(state) == saved
        if engine.is_over(state):
            assert legal == set() and engine.to_play(state) is None


@pytest.mark.parametrize(("engine", "options"), CASES)
@pytest.mark.parametrize("text", MALFORMED, ids=repr)
def test_malformed_text_is_a_move_error(engine: Engine, options: dict[str, Any], text: Any) -> None:
    with pytest.raises(MoveError):
        engine.parse_move(text)
    state = engine.new(1, options)
    with pytest.raises(MoveError):
        engine.play(state, text)


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_saving_round_trips_and_replay_reproduces_the_game(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    states, moves = random_game(engine, seed, options)
    for state in sampled(states):
        text = json.dumps(engine.to_dict(state))
        assert engine.from_dict(json.loads(text)) == state
    assert engine.replay(seed, moves, options) == states[-1]
    assert engine.replay(seed, [str(m) for m in moves], options) == states[-1]
    half = len(moves) // 2
    assert engine.replay(seed, moves[:half], options) == states[half]


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_views_do_not_depend_on_hidden_cards(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    states, _ = random_game(engine, seed, options)
    changed = 0
    for state in sampled(states):
        spectator = engine.view(state, None)
        for seat in range(engine.seats(state)):
            other = engine.resample(state, seat, rng)
            changed += other != state
            assert engine.view(other, seat) == engine.view(state, seat)
            assert engine.view(other, None) == spectator
    assert changed, "resample never redrew anything: the check above proved nothing"


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_views_are_json_and_only_the_seat_to_play_has_moves(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    states, _ = random_game(engine, seed, options)
    for state in sampled(states):
        to_play = engine.to_play(state)
        legal = [str(m) for m in engine.legal_moves(state)]
        spectator = engine.view(state, None)
        assert json.loads(json.dumps(spectator)) == spectator
        assert spectator.get("hand", []) == [] and spectator["legal_moves"] == []
        assert spectator["seat"] is None
        for seat in range(engine.seats(state)):
            view = engine.view(state, seat)
            assert json.loads(json.dumps(view)) == view
            assert view["seat"] == seat
            assert view["legal_moves"] == (legal if seat == to_play else [])


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_events_keep_private_fields_from_other_seats(
    engine: Engine, options: dict[str, Any], seed: int
) -> None:
    states, moves = random_game(engine, seed, options)
    kinds: set[str] = set()
    for state, move in zip(states, moves, strict=False):
        _, events = engine.play_events(state, move)
        for event in events:
            kinds.add(event.kind)
            watchers = [None, *range(engine.seats(state))]
            for seat in watchers:
                seen = event.seen_by(seat)
                assert json.loads(json.dumps(seen)) == seen
                assert seen["kind"] == event.kind
                if event.private and seat != event.owner:
                    hidden = set(event.private) - set(event.public)
                    assert not hidden & set(seen), f"{seat} sees {event.kind}'s private fields"
    assert kinds, "a whole game reported no event"


@pytest.mark.parametrize(("engine", "options"), CASES)
@few
@given(seed=seeds)
def test_undo_returns_the_same_choices(engine: Engine, options: dict[str, Any], seed: int) -> None:
    states, moves = random_game(engine, seed, options)
    with pytest.raises(IllegalMove):
        engine.undo(states[0])
    undone = 0
    for state, move in zip(states, moves, strict=False):
        try:
            back = engine.undo(engine.play(state, move))
        except IllegalMove:
            continue  # the rules keep this move (a hand-off, the end of a game)
        undone += 1
        assert engine.legal_moves(back) == engine.legal_moves(state)
        assert engine.to_play(back) == engine.to_play(state)
    assert undone, "no move of a whole game could be undone"


def test_the_registry_names_every_game_and_refuses_unknown_ones() -> None:
    assert sorted(ENGINES) == ["kings-corner", "poker-squares"]
    assert all(engine(name).name == name for name in ENGINES)
    with pytest.raises(KeyError, match="known: kings-corner, poker-squares"):
        engine("chess")
