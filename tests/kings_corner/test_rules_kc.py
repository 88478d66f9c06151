"""One or more tests per SPEC requirement KC-1..KC-22 (and C-1, C-2, C-8), each on an
explicitly built position (or a seeded deal where the deal itself is the subject)."""

from __future__ import annotations

import json

import pytest

from cardtable.cards import DECK
from cardtable.kings_corner import (
    IllegalMove,
    Match,
    MatchError,
    Rules,
    RulesError,
    StateError,
    deal,
    legal_moves,
    play,
    setup,
    undo,
    view,
)

from .util import DRAW_LAST, SIMPLE, STANDARD, hand, moves, pile, pos, refusal, run

KINGS_FIRST = Rules(kings="first")
NO_PILES = Rules(pile_moves=False)


# -- C-1, C-2 ----------------------------------------------------------------------------
def test_c1_one_deck_of_52_all_dealt() -> None:
    """C-1: a dealt round holds each of the 52 cards exactly once."""
    for players in (2, 3, 4):
        s = deal(players, STANDARD, seed=players)
        cards = [c for h in s.hands for c in h] + [c for p in s.piles.values() for c in p]
        cards += list(s.stock)
        assert sorted(cards) == sorted(DECK)


def test_c2_same_seed_same_deal() -> None:
    """C-2: a deal is replayable from its seed; other seeds deal differently."""
    assert deal(3, STANDARD, 42) == deal(3, STANDARD, 42)
    assert deal(3, STANDARD, 42) != deal(3, STANDARD, 43)


# -- KC-1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_kc01_deal_seven_each_four_centre_corners_empty(players: int) -> None:
    """KC-1: 7 cards each (the first player has drawn an 8th), N E S W one card each,
    corners empty, the rest in the stock."""
    s = deal(players, STANDARD, seed=7, first=0)
    assert [len(h) for h in s.hands] == [8] + [7] * (players - 1)
    assert all(len(s.piles[n]) == 1 for n in "NESW")
    assert all(s.piles[n] == () for n in ("NE", "SE", "SW", "NW"))
    assert len(s.stock) == 52 - 7 * players - 4 - 1


@pytest.mark.parametrize("players", [0, 1, 5])
def test_kc01_two_to_four_players(players: int) -> None:
    """KC-1: fewer than 2 or more than 4 players are refused with a reason."""
    with pytest.raises(StateError, match="2-4 players"):
        deal(players, STANDARD, seed=1)
    with pytest.raises(StateError, match="2-4 players"):
        setup(STANDARD, piles={}, hands=[["2C"]] * players, stock=[])


def test_kc01_setup_refuses_impossible_positions() -> None:
    """KC-1/KC-4/KC-5: setup refuses duplicates, unknown cards, bad piles, bad corners."""
    cases = [
        ({"N": ["9H"]}, [["9H"], ["2C"]], "9H appears twice"),
        ({"N": ["9X"]}, [["3C"], ["2C"]], "unknown card '9X'"),
        ({"N": ["9H", "8D"]}, [["3C"], ["2C"]], "8D is red like 9H"),
        ({"NE": ["QH"]}, [["3C"], ["2C"]], "corner NE must start with a King"),
        ({"X": ["QH"]}, [["3C"], ["2C"]], "unknown pile 'X'"),
    ]
    for piles, hands, reason in cases:
        with pytest.raises(StateError, match=reason):
            setup(STANDARD, piles=piles, hands=hands, stock=[])


# -- KC-2 ----------------------------------------------------------------------------------
def test_kc02_first_player_from_seed() -> None:
    """KC-2: the first seat comes from the seed: fixed per seed, every seat occurs."""
    firsts = {deal(4, STANDARD, seed).to_play for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert deal(4, STANDARD, 5).to_play == deal(4, STANDARD, 5).to_play


def test_kc02_first_seat_rotates_each_round() -> None:
    """KC-2: in a match the first seat of round k is (first + k) % players."""
    m = Match(3, STANDARD, rounds=5, seed=11)
    firsts = []
    while True:
        firsts.append(m.state.to_play)
        m = _finish_round(m)
        if m.is_over:
            break
        m = m.next_round()
    assert firsts == [(firsts[0] + k) % 3 for k in range(5)]


# -- KC-3 / C-8 ----------------------------------------------------------------------------
def test_kc03_view_shows_counts_never_hidden_cards() -> None:
    """KC-3, C-8: a view has every hand's size and the stock count, but no card from another
    hand or the stock."""
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "4D"], ["QC", "JD", "3H"]], stock=["5S", "6S"])
    v = view(s, 1)
    assert v["hand"] == ["QC", "JD", "3H"]
    assert v["hand_sizes"] == [3, 3]  # seat 0 drew 5S at the start of its turn
    assert v["stock_count"] == 1
    assert v["legal_moves"] == [] and v["last_draw"] is None
    text = json.dumps(v)
    for hidden in ("8S", "4D", "5S", "6S"):
        assert hidden not in text
    own = view(s, 0)
    assert own["last_draw"] == "5S" and "5S" in own["hand"]


