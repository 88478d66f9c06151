"""The Kings Corner replay compares a turn with the strong computer's suggestion like with
like (cardtable.server.review.kings_corner.with_outcomes): both lines are played out to the
round's end the same way, with the cards that really came."""

from __future__ import annotations

import random

import pytest

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move, strong
from cardtable.server.review.kings_corner import play_out, with_outcomes


def round_played(match: kc.Match, first_turn: str, seed: int) -> list[str]:
    """Round 1 played to its end: the first turn at ``first_turn`` strength, every later
    turn of every seat by the strong computer's one-turn search (`strong.choose`), as the
    play-outs go on (issue 46: the strong level's sampled replies cost too much there)."""
    rng = random.Random(seed)
    moves: list[str] = []
    for _ in range(3000):
        state = match.state
        if state.is_over:
            return moves
        if "end" not in moves:
            move = choose_move(match.view(state.to_play), first_turn, rng)
        else:
            move = strong.choose(match.view(state.to_play))
        moves.append(str(move))
        match = match.play(move)
    raise AssertionError("the round did not end")


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_the_played_line_is_measured_as_the_round_really_went_on() -> None:
    # Seat to play first makes an easy first turn; from then on everyone plays the one-turn
    # search, which is exactly how the play-outs go on: the played line's outcome is the
    # real result.
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
        # Every later turn went on as the play-outs do: one the strong level (the look-past
        # player) would have played differently is measured as the round really went on.
        for t in out["turns"][1:]:
            if t["same"]:
                assert t["outcome"] is None
            else:
                assert t["outcome"]["played"] == {
                    "penalty": result["penalties"][t["seat"]],
                    "won": t["seat"] in result["winners"],
                }
        checked += 1
        if checked == 3:
            return
    raise AssertionError(f"only {checked} rounds had an easy first turn unlike strong")
