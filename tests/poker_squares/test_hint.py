"""The hint engine: legal, view-only, reproducible suggestions and per-cell estimates."""

from __future__ import annotations

import json
import random

import pytest

from cardtable.cards import DECK, Card, shuffled_deck
from cardtable.poker_squares import deal, deal_cards, place, view
from cardtable.poker_squares.game import Game
from cardtable.poker_squares.hands import score
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, analyse, evaluate, hint

LINES = [[r * 5 + c for c in range(5)] for r in range(5)] + [
    [r * 5 + c for r in range(5)] for c in range(5)
]


def _total(cells: list[Card | None], table: str) -> int:
    """Points of a full grid."""
    full = [c for c in cells if c is not None]
    assert len(full) == 25
    return sum(score([full[i] for i in line], table) for line in LINES)


def _expectimax(cells: list[Card | None], card: Card, table: str) -> dict[int, float]:
    """Exact expected final total for each empty cell if `card` goes there, later cards placed
    optimally: the slow, obvious expectimax over every order of the unseen cards."""
    seen = {c for c in cells if c is not None} | {card}
    unseen = [c for c in DECK if c not in seen]

    def chance(cells: list[Card | None], unseen: list[Card]) -> float:
        empty = [i for i, c in enumerate(cells) if c is None]
        if not empty:
            return float(_total(cells, table))
        best = [
            max(chance(_put(cells, i, x), [y for y in unseen if y != x]) for i in empty)
            for x in unseen
        ]
        return sum(best) / len(best)

    return {i: chance(_put(cells, i, card), unseen) for i, c in enumerate(cells) if c is None}


def _put(cells: list[Card | None], i: int, card: Card) -> list[Card | None]:
    out = cells[:]
    out[i] = card
    return out


def _played(game: Game, moves: int, seed: int) -> Game:
    rng = random.Random(seed)
    for _ in range(moves):
        empty = [i for i, c in enumerate(game.cells) if c is None]
        cell = rng.choice(empty)
        game = place(game, cell // 5, cell % 5)
    return game


@pytest.mark.untraced
@pytest.mark.variants("table")
@pytest.mark.parametrize("table", ["american", "british"])
def test_hint_names_an_empty_cell_at_every_stage(table: str) -> None:
    for seed in range(3):
        game = deal(table, seed)
        while not game.is_over:
            row, col = hint(view(game), budget=3)
            assert game.cells[row * 5 + col] is None
            game = place(game, row, col)


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
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
        assert hint(view(a), budget=40) == hint(view(b), budget=40)
        assert evaluate(view(a), budget=30) == evaluate(view(b), budget=30)


def test_hint_is_reproducible_from_view_and_budget() -> None:
    game = _played(deal("american", 11), 8, 2)
    assert hint(view(game), budget=60) == hint(view(game), budget=60)


def test_last_cell_is_the_only_hint() -> None:
    game = _played(deal("british", 4), 24, 4)
    empty = game.cells.index(None)
    assert hint(view(game), budget=0) == divmod(empty, 5)


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
    assert hint(view(game), budget=INTERACTIVE_BUDGET) == (0, 4)


def test_evaluate_lists_every_empty_cell_as_json() -> None:
    game = _played(deal("american", 3), 10, 3)
    out = evaluate(view(game), budget=40)
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
    out = evaluate(v, budget=INTERACTIVE_BUDGET)
    assert len(out) == 3
    exact = _expectimax(list(game.cells), Card.parse(v["card"]), "british")
    assert [divmod(cell, 5) for cell in exact] == [(e["row"], e["col"]) for e in out]
    for e in out:
        assert abs(e["estimate"] - exact[e["row"] * 5 + e["col"]]) <= 0.05 + 1e-9
    best = max(out, key=lambda e: e["estimate"])
    assert hint(v, budget=INTERACTIVE_BUDGET) == (best["row"], best["col"])


def test_evaluator_alone_near_the_end_is_consistent_with_hint() -> None:
    game = _played(deal("british", 9), 22, 9)
    out = evaluate(view(game), budget=0)
    assert len(out) == 3
    best = max(out, key=lambda e: e["estimate"])
    assert hint(view(game), budget=0) == (best["row"], best["col"])


def test_analyse_is_hint_and_evaluate_in_one_call() -> None:
    for placed in (0, 7, 15, 23):
        v = view(_played(deal("american", 21), placed, 4))
        cell, estimates = analyse(v, budget=INTERACTIVE_BUDGET)
        assert cell == hint(v, budget=INTERACTIVE_BUDGET)
        assert estimates == evaluate(v, budget=INTERACTIVE_BUDGET)
        top = max(e["estimate"] for e in estimates)
        assert {"row": cell[0], "col": cell[1], "estimate": top} in estimates


def test_over_or_malformed_views_are_refused_with_a_reason() -> None:
    over = _played(deal("american", 1), 25, 1)
    with pytest.raises(ValueError, match="over"):
        hint(view(over), budget=1)
    good = view(deal("american", 1))
    bad_grid = {**good, "grid": [[None] * 5] * 4}
    with pytest.raises(ValueError, match="grid"):
        hint(bad_grid, budget=1)
    bad_card = {**good, "card": "ZZ"}
    with pytest.raises(ValueError, match="bad card"):
        evaluate(bad_card, budget=1)
    twice = {**good, "grid": [[good["card"], None, None, None, None]] + [[None] * 5] * 4}
    with pytest.raises(ValueError, match="twice"):
        hint(twice, budget=1)
    with pytest.raises(ValueError, match="table"):
        hint({**good, "table": "french"}, budget=1)
    with pytest.raises(ValueError, match="budget"):
        hint(good, budget=-1)
