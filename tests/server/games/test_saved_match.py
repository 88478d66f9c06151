"""The Kings Corner table the server keeps: phases, hidden hands, the log, reproducible
computer randomness, and the server's guard against a computer player's mistake."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.kings_corner import Match, Rules, setup
from cardtable.server.games import service as games_service
from cardtable.server.games.saved_match import SavedMatch, SavedMatchError
from tests.server.helpers import Api

STANDARD = Rules.preset("standard")
DRAW_LAST = Rules.preset("draw-last")
PERSON = ("human", None)
CPU = ("computer", "easy")


def table_at(rules: Rules, seats: Any, revealed: int | None, **position: Any) -> SavedMatch:
    """A table whose current round is the explicit position (turn 1)."""
    saved = Match(len(seats), rules, 1, seed=1).to_dict()
    saved["state"] = setup(rules, **position).to_dict()
    return SavedMatch(Match.from_dict(saved), tuple(seats), revealed)


def test_one_person_always_sees_their_hand() -> None:
    t = SavedMatch.new((PERSON, CPU, CPU), STANDARD, 1, seed=5)
    assert t.revealed == 0
    while t.phase == "computer":
        t, _, _ = t.played(t.match.state.to_play, "end", computer=True)
        assert t.viewer == 0
    assert t.phase == "play" and t.viewer == 0 and t.view()["hand"]
    t, _, _ = t.played(0, "end", computer=False)
    assert t.phase == "computer" and t.viewer == 0


def test_several_people_hand_off_with_hands_hidden() -> None:
    t = table_at(
        STANDARD, (PERSON, PERSON), 0,
        piles={"N": ["9H"]}, hands=[["5S", "2C"], ["6H", "3D"]], stock=["4C", "7D"],
    )  # fmt: skip
    assert t.phase == "play" and t.viewer == 0
    t, entries, _ = t.played(0, "end", computer=False)
    assert entries == [{"seat": 0, "move": "end", "turn": 1, "round": 1}]
    assert t.phase == "handoff" and t.viewer is None
    v = t.view()
    assert v["hand"] == [] and v["legal_moves"] == [] and v["seat"] is None
    assert v["last_draw"] is None and v["hand_sizes"] == [3, 3]
    t = t.revealed_to()
    assert t.phase == "play" and t.viewer == 1 and len(t.view()["hand"]) == 3


def test_undo_drops_the_step_from_the_log() -> None:
    t = table_at(STANDARD, (PERSON, CPU), 0,
                 piles={"N": ["9H"]}, hands=[["8S", "2C"], ["6H"]], stock=[])  # fmt: skip
    played, _, _ = t.played(0, "8S>N", computer=False)
    assert played.log[-1]["move"] == "8S>N"
    back = played.undone()
    assert back.log == () and back.match.state == t.match.state


def test_a_drawn_king_going_to_a_corner_is_logged() -> None:
    hands = [["5S", "2C"], ["6H", "3D"]]
    t = table_at(DRAW_LAST, (PERSON, CPU), 0, piles={"N": ["9H"]}, hands=hands, stock=["KD", "4C"])
    t, entries, _ = t.played(0, "end", computer=False)
    assert [e["move"] for e in entries] == ["end", "draw-king NW"]
    assert t.match.state.piles["NW"] and str(t.match.state.piles["NW"][0]) == "KD"


def test_computer_randomness_is_reproducible_per_step() -> None:
    t = table_at(STANDARD, (PERSON, CPU), 0, piles={"N": ["9H"]},
                 hands=[["2C", "3C"], ["8S", "4D"]], stock=[], to_play=1)  # fmt: skip
    assert t.phase == "computer"
    again = SavedMatch.from_dict(t.to_dict())
    assert t.computer_rng().random() == again.computer_rng().random()
    stepped, _, _ = t.played(1, "8S>N", computer=True)
    assert stepped.steps == 1
    assert stepped.computer_rng().random() != t.computer_rng().random()
    ended, _, _ = stepped.played(1, "end", computer=True)
    assert ended.steps == 0 and ended.phase == "play"


def test_next_round_starts_a_fresh_log() -> None:
    t = table_at(STANDARD, (PERSON, CPU), 0,
                 piles={"N": ["9H"]}, hands=[["8S"], ["6H"]], stock=[])  # fmt: skip
    saved = t.match.to_dict()
    saved["rounds"] = 3
    t = SavedMatch(Match.from_dict(saved), t.seats, 0)
    t, _, _ = t.played(0, "8S>N", computer=False)
    assert t.phase == "round_over" and t.log
    t = t.next_round()
    assert t.log == () and t.match.round == 2 and t.phase in ("play", "computer")


@pytest.mark.parametrize(
    "saved", [None, {}, {"format": "x"}, {"format": "cardtable-server/kings-corner/1"}]
)
def test_damaged_tables_do_not_load(saved: Any) -> None:
    with pytest.raises(SavedMatchError):
        SavedMatch.from_dict(saved)


def test_a_computer_mistake_ends_its_turn(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(games_service, "choose_move", lambda v, s, r: "AS>N")
    game = api.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}])
    if game["phase"] == "play":
        game = api.kc(game, "moves", move="end")
    turn = game["view"]["turn"]
    step = api.kc(game, "computer-step")
    assert step["step"] == {"seat": 1, "move": "end"}
    assert step["view"]["turn"] == turn + 1 and step["phase"] == "play"
