"""Every refusal key (module `reasons`) on an explicit position: `play` (or `undo`) raises
`IllegalMove` with that key, its params and the sentence `reasons.text` gives, and the
mover's view names the same key for the same card or pile (one function decides both)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.interface import IllegalMove as SharedIllegalMove
from cardtable.interface import MoveError as SharedMoveError
from cardtable.kings_corner import IllegalMove, MoveError, Rules, State, play, refusal, undo, view
from cardtable.kings_corner.reasons import KEYS, text

from .util import STANDARD, pos, run

KINGS_FIRST = Rules(kings="first")
NO_PILES = Rules(pile_moves=False)
BOARD = {"N": ["9H"], "E": ["AD"], "W": ["9C"], "NE": ["KS"]}  # S, SE, SW, NW empty


def base(rules: Rules = STANDARD) -> State:
    """Seat 0 holds 8S 8D 7S KH QS 2S; pile S and three corners are empty."""
    return pos(rules, piles=BOARD, hands=[["8S", "8D", "7S", "KH", "QS", "2S"], ["2C"]])


def with_piles(rules: Rules = STANDARD) -> State:
    """Centre piles with several cards for pile moves: N 9H, E 8D, W 9C 8H; S empty."""
    return pos(
        rules, piles={"N": ["9H"], "E": ["8D"], "W": ["9C", "8H"], "NE": ["KS", "QH"]},
        hands=[["3C", "4D"], ["2C"]],
    )  # fmt: skip


CASES: list[tuple[str, Any, str, str, dict[str, str], str]] = [
    # (id, position, move, key, params, sentence)
    ("not_in_hand", base, "8C>N", "not_in_hand", {"card": "8C"}, "8C is not in your hand"),
    ("on_ace", base, "2S>E", "on_ace", {"card": "2S", "tail": "AD"}, "nothing goes on an Ace (AD)"),
    ("king_on_card", base, "KH>N", "king_on_card", {"card": "KH", "tail": "9H"},
     "a King only starts an empty corner, it cannot go on 9H"),
    ("not_one_below", base, "7S>N", "not_one_below", {"card": "7S", "tail": "9H"},
     "7S is not one rank below 9H"),
    ("same_colour", base, "8D>N", "same_colour", {"card": "8D", "tail": "9H"},
     "8D is red like 9H"),
    ("king_to_centre", base, "KH>S", "king_to_centre", {"card": "KH"},
     "a King cannot go to an empty centre pile"),
    ("corner_needs_king", base, "QS>SE", "corner_needs_king", {"card": "QS"},
     "only a King can start an empty corner, not QS"),
    ("kings_first", lambda: base(KINGS_FIRST), "8S>N", "kings_first", {},
     "kings first: a held King must go to an empty corner before anything else"),
    ("kings_first_end", lambda: base(KINGS_FIRST), "end", "kings_first", {},
     "kings first: a held King must go to an empty corner before anything else"),
    ("pile_moves_off", lambda: with_piles(NO_PILES), "E>N", "pile_moves_off", {},
     "pile moves are off in these rules"),
    ("corner_never_moves", with_piles, "NE>N", "corner_never_moves", {"pile": "NE"},
     "a corner pile never moves (NE is a corner)"),
    ("empty_source", with_piles, "S>N", "empty_source", {"pile": "S"}, "pile S is empty"),
    ("onto_itself", with_piles, "N>N", "onto_itself", {"pile": "N"},
     "a pile cannot move onto itself"),
    ("pile_to_empty_centre", with_piles, "E>S", "pile_to_empty_centre", {"pile": "E"},
     "a pile never moves into an empty centre pile"),
    ("pile_corner_needs_king", with_piles, "E>SE", "pile_corner_needs_king",
     {"pile": "E", "card": "8D"},
     "only a pile headed by a King can move to an empty corner (E starts with 8D)"),
    ("pile_same_colour", with_piles, "E>N", "same_colour",
     {"card": "8D", "tail": "9H", "pile": "E"}, "E starts with 8D: 8D is red like 9H"),
    ("pile_not_one_below", with_piles, "W>E", "not_one_below",
     {"card": "9C", "tail": "8D", "pile": "W"}, "W starts with 9C: 9C is not one rank below 8D"),
]  # fmt: skip


@pytest.mark.parametrize(("position", "move", "key", "params", "sentence"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])  # fmt: skip
def test_each_refusal_has_its_key_params_and_sentence(
    position: Any, move: str, key: str, params: dict[str, str], sentence: str
) -> None:
    s = position()
    with pytest.raises(IllegalMove) as info:
        play(s, move)
    e = info.value
    assert (e.key, e.params, e.reason) == (key, params, sentence)
    assert text(key, params) == sentence and key in KEYS
    assert refusal(s, move) == {"key": key, "params": params}


def test_build_keys_on_exact_cards() -> None:
    """The four build keys (KC-4) with the sentences players see."""
    s = pos(piles={"N": ["9H"], "E": ["AD"], "W": ["TC"]}, hands=[["8D", "7S", "KS", "9S"], ["2C"]])
    cases = {
        "8D>N": ("same_colour", "8D is red like 9H"),
        "9S>W": ("same_colour", "9S is black like TC"),
        "7S>N": ("not_one_below", "7S is not one rank below 9H"),
        "KS>E": ("on_ace", "nothing goes on an Ace (AD)"),
        "KS>N": ("king_on_card", "a King only starts an empty corner, it cannot go on 9H"),
    }
    for move, (key, sentence) in cases.items():
        with pytest.raises(IllegalMove) as info:
            play(s, move)
        assert (info.value.key, info.value.reason) == (key, sentence), move


def test_round_over_and_nothing_to_undo() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "4D"], ["2C"]], stock=[])
    with pytest.raises(IllegalMove) as info:
        undo(s)
    assert (info.value.key, info.value.params) == ("nothing_to_undo", {})
    assert info.value.reason == "nothing to undo in this turn"
    over = run(s, "8S>N", "4D>S")
    assert over.is_over
    for move in ("end", "2C>N", "undo"):
        with pytest.raises(IllegalMove) as info:
            undo(over) if move == "undo" else play(over, move)
        assert (info.value.key, info.value.params) == ("round_over", {})
        assert info.value.reason == "the round is over"


def test_every_key_is_tested_here() -> None:
    tested = {c[3] for c in CASES} | {"round_over", "nothing_to_undo"}
    assert tested == KEYS


def test_the_view_names_the_same_refusals() -> None:
    """The mover's `refusals` carry, for each card and pile, what `play` raises."""
    for s in (base(), base(KINGS_FIRST), with_piles(), with_piles(NO_PILES)):
        v = view(s, 0)
        for card in v["hand"]:
            for pile in v["piles"]:
                got = v["refusals"]["cards"].get(card, {}).get(pile)
                _check(s, f"{card}>{pile}", got, v)
        if not s.rules.pile_moves:
            assert v["refusals"]["piles"] == {}
            continue
        for source in ("N", "E", "S", "W"):
            if not v["piles"][source]:
                assert source not in v["refusals"]["piles"]
                continue
            for target in v["piles"]:
                got = v["refusals"]["piles"].get(source, {}).get(target)
                _check(s, f"{source}>{target}", got, v)


def _check(s: State, move: str, got: dict[str, Any] | None, v: dict[str, Any]) -> None:
    if got is None:
        assert move in v["legal_moves"], move
        play(s, move)
        return
    assert move not in v["legal_moves"], move
    with pytest.raises(IllegalMove) as info:
        play(s, move)
    assert got == {"key": info.value.key, "params": info.value.params}, move


def test_kings_first_refuses_every_card_with_its_key() -> None:
    """When kings-first forces a King, every other placement says so (KC-15)."""
    v = view(base(KINGS_FIRST), 0)
    refused = v["refusals"]["cards"]
    assert set(refused) == set(v["hand"])
    for card, row in refused.items():
        assert all(r == {"key": "kings_first", "params": {}} for r in row.values()), card
    assert set(refused["KH"]) == {"N", "E", "S", "W", "NE"}  # the empty corners are legal
    assert all(r["key"] == "kings_first" for row in v["refusals"]["piles"].values()
               for r in row.values())  # fmt: skip


def test_errors_are_the_shared_ones() -> None:
    """One MoveError and one IllegalMove for every game (`cardtable.interface`)."""
    assert IllegalMove is SharedIllegalMove and MoveError is SharedMoveError
