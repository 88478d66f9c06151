"""What the view derives for the page and the computer players: ``accepts``, ``refusals``,
``turn_start``, and the spectator's view (``seat=None``, C-8). The property at the end
checks on random games that every card/pile pair of the mover's view is either legal or
refused, never both, and that `move_codes` is `legal_moves` in codes."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cardtable.kings_corner import (
    Match,
    Rules,
    State,
    deal,
    legal_moves,
    move_codes,
    play,
    undo,
    view,
)

from .test_properties import choose, rules_st
from .util import DRAW_LAST, STANDARD, pos, run

PRIVATE = {"seat", "hand", "legal_moves", "can_undo", "last_draw", "refusals", "turn_start"}


def test_accepts_names_what_each_pile_takes() -> None:
    s = pos(
        piles={"N": ["9H"], "E": ["AD"], "W": ["3S", "2D"], "NE": ["KS"], "SE": ["KD", "QC"]},
        hands=[["8S"], ["2C"]],
    )
    assert view(s, 1)["accepts"] == {
        "N": {"what": "build", "rank": "8", "colour": "black"},
        "E": {"what": "nothing"},
        "S": {"what": "any_but_king"},
        "W": {"what": "build", "rank": "A", "colour": "black"},
        "NE": {"what": "build", "rank": "Q", "colour": "red"},
        "SE": {"what": "build", "rank": "J", "colour": "red"},
        "SW": {"what": "king"},
        "NW": {"what": "king"},
    }
    ten = pos(piles={"N": ["JD"]}, hands=[["8S"], ["2C"]])
    assert view(ten, None)["accepts"]["N"] == {"what": "build", "rank": "T", "colour": "black"}


def test_spectator_sees_no_hand_and_what_every_seat_sees_in_common() -> None:
    """C-8: ``view(state, None)`` has every key, no hand, no move, no draw; the rest equals
    any seat's view."""
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "4D"], ["QC", "JD", "3H"]], stock=["5S", "6S"])
    s = play(s, "8S>N")
    spectator = view(s, None)
    assert set(spectator) == set(view(s, 0))
    assert spectator["seat"] is None and spectator["hand"] == []
    assert spectator["legal_moves"] == [] and spectator["can_undo"] is False
    assert spectator["last_draw"] is None and spectator["refusals"] == {}
    assert spectator["turn_start"] == {"piles": view(s, 0)["turn_start"]["piles"]}
    text = json.dumps(spectator)
    for hidden in ("4D", "5S", "6S", "QC", "JD", "3H"):
        assert hidden not in text
    for seat in (0, 1):
        mine = view(s, seat)
        assert _public(mine) == _public(spectator)
        assert {k: v for k, v in mine["turn_start"].items() if k != "hand"} == (
            spectator["turn_start"]
        )


def _public(v: dict[str, Any]) -> dict[str, Any]:
    return {k: x for k, x in v.items() if k not in PRIVATE}


def test_match_view_for_a_spectator() -> None:
    m = Match(3, STANDARD, rounds=3, seed=2)
    v = m.view(None)
    assert v["seat"] is None and v["hand"] == [] and v["round"] == 1 and v["rounds"] == 3


def test_turn_start_is_the_board_after_the_draw_until_the_turn_ends() -> None:
    s = pos(
        piles={"N": ["9H"], "E": ["8C", "7D"]},
        hands=[["8S", "4C"], ["2C", "3D"]],
        stock=["6S", "QD", "5H"],
    )
    start = {"piles": view(s, 0)["piles"], "hand": ["8S", "4C", "6S"]}  # 6S was drawn
    assert view(s, 0)["turn_start"] == start
    assert view(s, 1)["turn_start"] == {"piles": start["piles"]}
    moved = run(s, "E>N", "6S>N")
    assert view(moved, 0)["turn_start"] == start
    assert view(moved, 1)["turn_start"] == {"piles": start["piles"]}
    assert view(moved, 0)["piles"] != start["piles"]
    assert view(undo(moved), 0)["turn_start"] == start
    nxt = play(moved, "end")
    assert view(nxt, 1)["turn_start"] == {
        "piles": view(nxt, 1)["piles"],
        "hand": ["2C", "3D", "QD"],
    }
    assert "hand" not in view(nxt, 0)["turn_start"]


def test_turn_start_under_draw_last_and_once_over() -> None:
    s = pos(DRAW_LAST, piles={"N": ["9H"]}, hands=[["8S", "4C"], ["2C"]], stock=["6S"])
    assert view(s, 0)["turn_start"]["hand"] == ["8S", "4C"]
    over = run(s, "8S>N", "4C>E")
    assert over.is_over and view(over, 0)["turn_start"] == {"piles": view(over, 0)["piles"]}


def test_refusals_only_for_the_seat_to_play() -> None:
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "4D"], ["QC"]], stock=[])
    assert view(s, 0)["refusals"]["cards"]["4D"]["N"] == {
        "key": "not_one_below",
        "params": {"card": "4D", "tail": "9H"},
    }
    assert "N" not in view(s, 0)["refusals"]["cards"]["8S"]  # 8S>N is legal
    assert view(s, 1)["refusals"] == {}
    assert view(run(s, "8S>N", "4D>E"), 0)["refusals"] == {}  # the round is over


@given(rules=rules_st, players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_every_pair_is_legal_or_refused_never_both(rules: Rules, players: int, seed: int) -> None:
    """Along random games: for every hand card and pile, and every non-empty centre pile and
    target, the move is in ``legal_moves`` exactly when it has no refusal; `move_codes` is
    `legal_moves` as codes; the spectator's view never changes with who looks."""
    rng = random.Random(seed)
    s = deal(players, rules, seed)
    for _ in range(80):
        _check_pairs(s)
        if s.is_over:
            break
        s = play(s, choose(s, rng))


def _check_pairs(s: State) -> None:
    seat = s.to_play
    v = view(s, seat)
    legal = set(v["legal_moves"])
    if s.is_over:
        assert v["refusals"] == {} and not legal
        return
    hand = s.hands[seat]
    assert move_codes(
        tuple(c.index for c in hand), tuple(tuple(c.index for c in p) for p in s.piles.values()),
        s.rules.pile_moves, s.rules.kings == "first",
    ) == [m.code for m in legal_moves(s)]  # fmt: skip
    refused = v["refusals"]
    for card in v["hand"]:
        for pile in v["piles"]:
            has_reason = pile in refused["cards"].get(card, {})
            assert (f"{card}>{pile}" in legal) != has_reason, (card, pile)
    if not s.rules.pile_moves:
        assert refused["piles"] == {}
        return
    for source in ("N", "E", "S", "W"):
        if not v["piles"][source]:
            assert source not in refused["piles"]
            continue
        for target in v["piles"]:
            has_reason = target in refused["piles"].get(source, {})
            assert (f"{source}>{target}" in legal) != has_reason, (source, target)
