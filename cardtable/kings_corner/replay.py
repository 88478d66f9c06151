"""Replay of a finished Kings Corner round, turn by turn, with the strong computer's advice
(issue 15, docs/review.md).

`replay_round(start, rounds, number)` plays the recorded moves of a match through the engine
from its first deal and returns round ``number`` as JSON-ready frames: every hand, the piles
and the stock count at the start of each turn and after each of its moves. Every hand is
public once a round is over, so the replay refuses (`RoundNotOver`) unless the engine says
that round is over after its moves: nothing is revealed about a round in progress. The
stock's order is never shown (the cards still in it were never seen), only its count.

For each turn it also asks the strong computer (`cpu.choose_move`, "strong") what it would
have played from that seat's own view at the start of the turn, plays that turn on a copy
and compares the two ends of the turn:

- ``kept``: cards left in the seat's hand when the turn ended (0 once it went out), and
  their ``penalty`` (Kings 10, other cards 1), before any draw-last draw;
- ``open_next``: how many of the next seat's cards could be played at once when its turn
  began (after its draw), i.e. what the turn left open for the next player; None when the
  turn ended the round.

The strong player is a function of the view (its generator is not used), so a replay is
reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from cardtable.kings_corner.cpu import choose_move
from cardtable.kings_corner.engine import legal_moves, play
from cardtable.kings_corner.match import Match, MatchError
from cardtable.kings_corner.moves import Move
from cardtable.kings_corner.state import State, penalty
from cardtable.kings_corner.view import view

MAX_TURN_MOVES = 200
"""A suggested turn longer than this is cut (a guard: real turns are a few moves)."""

JSON = dict[str, Any]


class RoundNotOver(ValueError):
    """The round asked for is not over (or not played yet): nothing of it may be shown."""


def frame(state: State) -> JSON:
    """Every hand, the piles and the stock count: for a round that is over only."""
    return {
        "hands": [[str(c) for c in hand] for hand in state.hands],
        "piles": {name: [str(c) for c in pile] for name, pile in state.piles.items()},
        "stock_count": len(state.stock),
        "to_play": state.to_play,
    }


def _open_for(state: State) -> int | None:
    """Cards of the seat to play that could be played at once; None when the round is over."""
    if state.is_over:
        return None
    return len({m.card for m in legal_moves(state) if m.card is not None})


def _turn_end(before_end: State, after: State) -> JSON:
    seat = before_end.to_play
    hand = before_end.hands[seat] if not before_end.is_over else after.hands[seat]
    return {"kept": len(hand), "penalty": penalty(hand), "open_next": _open_for(after)}


def suggest(start: State) -> tuple[list[str], JSON]:
    """The strong computer's turn from ``start`` (seen from the seat to play) and its end."""
    seat = start.to_play
    state = start
    moves: list[str] = []
    rng = random.Random(0)  # unused by the strong player; the interface wants one
    for _ in range(MAX_TURN_MOVES):
        move = choose_move(view(state, seat), "strong", rng)
        moves.append(str(move))
        if move.is_end:
            return moves, _turn_end(state, play(state, move))
        state = play(state, move)
        if state.is_over:
            return moves, _turn_end(state, state)
    end = Move.parse("end")
    moves.append(str(end))
    return moves, _turn_end(state, play(state, end))


def replay_round(start: Match, rounds: Sequence[Sequence[str]], number: int) -> JSON:
    """Round ``number`` (1-based) of the match begun as ``start``, whose rounds' moves are
    ``rounds`` (one list per round dealt, in order). `RoundNotOver` unless that round is over
    after its moves; `MatchError` or the engine's move errors for moves that do not replay."""
    if not 1 <= number <= start.rounds:
        raise RoundNotOver(f"the match has rounds 1-{start.rounds}, not {number}")
    if number > len(rounds):
        raise RoundNotOver(f"round {number} has not been dealt")
    match = start
    for k in range(number - 1):
        for move in rounds[k]:
            match = match.play(move)
        match = match.next_round()  # raises MatchError unless round k + 1 is over
    first = match.state
    state = first
    for move in rounds[number - 1]:
        state = play(state, move)
    if not state.is_over:
        raise RoundNotOver(f"round {number} is not over: nothing of it is shown")
    return {
        "round": number,
        "rounds": start.rounds,
        "players": start.players,
        "rules": start.rules.to_dict(),
        "turns": _turns(first, rounds[number - 1]),
        "result": {
            "penalties": list(state.penalties or ()),
            "winners": list(state.winners or ()),
            "ending": state.ending,
        },
        "final": frame(state),
    }


def _turns(first: State, moves: Sequence[str]) -> list[JSON]:
    turns: list[JSON] = []
    state = first
    i = 0
    while i < len(moves) and not state.is_over:
        start = state
        steps: list[JSON] = []
        before_end = state
        while i < len(moves):
            move = moves[i]
            i += 1
            before_end = state
            state = play(state, move)
            steps.append({"move": move, "frame": frame(state)})
            if move == "end" or state.is_over:
                break
        if steps[-1]["move"] != "end":
            before_end = state
        actual = _turn_end(before_end, state)
        suggested_moves, suggested = suggest(start)
        turns.append(
            {
                "seat": start.to_play,
                "turn": start.turn,
                "start": frame(start),
                "moves": steps,
                "actual": actual,
                "suggested": {"moves": suggested_moves, **suggested},
                "same": suggested_moves == [s["move"] for s in steps],
            }
        )
    return turns


__all__ = ["MatchError", "RoundNotOver", "replay_round", "suggest"]