# -- KC-4 ----------------------------------------------------------------------------------
def test_kc04_build_down_one_rank_alternating_colour() -> None:
    """KC-4: black 8 on red 9; same colour, wrong rank, a King and anything on an Ace are
    refused with a reason."""
    s = pos(
        piles={"N": ["9H"], "E": ["AD"], "S": ["2S"], "W": ["TC"]},
        hands=[["8S", "8D", "7S", "KS", "AH", "9D"], ["2C"]],
    )
    assert {m for m in moves(s) if m.endswith(">N")} == {"8S>N"}
    assert refusal(s, "8D>N") == "8D is red like 9H"
    assert refusal(s, "7S>N") == "7S is not one rank below 9H"
    assert refusal(s, "KS>E") == "nothing goes on an Ace (AD)"
    assert refusal(s, "AH>E") == "nothing goes on an Ace (AD)"
    assert refusal(s, "KS>N").startswith("a King only starts an empty corner")
    after = play(s, "AH>S")
    assert pile(after, "S") == ["2S", "AH"]
    assert pile(play(s, "9D>W"), "W") == ["TC", "9D"]
    assert "8S" not in hand(play(s, "8S>N"), 0)


# -- KC-5 ----------------------------------------------------------------------------------
def test_kc05_empty_corner_takes_only_a_king_then_builds() -> None:
    """KC-5: an empty corner takes only a King; it then builds down and is shared."""
    s = pos(piles={"N": ["2C"]}, hands=[["QS", "KH", "5D"], ["QC", "JD"]], stock=[])
    assert refusal(s, "QS>NE") == "only a King can start an empty corner, not QS"
    s = run(s, "KH>NE", "QS>NE", "end")
    assert pile(s, "NE") == ["KH", "QS"]
    assert "JD>NE" in moves(s) and "QC>NE" not in moves(s)
    assert pile(play(s, "JD>NE"), "NE") == ["KH", "QS", "JD"]


# -- KC-6 ----------------------------------------------------------------------------------
def test_kc06_any_number_of_plays_and_end_any_time() -> None:
    """KC-6: several plays in one turn; "end" is legal even with plays left, and is the one
    control when nothing else can be played."""
    s = pos(piles={"N": ["9H"]}, hands=[["8S", "7D", "6C", "3H"], ["2C", "4C"]], stock=[])
    s = run(s, "8S>N", "7D>N")
    assert s.to_play == 0 and "6C>N" in moves(s) and "end" in moves(s)
    s = play(s, "end")
    assert s.to_play == 1 and hand(s, 0) == ["6C", "3H"]
    blocked_hand = pos(
        piles={"N": ["9H"], "E": ["9D"], "S": ["9C"], "W": ["9S"], "NE": ["KH"], "SE": ["KS"],
               "SW": ["KD"], "NW": ["KC"]},
        hands=[["3H"], ["5C"]], stock=["4C", "4S"],
    )  # fmt: skip
    assert moves(blocked_hand) == {"end"}


# -- KC-7 ----------------------------------------------------------------------------------
def test_kc07_end_hands_over_to_next_seat() -> None:
    """KC-7: after "end" it is the next seat's turn (the hand-off screen is the UI's); the
    turn counter advances and only the new seat sees legal moves."""
    s = pos(piles={"N": ["9H"]}, hands=[["8S"], ["2C", "3C"], ["4C", "5C"]], to_play=2)
    s2 = play(s, "end")
    assert s2.to_play == 0 and s2.turn == s.turn + 1
    assert view(s2, 2)["legal_moves"] == [] and view(s2, 0)["legal_moves"]
    assert play(play(s2, "end"), "end").to_play == 2


