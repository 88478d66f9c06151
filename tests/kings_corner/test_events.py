"""`play_events`: each event kind on an explicit position, what each seat sees of it (a drawn
card only by its drawer), and agreement with `play` (events only report, never change)."""

from __future__ import annotations

from cardtable.interface import Event
from cardtable.kings_corner import Match, play, play_events

from .util import DRAW_LAST, STANDARD, pos

FULL_BOARD = {"N": ["9H"], "E": ["9D"], "S": ["9C"], "W": ["9S"],
              "NE": ["KH"], "SE": ["KS"], "SW": ["KD"], "NW": ["KC"]}  # fmt: skip


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def test_a_play() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "2C"], ["3C"]])
    after, events = play_events(s, "8S>N")
    assert after == play(s, "8S>N")
    assert events == [Event("play", 0, {"card": "8S", "pile": "N"})]


def test_a_pile_move() -> None:
    s = pos(piles={"N": ["9H"], "E": ["8C", "7D"]}, hands=[["2C"], ["3C"]])
    after, events = play_events(s, "E>N")
    assert after == play(s, "E>N")
    assert events == [Event("pile_move", 0, {"from": "E", "to": "N"})]


def test_end_under_draw_first_the_next_seat_draws_privately() -> None:
    """KC-13: the next player's draw belongs to the start of their turn; only they see it."""
    s = pos(piles={"N": ["9H"]}, hands=[["2C"], ["3C"], ["4C"]], stock=["8S", "TD", "5H"])
    after, events = play_events(s, "end")
    assert after == play(s, "end")
    assert events == [
        Event("end_turn", 0),
        Event("turn", 1, {"turn": 2}),
        Event("draw", 1, {}, private={"card": "TD"}, owner=1),
    ]
    draw = events[2]
    assert draw.seen_by(1) == {"kind": "draw", "seat": 1, "card": "TD"}
    for watcher in (None, 0, 2):
        assert draw.seen_by(watcher) == {"kind": "draw", "seat": 1}


def test_end_under_draw_last_the_ender_draws_privately() -> None:
    """KC-14: ending the turn draws for the ender; the next turn starts without a draw."""
    s = pos(DRAW_LAST, piles={"N": ["9H"], "NW": ["KC"], "NE": ["KH"], "SE": ["KS"],
            "SW": ["KD"]}, hands=[["2C"], ["3C"]], stock=["8S", "TD"])  # fmt: skip
    after, events = play_events(s, "end")
    assert after == play(s, "end")
    assert events == [
        Event("end_turn", 0),
        Event("draw", 0, {}, private={"card": "8S"}, owner=0),
        Event("turn", 1, {"turn": 2}),
    ]
    assert "card" not in events[1].seen_by(1) and events[1].seen_by(0)["card"] == "8S"


def test_a_drawn_king_goes_to_a_corner_in_public() -> None:
    """KC-14: a King drawn under draw-last goes face up to the first empty corner."""
    s = pos(DRAW_LAST, piles={"N": ["9H"], "NW": ["KC"]}, hands=[["2C"], ["3C"]],
            stock=["KD", "5S"])  # fmt: skip
    after, events = play_events(s, "end")
    assert after == play(s, "end")
    assert events == [
        Event("end_turn", 0),
        Event("draw", 0, {"card": "KD"}, private={"card": "KD"}, owner=0),
        Event("king_to_corner", 0, {"card": "KD", "pile": "NE"}),
        Event("turn", 1, {"turn": 2}),
    ]
    assert events[1].seen_by(1) == {"kind": "draw", "seat": 0, "card": "KD"}


def test_going_out_ends_the_round() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8S"], ["KS", "3C"]], stock=[])
    after, events = play_events(s, "8S>N")
    assert after == play(s, "8S>N") and after.is_over
    assert events == [
        Event("play", 0, {"card": "8S", "pile": "N"}),
        Event("round_over", None, {"ending": "out", "winners": [0], "penalties": [0, 11]}),
    ]


def test_a_blocked_round_ends_when_the_turn_ends() -> None:
    """KC-20: checked as the next turn begins."""
    s = pos(piles=dict(FULL_BOARD, E=["5D"]), hands=[["8S", "3H"], ["5C"]], stock=[])
    s = play(s, "8S>N")
    after, events = play_events(s, "end")
    assert after == play(s, "end") and after.ending == "blocked"
    assert events == [
        Event("end_turn", 0),
        Event("turn", 1, {"turn": 2}),
        Event("round_over", None, {"ending": "blocked", "winners": [0, 1], "penalties": [1, 1]}),
    ]


def test_match_play_events() -> None:
    m = Match(2, STANDARD, rounds=1, seed=4)
    move = "end"
    after, events = m.play_events(move)
    assert after == m.play(move)
    assert kinds(events)[:2] == ["end_turn", "turn"]
