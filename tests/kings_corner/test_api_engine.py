"""`ENGINE`, one round of Kings Corner through the shared game interface (`api`). The
conformance suite (``tests/conformance/``) checks the interface's promises on random games;
these tests pin the Kings Corner specifics: options, replay, and what `resample` redeals."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.interface import GameEngine
from cardtable.kings_corner import ENGINE, Rules, RulesError, State, StateError, deal, play, view
from cardtable.kings_corner.moves import ALL, Move

from .util import DRAW_LAST, pos, run


def test_engine_is_a_game_engine() -> None:
    engine: GameEngine[State, Move] = ENGINE  # mypy checks that ENGINE implements it
    assert engine.name == "kings-corner"
    assert len(ALL) == len(set(ALL)) == 481 and ENGINE.move_space(deal(2, Rules(), 1)) == ALL


def test_options_players_and_rules() -> None:
    assert ENGINE.new(5) == deal(2, Rules.preset("standard"), 5)
    assert ENGINE.new(5, {"players": 4, "rules": "simple"}) == deal(4, Rules.preset("simple"), 5)
    custom = {"draw": "last", "pile_moves": False, "kings": "first", "dealt_kings": "corner"}
    assert ENGINE.new(5, {"players": 3, "rules": custom}).rules == Rules(**custom)  # type: ignore[arg-type]
    assert ENGINE.new(5, {"rules": {"kings": "first"}}).rules == Rules(kings="first")
    seen = set()
    for options in ENGINE.example_options:
        state = ENGINE.new(7, options)
        seen.add((state.players, state.rules.name))
        assert ENGINE.seats(state) == options["players"]
    assert {p for p, _ in seen} == {2, 3, 4}
    assert {"standard", "draw-last", "simple", "custom"} <= {n for _, n in seen}


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"players": 5}, StateError),
        ({"rules": "fast"}, RulesError),
        ({"rules": {"draw": "middle"}}, RulesError),
        ({"rules": {"colour": "red"}}, RulesError),
        ({"rules": 3}, RulesError),
        ({"seats": 2}, RulesError),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        ENGINE.new(1, options)


def test_replay_and_to_play() -> None:
    s = ENGINE.new(11, {"players": 3})
    moves: list[str] = []
    rng = random.Random(3)
    while not s.is_over and len(moves) < 60:
        m = rng.choice(ENGINE.legal_moves(s))
        moves.append(str(m))
        s = ENGINE.play(s, m)
        assert ENGINE.to_play(s) == (None if s.is_over else s.to_play)
    assert ENGINE.replay(11, moves, {"players": 3}) == s
    assert ENGINE.from_dict(json.loads(json.dumps(ENGINE.to_dict(s)))) == s


def test_resample_redeals_only_hidden_cards_and_keeps_undo_consistent() -> None:
    s = pos(
        piles={"N": ["9H"], "E": ["8C", "7D"]},
        hands=[["8S", "4C", "2D"], ["2C", "3D", "QH"], ["5C", "6D"]],
        stock=["6S", "QD", "5H", "JC", "TS"],
    )
    start_piles = s.piles
    s = run(s, "E>N", "6S>N")  # seat 0 to play, with two undo steps
    rng = random.Random(1)
    for seat in (0, 1, 2):
        changed = False
        for _ in range(20):
            other = ENGINE.resample(s, seat, rng)
            changed |= other != s
            assert view(other, seat) == view(s, seat)
            assert view(other, None) == view(s, None)
            assert other.hand_sizes == s.hand_sizes and len(other.stock) == len(s.stock)
            assert State.from_dict(other.to_dict()) == other  # the undo history still loads
            # Undo returns to the turn's start: the mover's redealt hand plus the 6S it played.
            back = ENGINE.undo(ENGINE.undo(other))
            assert [str(c) for c in back.hands[0]] == [str(c) for c in other.hands[0]] + ["6S"]
            assert back.piles == start_piles and not back.can_undo
        assert changed, seat


def test_resample_after_the_round_keeps_the_penalties() -> None:
    s = pos(DRAW_LAST, piles={"N": ["9H"]}, hands=[["8S"], ["KS", "3C", "KD"], ["5C", "4H"]],
            stock=["2S", "JD"])  # fmt: skip
    over = play(s, "8S>N")
    assert over.is_over
    rng = random.Random(2)
    changed = False
    for _ in range(30):
        other = ENGINE.resample(over, 0, rng)
        changed |= other != over
        assert other.penalties == over.penalties
        assert view(other, 0) == view(over, 0)
    assert changed