# -- KC-8 ----------------------------------------------------------------------------------
def test_kc08_undo_back_to_turn_start_never_the_draw() -> None:
    """KC-8: undo takes back plays and pile moves one by one to the turn's start; it never
    takes back the draw or crosses the hand-off."""
    s0 = pos(
        piles={"N": ["9H"], "E": ["8C", "7D"]},
        hands=[["8S", "4C"], ["2C"]],
        stock=["6S", "QD"],
    )
    assert hand(s0, 0) == ["8S", "4C", "6S"]  # the draw happened
    assert not s0.can_undo
    with pytest.raises(IllegalMove, match="nothing to undo"):
        undo(s0)
    s1 = play(s0, "E>N")
    s2 = play(s1, "6S>N")
    assert s2.can_undo
    assert undo(s2) == s1 and undo(undo(s2)) == s0
    s3 = play(s2, "end")
    with pytest.raises(IllegalMove, match="nothing to undo"):
        undo(s3)


# -- KC-9 ----------------------------------------------------------------------------------
def test_kc09_whole_centre_pile_moves_by_its_head() -> None:
    """KC-9: a centre pile moves whole when its head builds on the destination's tail; not
    by its tail, not from a corner, not with pile moves off."""
    piles = {"N": ["TS", "9H"], "E": ["8C", "7D"], "S": ["8D", "7C"], "W": ["8H"],
             "NE": ["KC", "QH"]}  # fmt: skip
    s = pos(piles=piles, hands=[["2C"], ["2D"]], stock=["3S", "3C"])
    assert "E>N" in moves(s)
    after = play(s, "E>N")
    assert pile(after, "N") == ["TS", "9H", "8C", "7D"] and pile(after, "E") == []
    assert refusal(s, "S>N") == "S starts with 8D: 8D is red like 9H"
    assert refusal(s, "W>N") == "W starts with 8H: 8H is red like 9H"  # its tail is no help
    assert refusal(s, "NE>N") == "a corner pile never moves (NE is a corner)"
    assert refusal(s, "N>N") == "a pile cannot move onto itself"
    off = pos(NO_PILES, piles=piles, hands=[["2C"], ["2D"]], stock=["3S", "3C"])
    assert refusal(off, "E>N") == "pile moves are off in these rules"
    assert not any(m.startswith(("N>", "E>", "S>", "W>")) for m in moves(off))


# -- KC-10 ---------------------------------------------------------------------------------
def test_kc10_king_headed_centre_pile_to_empty_corner() -> None:
    """KC-10: a centre pile headed by a King may move into an empty corner; others not."""
    s = pos(piles={"N": ["KS", "QH"], "E": ["9C"]}, hands=[["2C"], ["2D"]])
    assert {"N>NE", "N>SE", "N>SW", "N>NW"} <= moves(s)
    after = play(s, "N>SW")
    assert pile(after, "SW") == ["KS", "QH"] and pile(after, "N") == []
    assert refusal(s, "E>NE").startswith("only a pile headed by a King can move to an empty")


# -- KC-11 ---------------------------------------------------------------------------------
def test_kc11_empty_centre_takes_any_card_but_a_king_never_a_pile() -> None:
    """KC-11: an empty centre slot takes any non-King card from a hand; never a King, and a
    pile is never moved into it."""
    s = pos(piles={"N": ["9H"], "E": ["6C"]}, hands=[["3D", "KS", "QD"], ["2D"]])
    assert {"3D>S", "QD>W"} <= moves(s) and "KS>S" not in moves(s)
    assert refusal(s, "KS>S") == "a King cannot go to an empty centre pile"
    assert refusal(s, "E>S") == "a pile never moves into an empty centre pile"
    assert pile(play(s, "QD>S"), "S") == ["QD"]


# -- KC-12 ---------------------------------------------------------------------------------
def test_kc12_four_options_any_combination() -> None:
    """KC-12: the four options combine freely; a bad value is refused with a reason."""
    combos = {
        Rules(d, p, k, dk)
        for d in ("first", "last")
        for p in (True, False)
        for k in ("optional", "first")
        for dk in ("stay", "corner")
    }
    assert len(combos) == 16
    for r in combos:
        assert Rules.from_dict(r.to_dict()) == r
        assert not deal(2, r, 3).is_over
    with pytest.raises(RulesError, match="draw must be"):
        Rules(draw="middle")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="pile_moves"):
        Rules(pile_moves="yes")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="kings must be"):
        Rules(kings="never")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="dealt_kings"):
        Rules(dealt_kings="hand")  # type: ignore[arg-type]


