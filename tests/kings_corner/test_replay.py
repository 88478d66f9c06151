"""Replay of a finished Kings Corner round with the strong computer's advice
(cardtable.kings_corner.replay)."""

from __future__ import annotations

import itertools
import random

import pytest

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.kings_corner.replay import RoundNotOver, replay_round, suggest


def play_round(match: kc.Match, strengths: list[str], seed: int) -> tuple[kc.Match, list[str]]:
    """The current round played to its end by computer seats; its moves."""
    rng = random.Random(seed)
    moves: list[str] = []
    for _ in range(3000):
        if match.state.is_over:
            return match, moves
        seat = match.state.to_play
        move = choose_move(match.view(seat), strengths[seat], rng)
        moves.append(str(move))
        match = match.play(move)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize(("players", "preset"), [(2, "standard"), (3, "draw-last"), (4, "simple")])
def test_a_round_replays_turn_by_turn_to_the_engines_end(players: int, preset: str) -> None:
    start = kc.Match(players, kc.Rules.preset(preset), 1, 40 + players)
    end, moves = play_round(start, ["normal", "easy", "normal", "easy"][:players], 1)
    replay = replay_round(start, [moves], 1)
    state = end.state
    assert replay["result"] == {
        "penalties": list(state.penalties or ()),
        "winners": list(state.winners or ()),
        "ending": state.ending,
    }
    assert replay["final"]["hands"] == [[str(c) for c in h] for h in state.hands]
    assert replay["final"]["stock_count"] == len(state.stock)
    turns = replay["turns"]
    assert [m["move"] for t in turns for m in t["moves"]] == moves
    assert turns[0]["start"]["hands"] == [[str(c) for c in h] for h in start.state.hands]
    for before, after in itertools.pairwise(turns):
        assert before["moves"][-1]["frame"] == after["start"]
        assert after["seat"] == (before["seat"] + 1) % players
    for t in turns:
        # The suggestion is a legal turn from the turn's start, ending the turn.
        s = kc.State.from_dict(_state_at(start, moves, t))
        for move in t["suggested"]["moves"]:
            s = kc.play(s, move)
        assert t["suggested"]["moves"][-1] == "end" or s.is_over
        assert t["actual"]["kept"] <= len(t["start"]["hands"][t["seat"]])
    # Nothing but counts of the stock: no frame lists its cards.
    assert all(set(t["start"]) == {"hands", "piles", "stock_count", "to_play"} for t in turns)


def _state_at(start: kc.Match, moves: list[str], turn: dict[str, object]) -> dict[str, object]:
    """The saved state at the start of ``turn`` (by replaying the moves before it)."""
    state = start.state
    i = 0
    while state.turn < turn["turn"]:  # type: ignore[operator]
        state = kc.play(state, moves[i])
        i += 1
    return state.to_dict()


def test_the_strong_players_own_turns_are_its_suggestions() -> None:
    start = kc.Match(2, kc.Rules.preset("standard"), 1, 7)
    _, moves = play_round(start, ["strong", "easy"], 3)
    turns = replay_round(start, [moves], 1)["turns"]
    strong_seat_turns = [t for t in turns if t["seat"] == 0]
    assert strong_seat_turns and all(t["same"] for t in strong_seat_turns)
    assert all(
        t["actual"] == {k: t["suggested"][k] for k in t["actual"]} for t in strong_seat_turns
    )


def test_a_round_in_progress_is_refused() -> None:
    start = kc.Match(2, kc.Rules.preset("standard"), 3, 9)
    end, moves = play_round(start, ["normal", "normal"], 2)
    with pytest.raises(RoundNotOver):
        replay_round(start, [moves[:-1]], 1)
    with pytest.raises(RoundNotOver):
        replay_round(start, [moves], 2)  # round 2 not dealt
    with pytest.raises(RoundNotOver):
        replay_round(start, [moves], 4)  # a 3-round match
    second = end.next_round()
    _, more = play_round(second, ["normal", "normal"], 4)
    with pytest.raises(RoundNotOver):
        replay_round(start, [moves, more[:3]], 2)
    assert replay_round(start, [moves, more], 2)["round"] == 2
    assert replay_round(start, [moves, more[:3]], 1) == replay_round(start, [moves], 1)


def test_suggest_plays_one_whole_turn() -> None:
    state = kc.deal(2, kc.Rules.preset("standard"), 5)
    moves, end = suggest(state)
    assert moves[-1] == "end"
    assert set(end) == {"kept", "penalty", "open_next"}
    assert moves == suggest(state)[0]
