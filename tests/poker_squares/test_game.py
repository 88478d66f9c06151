"""Deals, placement, undo, the view and saving (SPEC PS-1, PS-5 to PS-9, C-8)."""

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardtable.cards import DECK, Card
from cardtable.poker_squares import (
    CELLS,
    Game,
    GameError,
    IllegalMove,
    Move,
    MoveError,
    deal,
    deal_cards,
    legal_moves,
    place,
    play,
    score,
    undo,
    view,
)

# A deal whose 25 cards, placed row by row, make known hands.
ROWS = [
    "TS JS QS KS AS",  # royal flush
    "2H 2D 2C 2S 9H",  # four of a kind
    "3H 3D 3C 4H 4D",  # full house
    "5C 6D 7H 8S 9D",  # straight
    "AH 5H 8H JH QH",  # flush
]
STACKED = [Card.parse(t) for row in ROWS for t in row.split()]


def fill_row_major(game: Game) -> Game:
    for cell in range(CELLS):
        game = place(game, cell // 5, cell % 5)
    return game


def test_a_fresh_deal_shows_its_first_card_and_empty_grid() -> None:
    game = deal("american", 42)
    assert game.card is not None and game.card == game.cards[0]
    assert all(c is None for row in game.grid for c in row)
    assert game.line_scores == (None,) * 10 and game.total == 0
    assert not game.is_over and not game.practice and game.table == "american"
    assert len(set(game.cards)) == 25
    assert deal("american", 42) == game  # the seed replays the deal (SPEC C-2)
    assert deal("american", 43).cards != game.cards


def test_place_puts_the_current_card_and_turns_the_next() -> None:
    game = deal_cards("american", STACKED)
    after = place(game, 2, 3)
    assert after.grid[2][3] == STACKED[0] and after.card == STACKED[1]
    assert game.grid[2][3] is None and game.card == STACKED[0]  # the old value is untouched


def test_rows_and_columns_score_when_complete_and_total_adds_up() -> None:
    game = fill_row_major(deal_cards("american", STACKED))
    assert game.is_over and game.card is None
    rows = [100, 50, 25, 15, 20]
    columns = [score([Card.parse(r.split()[c]) for r in ROWS], "american") for c in range(5)]
    assert list(game.line_scores) == rows + columns
    assert game.total == sum(rows) + sum(columns)
    assert view(game)["line_hands"][:5] == [
        "royal_flush",
        "four_of_a_kind",
        "full_house",
        "straight",
        "flush",
    ]


def test_incomplete_lines_count_nothing_until_full() -> None:
    game = deal_cards("american", STACKED)
    for col in range(4):
        game = place(game, 0, col)
    assert game.line_scores[0] is None and game.total == 0
    game = place(game, 0, 4)
    assert game.line_scores[0] == 100 and game.total == 100
    assert game.line_scores[5:] == (None,) * 5


@pytest.mark.parametrize(
    ("row", "col", "reason"),
    [(5, 0, "row must be 0-4"), (0, -1, "column must be 0-4"), (0, 1.5, "column must be 0-4")],
)
def test_cells_off_the_grid_are_not_moves(row: Any, col: Any, reason: str) -> None:
    with pytest.raises(MoveError, match=reason):
        place(deal("british", 1), row, col)


@pytest.mark.parametrize(
    ("text", "row", "col"),
    [("a1", 0, 0), ("e5", 4, 4), ("c4", 3, 2), (" C4 ", 3, 2), ("b5", 4, 1)],
)
def test_cell_notation_is_column_letter_then_row_number(text: str, row: int, col: int) -> None:
    move = Move.parse(text)
    assert (move.row, move.col) == (row, col)
    assert Move.parse(str(move)) == move and str(move) == text.strip().lower()


@pytest.mark.parametrize("text", ["", "c", "4c", "f1", "a0", "a6", "c44", "c-4", "c 4", "9H>N"])
def test_text_that_names_no_cell_is_a_move_error(text: str) -> None:
    with pytest.raises(MoveError):
        Move.parse(text)


def test_legal_moves_are_the_empty_cells_and_play_fills_one() -> None:
    game = play(deal_cards("american", STACKED), "c4")
    assert game.grid[3][2] == STACKED[0]
    moves = legal_moves(game)
    assert len(moves) == 24 and Move.parse("c4") not in moves
    assert [str(m) for m in moves][:3] == ["a1", "b1", "c1"]
    assert view(game)["legal_moves"] == [str(m) for m in moves]
    with pytest.raises(IllegalMove) as info:
        play(game, "c4")
    assert info.value.key == "cell_filled" and info.value.params == {"cell": "c4", "card": "TS"}
    assert legal_moves(fill_row_major(deal("american", 3))) == []


def test_the_spectator_sees_the_table_but_has_no_moves() -> None:
    game = play(deal("american", 8), "a1")
    seen, spectator = view(game), view(game, None)
    assert spectator["seat"] is None and spectator["legal_moves"] == []
    assert not spectator["can_undo"]
    assert {k: v for k, v in seen.items() if k not in ("seat", "legal_moves", "can_undo")} == {
        k: v for k, v in spectator.items() if k not in ("seat", "legal_moves", "can_undo")
    }
    with pytest.raises(ValueError, match="one seat"):
        view(game, 1)


def test_an_occupied_cell_is_refused_and_nothing_changes() -> None:
    game = place(deal_cards("american", STACKED), 1, 1)
    with pytest.raises(IllegalMove, match="row 2, column 2 already holds TS") as info:
        place(game, 1, 1)
    assert info.value.reason.startswith("row 2")
    assert game.placed == 1 and game.card == STACKED[1]


def test_a_finished_deal_refuses_more_cards() -> None:
    game = fill_row_major(deal("american", 3))
    with pytest.raises(IllegalMove, match="over"):
        place(game, 0, 0)


def test_undo_takes_back_the_last_card_and_marks_practice() -> None:
    game = deal_cards("american", STACKED)
    one = place(game, 0, 0)
    two = place(one, 4, 4)
    back = undo(two)
    assert back.grid == one.grid and back.card == STACKED[1]
    assert back.practice and not one.practice
    with pytest.raises(IllegalMove, match="nothing to undo"):
        undo(game)
    assert place(back, 4, 4).practice  # practice sticks for the rest of the deal


def test_a_finished_deal_cannot_be_undone() -> None:
    game = deal_cards("american", STACKED)
    before_last = game
    for cell in range(CELLS):
        before_last = game
        game = place(game, cell // 5, cell % 5)
    assert view(before_last)["can_undo"]
    assert game.is_over and not view(game)["can_undo"]
    with pytest.raises(IllegalMove, match="over") as refused:
        undo(game)
    assert refused.value.key == "deal_over"


def test_a_replay_is_practice_from_the_first_card() -> None:
    original = deal("american", 9)
    replay = deal("american", 9, replay=True)
    assert replay.cards == original.cards and replay.practice and replay.replay


def test_targets_follow_table_and_level() -> None:
    assert deal("american", 1, target="hard").target_points == 38
    assert deal("british", 1, target="easy").target_points == 9
    game = fill_row_major(deal_cards("british", STACKED, target="hard"))
    assert view(game)["target_reached"] is (game.total >= 20)
    with pytest.raises(ValueError, match="unknown target"):
        deal("american", 1, target="expert")
    with pytest.raises(ValueError, match="unknown point table"):
        deal("european", 1)


def test_the_view_is_json_and_shows_only_the_current_card() -> None:
    game = place(deal("american", 5), 2, 2)
    v = view(game)
    text = json.dumps(v)
    assert v["card"] == str(game.cards[1]) and v["cards_left"] == 24
    assert v["grid"][2][2] == str(game.cards[0])
    for upcoming in game.cards[2:]:
        assert f'"{upcoming}"' not in text


def test_tampered_saves_are_refused_with_a_reason() -> None:
    good = place(deal("american", 11), 0, 0).to_dict()
    assert Game.from_dict(json.loads(json.dumps(good))) == Game.from_dict(good)
    cases: list[tuple[dict[str, Any], str]] = [
        ({**good, "format": "poker-squares/99"}, "unknown saved-game format"),
        ({**good, "cards": good["cards"][:24]}, "exactly 25 cards"),
        ({**good, "cards": [good["cards"][0], *good["cards"][:24]]}, "duplicate card"),
        ({**good, "cards": ["ZZ", *good["cards"][1:]]}, "bad card"),
        ({**good, "placements": [[0, 0], [0, 0]]}, "same cell"),
        ({**good, "placements": [[0, 5]]}, "bad placement"),
        ({**good, "placements": [[True, 0]]}, "bad placement"),
        ({**good, "table": "martian"}, "unknown point table"),
        ({**good, "target": "extreme"}, "unknown target"),
        ({**good, "practice": "no"}, "practice must be"),
        ({**good, "replay": True, "practice": False}, "replayed deal is always practice"),
        ({**good, "seed": "x"}, "seed must be"),
    ]
    for damaged, reason in cases:
        with pytest.raises(GameError, match=reason):
            Game.from_dict(damaged)
    with pytest.raises(GameError):
        Game.from_dict(["not", "a", "dict"])


@st.composite
def games_in_play(draw: st.DrawFn) -> Game:
    table = draw(st.sampled_from(["american", "british"]))
    game = deal(table, draw(st.integers(0, 2**32)))
    cells = draw(st.permutations(range(CELLS)))
    for cell in cells[: draw(st.integers(0, CELLS))]:
        game = place(game, cell // 5, cell % 5)
    if game.placed and not game.is_over and draw(st.booleans()):
        game = undo(game)
    return game


@given(st.integers(0, 2**32), st.sampled_from(["american", "british"]), st.randoms())
def test_any_25_placements_finish_the_deal(seed: int, table: str, rnd: random.Random) -> None:
    game = deal(table, seed)
    order = list(range(CELLS))
    rnd.shuffle(order)
    for n, cell in enumerate(order):
        assert not game.is_over and game.placed == n
        game = place(game, cell // 5, cell % 5)
    assert game.is_over and game.card is None
    assert all(s is not None for s in game.line_scores)
    assert sorted(c.index for c in game.cells if c) == sorted(c.index for c in game.cards)


@given(games_in_play())
def test_save_and_load_round_trip(game: Game) -> None:
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert loaded == game and view(loaded) == view(game)


@given(games_in_play(), st.randoms())
def test_the_view_does_not_depend_on_the_hidden_order(game: Game, rnd: random.Random) -> None:
    """Reordering the cards still to come (or swapping in other unseen cards) leaves the view
    as it is: it cannot reveal the next card (SPEC C-8)."""
    shown = game.placed + (0 if game.is_over else 1)
    unseen = [c for c in DECK if c not in set(game.cards[:shown])]
    rnd.shuffle(unseen)
    other = Game(
        table=game.table,
        cards=game.cards[:shown] + tuple(unseen[: CELLS - shown]),
        placements=game.placements,
        target=game.target,
        practice=game.practice,
        replay=game.replay,
        seed=game.seed,
    )
    assert view(other) == view(game)
