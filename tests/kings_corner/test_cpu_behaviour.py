"""Computer players on explicit positions: they never use hidden cards (C-8), the strong
player goes out when it can, places Kings under kings-first, and keeps a card back rather
than open an empty slot for an opponent with one card left (KC-23)."""

from __future__ import annotations

import random

import pytest

from cardtable.kings_corner import ENGINE, Rules, State, deal, legal_moves, play, setup, view
from cardtable.kings_corner.cpu import STRENGTHS, choose_move, lookahead, strong
from cardtable.kings_corner.moves import Move

STANDARD = Rules.preset("standard")


def turn_line(s: State, strength: str, seed: int) -> list[str]:
    """The moves ``strength`` makes for the rest of the current turn (fresh caches)."""
    strong._line.cache_clear()
    strong._oracle_line.cache_clear()
    lookahead._line.cache_clear()
    rng = random.Random(seed)
    seat = s.to_play
    out: list[str] = []
    while not s.is_over and s.to_play == seat and len(out) < 100:
        m = choose_move(view(s, seat), strength, rng)
        out.append(str(m))
        s = play(s, m)
        if m.is_end:
            break
    return out


@pytest.mark.untraced
@pytest.mark.variants("strength", "preset")
@pytest.mark.parametrize("strength", STRENGTHS)
@pytest.mark.parametrize("preset", ["standard", "draw-last", "simple"])
def test_choice_unchanged_when_hidden_cards_are_reshuffled(strength: str, preset: str) -> None:
    """C-8: same view, different hidden cards (the engine's `resample`) -> the same whole
    turn."""
    rules = Rules.preset(preset)
    rng = random.Random(3)
    checked = 0
    for seed in range(6):
        s = deal(2 + seed % 3, rules, 500 + seed)
        for step in range(60):
            if s.is_over:
                break
            if step % 3 == 0:
                other = ENGINE.resample(s, s.to_play, rng)
                assert view(other, s.to_play) == view(s, s.to_play)
                assert turn_line(other, strength, seed) == turn_line(s, strength, seed)
                checked += 1
            ms = legal_moves(s)
            s = play(s, rng.choice(ms) if rng.random() < 0.7 else ms[-1])
    assert checked >= 20


def test_strong_goes_out_through_a_pile_move() -> None:
    # JD on QC, then E (8S) onto N (9H) empties E, then 5D into E: out.
    s = setup(
        STANDARD,
        piles={"N": ["9H"], "E": ["8S"], "S": ["QC"], "W": ["4C"]},
        hands=[["5D", "JD"], ["2C", "3C", "4H"]],
        stock=[],
    )
    line = turn_line(s, "strong", 1)
    for m in line:
        s = play(s, m)
    assert s.is_over and s.winners == (0,)
    assert "end" not in line


def test_strong_goes_out_with_a_king_and_its_queen() -> None:
    s = setup(
        STANDARD,
        piles={"N": ["9H"], "E": ["8D"], "S": ["QC"], "W": ["4C"]},
        hands=[["QS", "KH"], ["2C", "3C", "4H"]],
        stock=[],
    )
    line = turn_line(s, "strong", 1)
    assert line[0].startswith("KH>") and line[1] == f"QS>{line[0][3:]}"
    for m in line:
        s = play(s, m)
    assert s.winners == (0,)


def test_strong_places_kings_first_under_draw_last() -> None:
    rules = Rules.preset("draw-last")
    s = setup(
        rules,
        piles={"N": ["9H"], "E": ["8D"], "S": ["QC"], "W": ["4C"]},
        hands=[["5S", "KH", "3D", "KC"], ["2C", "3C", "4H"]],
        stock=["7D", "7C"],
    )
    v = view(s, 0)
    assert all(Move.parse(m).card is not None for m in v["legal_moves"])
    m = choose_move(v, "strong", random.Random(1))
    assert m.card is not None and m.card.rank == 13 and m.target in ("NE", "SE", "SW", "NW")
    line = turn_line(s, "strong", 1)
    kings = [x for x in line if x.startswith("K")]
    assert len(kings) == 2 and line.index(kings[1]) == 1


# Strong holds 3H, TD, TH; TD or TH would go on JS (SE), after which pile W (9S 8D) could
# move onto it and leave W empty. The opponent's last card (4S) fits nowhere now.
KEEP_BACK = {
    "N": ["2D", "AC"],
    "E": ["6D", "5C", "4H"],
    "S": ["6H", "5S"],
    "W": ["9S", "8D"],
    "NE": ["KD", "QS", "JH"],
    "SE": ["KC", "QD", "JS"],
}


def test_strong_keeps_a_card_back_rather_than_open_a_slot_for_a_last_card() -> None:
    s = setup(STANDARD, piles=KEEP_BACK, hands=[["3H", "TD", "TH"], ["4S"]], stock=[])
    # The danger is real: after TD on JS the opponent moves W onto it and goes out.
    after = play(play(s, "TD>SE"), "end")
    after = play(play(after, "W>SE"), "4S>W")
    assert after.is_over and after.winners == (1,)
    # It keeps the cards back (the one-turn search), or (issue 46's look-past player) fills
    # the slot it opens itself, which blocks the round on equal penalties.
    assert turn_line(s, "strong", 1) in (["end"], ["TD>SE", "W>SE", "TH>W", "end"])
    # With six cards in the opponent's hand the same board is worth playing on.
    s6 = setup(
        STANDARD,
        piles=KEEP_BACK,
        hands=[["3H", "TD", "TH"], ["4S", "AS", "2S", "3S", "6S", "7S"]],
        stock=[],
    )
    line = turn_line(s6, "strong", 1)
    assert any(x.startswith("TD") or x.startswith("TH") for x in line)


def test_strong_is_the_same_for_any_generator() -> None:
    s = deal(3, STANDARD, 77)
    assert turn_line(s, "strong", 1) == turn_line(s, "strong", 2)
