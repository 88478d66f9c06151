"""The Kings Corner replay compares a turn with the strong computer's suggestion like with
like (cardtable.server.review.kings_corner.with_outcomes): both lines are played out to the
round's end the same way, with the cards that really came."""

from __future__ import annotations

import random

import pytest

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.server.review.kings_corner import play_out, with_outcomes


def round_played(match: kc.Match, first_turn: str, seed: int) -> list[str]:
    """Round 1 played to its end: the first turn at ``first_turn`` strength, every later
    turn of every seat by the strong computer."""
    rng = random.Random(seed)
    moves: list[str] = []
    for _ in range(3000):
        state = match.state
        if state.is_over:
            return moves
        strength = first_turn if "end" not in moves else "strong"
        move = choose_move(match.view(state.to_play), strength, rng)
        moves.append(str(move))
        match = match.play(move)
    raise AssertionError("the round did not end")


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_the_played_line_is_measured_as_the_round_really_went_on() -> None:
    # Seat to play first makes an easy first turn; from then on everyone plays strong, which
    # is exactly how the play-outs go on: the played line's outcome is the real result.
    checked = 0
    for seed in range(3, 30):
        start = kc.Match(2, kc.Rules.preset("standard"), 1, seed)
        moves = round_played(start, "easy", seed)
        out = with_outcomes(start, [moves], 1)
        first = out["turns"][0]
        if first["same"]:
            assert first["outcome"] is None
            continue
        seat = first["seat"]
        result = out["result"]
        assert first["outcome"]["played"] == {
            "penalty": result["penalties"][seat],
            "won": seat in result["winners"],
        }
        # The suggestion from the same start, played out the same way.
        state = start.state
        for move in first["suggested"]["moves"]:
            state = kc.play(state, move)
        final = play_out(state)
        assert final.penalties is not None and final.winners is not None
        assert first["outcome"]["suggested"] == {
            "penalty": final.penalties[seat],
            "won": seat in final.winners,
        }
        # Every later turn was the strong computer's own: nothing to compare.
        assert all(t["same"] and t["outcome"] is None for t in out["turns"][1:])
        checked += 1
        if checked == 3:
            return
    raise AssertionError(f"only {checked} rounds had an easy first turn unlike strong")