# -- KC-13 ---------------------------------------------------------------------------------
def test_kc13_draw_first_card_playable_at_once() -> None:
    """KC-13: draw-first draws one card at the turn start; it may be played at once; with
    an empty stock there is no draw."""
    s = pos(piles={"N": ["9H"]}, hands=[["2C"], ["3C"]], stock=["8S", "TD"])
    assert hand(s, 0) == ["2C", "8S"] and [str(c) for c in s.stock] == ["TD"]
    assert "8S>N" in moves(s)
    s = play(s, "end")
    assert hand(s, 1) == ["3C", "TD"] and s.stock == ()
    s = play(s, "end")
    assert hand(s, 0) == ["2C", "8S"]


# -- KC-14 ---------------------------------------------------------------------------------
def test_kc14_draw_last_draws_on_end_and_drawn_card_waits() -> None:
    """KC-14: under draw-last the turn starts without a draw; "end" draws one card into the
    hand and passes the turn, so a drawn non-King is not played that turn."""
    r = Rules(draw="last")
    s = pos(r, piles={"N": ["9H"]}, hands=[["2C"], ["3C"]], stock=["8S", "TD"])
    assert hand(s, 0) == ["2C"]
    s = play(s, "end")
    assert hand(s, 0) == ["2C", "8S"] and s.to_play == 1 and len(s.stock) == 1
    assert view(s, 0)["last_draw"] == "8S" and view(s, 1)["last_draw"] is None


def test_kc14_drawn_king_goes_to_first_empty_corner() -> None:
    """KC-14: a drawn King goes at once to the first empty corner (NW, NE, SE, SW), then
    the turn passes with no second draw."""
    s = pos(DRAW_LAST, piles={"N": ["9H"], "NW": ["KC"]}, hands=[["2C"], ["3C"]],
            stock=["KD", "5S"])  # fmt: skip
    s = play(s, "end")
    assert pile(s, "NE") == ["KD"] and hand(s, 0) == ["2C"]
    assert s.to_play == 1 and [str(c) for c in s.stock] == ["5S"]
    s2 = pos(DRAW_LAST, piles={"N": ["9H"]}, hands=[["2C"], ["3C"]], stock=["KD"])
    assert pile(play(s2, "end"), "NW") == ["KD"]


def test_kc14_going_out_does_not_draw() -> None:
    """KC-14: a player who goes out does not draw; the round is over at once."""
    s = pos(DRAW_LAST, piles={"N": ["9H"]}, hands=[["8S"], ["3C"]], stock=["5S"])
    s = play(s, "8S>N")
    assert s.is_over and len(s.stock) == 1 and s.hands[0] == ()


# -- KC-15 ---------------------------------------------------------------------------------
def test_kc15_kings_first_only_king_placements() -> None:
    """KC-15: holding a King with a corner empty, placing a King is the only legal action:
    no other play, no pile move, no ending the turn."""
    s = pos(
        KINGS_FIRST,
        piles={"N": ["9H"], "E": ["8C"], "NE": ["KD"], "SE": ["KH"]},
        hands=[["KS", "8S", "QD"], ["3C"]],
    )
    assert moves(s) == {"KS>SW", "KS>NW"}
    reason = "kings first: a held King must go to an empty corner before anything else"
    for m in ("8S>N", "E>N", "end"):
        assert refusal(s, m) == reason
    s = play(s, "KS>SW")
    assert {"8S>N", "QD>SW", "end", "E>N"} <= moves(s)


def test_kc15_kings_optional_leaves_a_held_king_free() -> None:
    """KC-15: with kings optional (the standard) a held King restricts nothing. (A held King
    always has an empty corner: only the other three Kings can fill corners.)"""
    s = pos(STANDARD, piles={"NE": ["KD"], "N": ["9H"]}, hands=[["KS", "8S"], ["3C"]])
    assert {"KS>SE", "8S>N", "end"} <= moves(s)
    assert play(s, "end").to_play == 1


