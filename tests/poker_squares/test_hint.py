"""The hint engine: legal, view-only, reproducible suggestions and per-cell estimates."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.cards import Card, shuffled_deck
from cardtable.poker_squares import deal, deal_cards, place, view
from cardtable.poker_squares.abstract import line_points
from cardtable.poker_squares.game import Game
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, analyse, evaluate, hint
from cardtable.poker_squares.rollout import Position, exact_value


def _played(game: Game, moves: int, seed: int) -> Game:
    rng = random.Random(seed)
    for _ in range(moves):
        empty = [i for i, c in enumerate(game.cells) if c is None]
        cell = rng.choice(empty)
        game = place(game, cell // 5, cell % 5)
    return game


@pytest.mark.parametrize("table", ["american", "british"])
def test_hint_names_an_empty_cell_at_every_stage(table: str) -> None:
    for seed in range(3):
        game = deal(table, seed)
        while not game.is_over:
            row, col = hint(view(game), budget=3, seed=seed)
            assert game.cells[row * 5 + col] is None
            game = place(game, row, col)


def test_hint_is_unchanged_when_the_unseen_cards_are_reordered() -> None:
    deck = shuffled_deck(7)
    for placed in (0, 3, 9, 16, 21, 23):
        seen, rest = deck[: placed + 1], deck[placed + 1 :]
        other = rest[:]
        random.Random(placed).shuffle(other)
        assert rest[: 24 - placed] != other[: 24 - placed]
        a = _played(deal_cards("american", seen + rest), placed, 1)
        b = _played(deal_cards("american", seen + other), placed, 1)
        assert view(a) == view(b)
        assert hint(view(a), budget=40, seed=3) == hint(view(b), budget=40, seed=3)
        assert evaluate(view(a), budget=30, seed=3) == evaluate(view(b), budget=30, seed=3)


def test_hint_is_reproducible_from_view_budget_and_seed() -> None:
    game = _played(deal("american", 11), 8, 2)
    assert hint(view(game), budget=60, seed=5) == hint(view(game), budget=60, seed=5)


def test_last_cell_is_the_only_hint() -> None:
    game = _played(deal("british", 4), 24, 4)
    empty = game.cells.index(None)
    assert hint(view(game), budget=0, seed=0) == divmod(empty, 5)


def test_hint_completes_an_obvious_royal_flush() -> None:
    # Row 0 holds TS JS QS KS and one empty cell; the ace of spades is in hand.
    cards = [
        Card.parse(t)
        for t in ["TS", "JS", "QS", "KS", "2H", "3D", "4C", "6H", "8D", "9C", "5S", "7H", "AS"]
    ]
    rest = [c for c in shuffled_deck(3) if c not in cards]
    order = [*cards[:12], cards[12], *rest]
    game = deal_cards("american", order[:25])
    cells = [0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13]
    for cell in cells:
        game = place(game, cell // 5, cell % 5)
    assert view(game)["card"] == "AS"
    assert hint(view(game), budget=INTERACTIVE_BUDGET, seed=0) == (0, 4)


def test_evaluate_lists_every_empty_cell_as_json() -> None:
    game = _played(deal("american", 3), 10, 3)
    out = evaluate(view(game), budget=40, seed=1)
    empty = [(i // 5, i % 5) for i, c in enumerate(game.cells) if c is None]
    assert [(e["row"], e["col"]) for e in out] == empty
    assert all(isinstance(e["estimate"], float) for e in out)
    assert all(e["estimate"] >= game.total for e in out)
    json.dumps(out)


def test_evaluate_with_three_cells_left_is_the_exact_expectimax() -> None:
    # With three empty cells the two-card lookahead reaches the end of the deal on every
    # branch, so each estimate is the exact expected final total under optimal play.
    game = _played(deal("british", 9), 22, 9)
    v = view(game)
    out = evaluate(v, budget=INTERACTIVE_BUDGET, seed=0)
    assert len(out) == 3
    cells = [-1 if c is None else c.index for c in game.cells]
    current = Card.parse(v["card"]).index
    pos = Position.from_cells(cells, current, "british")
    exact = exact_value(pos, current, line_points("british"))
    assert {(e["row"], e["col"]): e["estimate"] for e in out} == {
        divmod(cell, 5): round(val, 1) for cell, val in exact.items()
    }
    best = max(out, key=lambda e: e["estimate"])
    assert hint(v, budget=INTERACTIVE_BUDGET, seed=0) == (best["row"], best["col"])


def test_evaluator_alone_near_the_end_is_consistent_with_hint() -> None:
    game = _played(deal("british", 9), 22, 9)
    out = evaluate(view(game), budget=0, seed=0)
    assert len(out) == 3
    best = max(out, key=lambda e: e["estimate"])
    assert hint(view(game), budget=0, seed=0) == (best["row"], best["col"])


def test_analyse_is_hint_and_evaluate_in_one_call() -> None:
    for placed in (0, 7, 15, 23):
        v = view(_played(deal("american", 21), placed, 4))
        cell, estimates = analyse(v, budget=INTERACTIVE_BUDGET, seed=2)
        assert cell == hint(v, budget=INTERACTIVE_BUDGET, seed=2)
        assert estimates == evaluate(v, budget=INTERACTIVE_BUDGET, seed=2)
        top = max(e["estimate"] for e in estimates)
        assert {"row": cell[0], "col": cell[1], "estimate": top} in estimates


def test_over_or_malformed_views_are_refused_with_a_reason() -> None:
    over = _played(deal("american", 1), 25, 1)
    with pytest.raises(ValueError, match="over"):
        hint(view(over), budget=1, seed=0)
    good = view(deal("american", 1))
    bad_grid = {**good, "grid": [[None] * 5] * 4}
    with pytest.raises(ValueError, match="grid"):
        hint(bad_grid, budget=1, seed=0)
    bad_card = {**good, "card": "ZZ"}
    with pytest.raises(ValueError, match="bad card"):
        evaluate(bad_card, budget=1, seed=0)
    twice = {**good, "grid": [[good["card"], None, None, None, None]] + [[None] * 5] * 4}
    with pytest.raises(ValueError, match="twice"):
        hint(twice, budget=1, seed=0)
    with pytest.raises(ValueError, match="table"):
        hint({**good, "table": "french"}, budget=1, seed=0)
    with pytest.raises(ValueError, match="budget"):
        hint(good, budget=-1, seed=0)
