"""Move notation and errors, `from_view`, and versioned saves (KC-8 undo across a save)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from cardtable.cards import Card
from cardtable.kings_corner import (
    END,
    IllegalMove,
    Move,
    MoveError,
    State,
    StateError,
    deal,
    from_view,
    legal_moves,
    play,
    undo,
    view,
)
from cardtable.kings_corner.moves import PLACE, SHIFT

from .util import STANDARD, pos


def test_every_move_round_trips_through_its_text() -> None:
    for m in (END, *(m for row in (*PLACE, *SHIFT) for m in row)):
        assert Move.parse(str(m)) == m
        assert eval(repr(m)) == m
    assert Move.parse("9h>n") == Move.place(Card.parse("9H"), "N") == Move.place("9H", "N")
    assert Move.parse(" 10H>NW ") == Move.parse("TH>NW")
    assert Move.parse("END") is END and Move.parse("e>nw") == Move.shift("E", "NW")
    assert Move.parse("9H>N").is_play and Move.parse("E>N").is_pile_move and END.is_end


@pytest.mark.parametrize("text", ["", "9H", "9H>X", "XX>N", "N>", ">N", "9H>N>S", "pass", "1H>N"])
def test_malformed_move_is_move_error_not_illegal(text: str) -> None:
    with pytest.raises(MoveError) as e:
        Move.parse(text)
    assert not isinstance(e.value, IllegalMove)
    s = pos(piles={"N": ["9H"]}, hands=[["8S"], ["2C"]], stock=["3C", "4C"])
    with pytest.raises(MoveError):
        play(s, text)


def test_exception_classes_are_distinct() -> None:
    assert not issubclass(MoveError, IllegalMove) and not issubclass(IllegalMove, MoveError)
    assert issubclass(IllegalMove, ValueError) and issubclass(MoveError, ValueError)
    assert IllegalMove("x").reason == "x"
    with pytest.raises(MoveError):
        Move(card=Card.parse("9H"), source="N", target="E")
    with pytest.raises(MoveError):
        Move(target="Q")


def test_refusal_changes_nothing() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8D", "4C"], ["2C"]], stock=["3C", "4S"])
    before = s.to_dict()
    with pytest.raises(IllegalMove, match="8D is red like 9H"):
        play(s, "8D>N")
    assert s.to_dict() == before


def test_state_is_read_only() -> None:
    s = deal(2, STANDARD, 1)
    with pytest.raises(AttributeError):
        s.to_play = 1  # type: ignore[misc]


def test_save_round_trip_keeps_undo() -> None:
    """KC-8 across a save: the undo history of the current turn survives save and load."""
    s0 = pos(piles={"N": ["9H"], "E": ["8C", "7D"]}, hands=[["8S"], ["2C"]], stock=["6S", "QD"])
    s2 = play(play(s0, "E>N"), "6S>N")
    d = json.loads(json.dumps(s2.to_dict()))
    assert d["format"] == "kings-corner/1"
    loaded = State.from_dict(d)
    assert loaded == s2 and undo(undo(loaded)) == s0


def _bad(d: dict[str, object], **change: object) -> dict[str, object]:
    out = json.loads(json.dumps(d))
    out.update(change)
    return out


def test_load_refuses_bad_saves_with_reasons() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "3D"], ["2C"]], stock=["6S", "QD"])
    d = s.to_dict()
    cases = [
        (_bad(d, format="kings-corner/0"), "unknown save format"),
        (_bad(d, hands=[["8S", "3D"], ["2C", "8S"]]), "8S appears twice"),
        (_bad(d, hands=[["8S", "ZZ"], ["2C"]]), "unknown card 'ZZ'"),
        (_bad(d, hands=[["8S"]]), "hands must be a list of 2"),
        (_bad(d, piles={"N": ["9H", "8H"]}), "pile N does not build down"),
        (_bad(d, piles={"SE": ["9H"]}), "corner SE must start with a King"),
        (_bad(d, players=5), "players must be 2-4"),
        (_bad(d, to_play=2), "to_play must be a seat"),
        (_bad(d, ending="out"), "ending 'out' must go with an empty hand"),
        (_bad(d, ending="blocked"), "ending 'blocked'"),
        (_bad(d, undo=[{"hand": ["QD"], "piles": {}}]), "undo step 0 holds different"),
        (_bad(d, rules={"draw": "sometimes"}), "bad rules"),
        (_bad(d, extra=1), "keys differ"),
        ([], "must be an object"),
    ]
    for bad, reason in cases:
        with pytest.raises(StateError, match=reason):
            State.from_dict(bad)


def test_view_keys_are_the_contract() -> None:
    v = view(deal(3, STANDARD, 5), 0)
    assert set(v) >= {
        "game", "seat", "players", "to_play", "hand", "hand_sizes", "piles", "stock_count",
        "rules", "legal_moves", "can_undo", "is_over", "penalties", "winners", "turn",
    }  # fmt: skip
    assert list(v["piles"]) == ["N", "E", "S", "W", "NE", "SE", "SW", "NW"]
    assert json.loads(json.dumps(v)) == v
    with pytest.raises(ValueError, match="seat must be"):
        view(deal(3, STANDARD, 5), 3)


def test_module_docstring_example_runs() -> None:
    import doctest

    import cardtable.kings_corner as kc

    result = doctest.testmod(kc)
    assert result.attempted and not result.failed


def _mid_round() -> State:
    """A 3-player round a few moves in: the second seat has drawn and played."""
    s = deal(3, STANDARD, 11)
    for _ in range(6):
        moves = legal_moves(s)
        s = play(s, next((m for m in moves if not m.is_end), END))
    return s


def _finished_round() -> State:
    s = deal(2, STANDARD, 5)
    for _ in range(5000):
        if s.is_over:
            return s
        s = play(s, next((m for m in legal_moves(s) if not m.is_end), END))
    raise AssertionError("the round did not end")


@pytest.mark.parametrize(
    ("state", "who"),
    [
        (_mid_round, "to play, with the card it drew"),
        (_mid_round, "waiting"),
        (_finished_round, "at the end"),
    ],
)
def test_from_view_rebuilds_the_state_the_view_shows(state: Callable[[], State], who: str) -> None:
    s = state()
    seat = (s.to_play + 1) % s.players if who == "waiting" else s.to_play
    v = view(s, seat)
    # Other hands as Card values for one seat and as text for the other; the stock as text.
    a, *b = (i for i in range(s.players) if i != seat)
    others = {a: list(s.hands[a]), **{i: [str(c) for c in s.hands[i]] for i in b}}
    rebuilt = from_view(v, others, [str(c) for c in s.stock])
    start = {"piles": v["piles"], **({"hand": v["hand"]} if "hand" in v["turn_start"] else {})}
    assert view(rebuilt, seat) == dict(v, can_undo=False, turn_start=start)
    assert rebuilt.hands == s.hands and rebuilt.stock == s.stock


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("short-hand", "cards, the view says"),
        ("short-stock", "stock has"),
        ("not-a-view", "not a Kings Corner view"),
        ("not-cards", "must be a list of cards"),
    ],
)
def test_from_view_refuses_what_does_not_match_the_view(change: str, message: str) -> None:
    s = _mid_round()
    seat = s.to_play
    v = view(s, seat)
    others = {i: list(s.hands[i]) for i in range(3) if i != seat}
    stock: list[object] = list(s.stock)
    if change == "short-hand":
        other = next(iter(others))
        others[other] = others[other][1:]
    elif change == "short-stock":
        stock = stock[1:]
    elif change == "not-a-view":
        v = {k: x for k, x in v.items() if k != "hand_sizes"}
    else:
        other = next(iter(others))
        others[other] = "not a list"  # type: ignore[assignment]
    with pytest.raises(StateError, match=message):
        from_view(v, others, stock)  # type: ignore[arg-type]