# -- KC-16 ---------------------------------------------------------------------------------
def test_kc16_dealt_kings_move_to_corners_and_refill() -> None:
    """KC-16: with kings to corners no King heads a centre pile after the deal; each goes to
    a corner (NW, NE, SE, SW in order) and its slot is refilled, repeatedly if needed. With
    kings stay the same deal keeps them in the centre."""
    corner_rules = Rules(dealt_kings="corner")
    moved = refilled_twice = 0
    for seed in range(400):
        stay = deal(2, STANDARD, seed)
        s = deal(2, corner_rules, seed)
        kings_in_centre = sum(stay.piles[n][0].rank == 13 for n in "NESW")
        assert all(s.piles[n][0].rank != 13 for n in "NESW")
        corners = [s.piles[n] for n in ("NW", "NE", "SE", "SW")]
        n_corner = sum(1 for c in corners if c)
        assert all(corners[:n_corner]) and not any(corners[n_corner:])
        assert n_corner >= kings_in_centre
        assert len(s.stock) == len(stay.stock) - n_corner
        moved += kings_in_centre > 0
        refilled_twice += n_corner > kings_in_centre
        # Same shuffle: the same hands (the first player's draw aside).
        assert [h[:7] for h in s.hands] == [h[:7] for h in stay.hands]
    assert moved and refilled_twice


# -- KC-17 ---------------------------------------------------------------------------------
def test_kc17_presets() -> None:
    """KC-17: the three presets, and any other combination is custom."""
    assert STANDARD == Rules("first", True, "optional", "stay") == Rules()
    assert Rules("last", True, "first", "stay") == DRAW_LAST
    assert Rules("first", False, "optional", "corner") == SIMPLE
    assert [r.name for r in (STANDARD, DRAW_LAST, SIMPLE)] == ["standard", "draw-last", "simple"]
    assert Rules(pile_moves=False).name == "custom"
    with pytest.raises(RulesError, match="unknown rule set"):
        Rules.preset("easy")


# -- KC-18 ---------------------------------------------------------------------------------
def test_kc18_round_ends_the_moment_a_hand_is_empty() -> None:
    """KC-18: playing the last card ends the round at once; that player wins; nothing more
    can be played or undone."""
    s = pos(piles={"N": ["9H"], "E": ["5C"]}, hands=[["8S", "4D"], ["KS", "3C"]], stock=[])
    s = run(s, "8S>N", "4D>E")
    assert s.is_over and s.ending == "out" and s.winners == (0,)
    assert s.penalties == (0, 11)
    assert legal_moves(s) == [] and not s.can_undo
    with pytest.raises(IllegalMove, match="the round is over"):
        play(s, "end")
    with pytest.raises(IllegalMove, match="the round is over"):
        undo(s)


# -- KC-19 ---------------------------------------------------------------------------------
def test_kc19_empty_stock_does_not_end_the_round() -> None:
    """KC-19: with the stock empty turns go on without drawing."""
    for rules in (STANDARD, Rules(draw="last")):
        s = pos(rules, piles={"N": ["9H"]}, hands=[["2C", "8S"], ["3C", "QD"]], stock=[])
        s = run(s, "end", "end")
        assert not s.is_over and s.to_play == 0 and s.hand_sizes == (2, 2)
        assert "8S>N" in moves(s)


# -- KC-20 ---------------------------------------------------------------------------------
FULL_BOARD = {"N": ["9H"], "E": ["9D"], "S": ["9C"], "W": ["9S"],
              "NE": ["KH"], "SE": ["KS"], "SW": ["KD"], "NW": ["KC"]}  # fmt: skip


def test_kc20_blocked_round_ends() -> None:
    """KC-20: stock empty, no card placeable by anyone and no pile move: the round is over
    (checked at the start of a turn: here at setup)."""
    s = pos(piles=FULL_BOARD, hands=[["3H", "2C"], ["5C"]], stock=[])
    assert s.is_over and s.ending == "blocked"
    assert s.penalties == (2, 1) and s.winners == (1,)


def test_kc20_blocked_after_the_turn_ends() -> None:
    """KC-20: a play that leaves everyone stuck ends the round when the turn ends (it can
    still be undone before that)."""
    board = dict(FULL_BOARD, E=["5D"])
    s = pos(piles=board, hands=[["8S", "3H"], ["5C"]], stock=[])
    s = play(s, "8S>N")
    assert not s.is_over and moves(s) == {"end"} and s.can_undo
    s = play(s, "end")
    assert s.is_over and s.ending == "blocked"


def test_kc20_passing_or_a_stock_does_not_end_it() -> None:
    """KC-20: players merely passing does not end the round while a card or a pile move
    could be played; nor does a non-empty stock."""
    s = pos(piles=dict(FULL_BOARD, E=["8S"]), hands=[["5H"], ["5C"]], stock=[])
    assert not s.is_over  # E>N is a possible pile move
    for _ in range(8):
        s = play(s, "end")
    assert not s.is_over
    stuck = pos(piles=FULL_BOARD, hands=[["3H"], ["5C"]], stock=["4D", "4C"])
    assert not stuck.is_over
    assert play(stuck, "end").is_over  # seat 1 drew the last card: now blocked


# -- KC-21 ---------------------------------------------------------------------------------
def test_kc21_penalties_and_shared_wins() -> None:
    """KC-21: 1 per card, 10 per King (K, 6, 2 = 12), the player who went out 0; in a
    blocked round the lowest penalty wins and ties share."""
    s = pos(piles={"N": ["9H"]}, hands=[["8S"], ["KS", "6H", "2D"], ["5C"]], stock=[])
    s = play(s, "8S>N")
    assert s.penalties == (0, 12, 1) and s.winners == (0,)
    b = pos(piles=FULL_BOARD, hands=[["6H", "2D", "3D"], ["5C", "4H"], ["3S", "2H"]])
    assert b.is_over and b.penalties == (3, 2, 2) and b.winners == (1, 2)


# -- KC-22 ---------------------------------------------------------------------------------
def _finish_round(m: Match) -> Match:
    """Play the current round to its end: always the first non-end move, else end."""
    while not m.state.is_over:
        ms = legal_moves(m.state)
        m = m.play(ms[0])
    return m


@pytest.mark.parametrize("rounds", [1, 3, 5])
def test_kc22_match_rounds_totals_and_winners(rounds: int) -> None:
    """KC-22: a match plays 1/3/5 fresh deals; totals add the round penalties; the lowest
    total wins (ties share); no rounds after the last."""
    m = Match(3, STANDARD, rounds=rounds, seed=99)
    seen = []
    while True:
        seen.append(m.state)
        m = _finish_round(m)
        if m.is_over:
            break
        with pytest.raises(IllegalMove):
            m.play("end")
        m = m.next_round()
        assert m.state.turn == 1 and not m.state.is_over
    assert m.round == rounds == len(m.results)
    assert m.totals == tuple(sum(r[i] for r in m.results) for i in range(3))
    low = min(m.totals)
    assert m.winners == tuple(i for i, t in enumerate(m.totals) if t == low)
    assert len({s.hands for s in seen}) == rounds  # each round is a fresh deal
    with pytest.raises(MatchError, match="the match is over"):
        m.next_round()
    last = m.round_results[-1]
    assert last.winners == m.state.winners and last.ending == m.state.ending
    mv = m.view(0)
    assert mv["round"] == rounds and mv["totals"] == list(m.totals) and mv["match_over"]
    assert mv["results"][-1] == last.to_dict() and mv["match_winners"] == list(m.winners or ())
    assert Match.from_dict(json.loads(json.dumps(m.to_dict()))) == m


def test_kc22_match_refusals() -> None:
    """KC-22: only 1, 3 or 5 rounds; the next round waits for the current one to end."""
    with pytest.raises(MatchError, match="1, 3 or 5"):
        Match(2, STANDARD, rounds=2, seed=1)
    m = Match(2, STANDARD, rounds=3, seed=1)
    with pytest.raises(MatchError, match="not over"):
        m.next_round()
    assert m.totals == (0, 0) and m.winners is None and not m.is_over


def test_kc22_match_save_load_and_refusals() -> None:
    """KC-22: a match saves mid-way and loads to an equal match; bad saves are refused."""
    m = Match(2, DRAW_LAST, rounds=3, seed=8)
    m = _finish_round(m).next_round()
    m = m.play(legal_moves(m.state)[0])
    d = json.loads(json.dumps(m.to_dict()))
    assert Match.from_dict(d) == m and m.round == 2 and len(m.results) == 1
    bad = dict(d, results=[{"penalties": [1, 2], "winners": [1], "ending": "out"}])
    with pytest.raises(MatchError, match="winners must be the lowest"):
        Match.from_dict(bad)
    with pytest.raises(MatchError, match="not a saved match"):
        Match.from_dict(dict(d, format="x"))
    with pytest.raises(MatchError, match="does not load"):
        Match.from_dict(dict(d, state={}))
