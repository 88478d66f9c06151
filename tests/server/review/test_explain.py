"""The words of a Poker Squares review (cardtable.server.review.explain): accuracy and the
line each placement's chosen and best cells serve, on grids built for the purpose."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.cards import Card
from cardtable.server.review.explain import accuracy, building, explain, line_served


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


@pytest.mark.parametrize(
    ("line", "hand", "rank"),
    [
        ("9S", "start", None),
        ("9S 9H", "one_pair", "9"),
        ("9S 9H KD KC", "two_pair", None),
        ("9S 9H 9D", "three_of_a_kind", "9"),
        ("QS QH QD QC", "four_of_a_kind", "Q"),
        ("2S 7S JS", "flush", None),
        ("5S 6S 8S", "straight_flush", None),
        ("5S 6H 8D", "straight", None),
        ("TS AH KD", "straight", None),  # Ace high still fits a straight
        ("2S 7H", "nothing", None),
        ("2S 3S 4S 5S 6S", "straight_flush", None),
        ("2S 2H 5D 7C 9S", "one_pair", "2"),
        ("KS KH KD 4C 4S", "full_house", None),
    ],
)
def test_what_a_line_is_building(line: str, hand: str, rank: str | None) -> None:
    assert building(cards(line)) == (hand, rank)


def test_the_line_a_cell_serves_is_the_one_the_card_helps_most() -> None:
    # Row 1 holds two spades (a flush could come), column 2 holds a 9: the 9 of spades at
    # (1, 2) builds the flush in row 1 (worth 20 on the American table) over the pair (2).
    grid = {(1, 0): Card.parse("2S"), (1, 4): Card.parse("KS"), (3, 2): Card.parse("9D")}
    assert line_served("american", grid, Card.parse("9S"), [1, 2]) == {
        "line": "row", "index": 1, "hand": "flush", "rank": None,
    }  # fmt: skip
    # At (4, 2) only the column has cards: a pair of 9s.
    assert line_served("american", grid, Card.parse("9S"), [4, 2]) == {
        "line": "column", "index": 2, "hand": "one_pair", "rank": "9",
    }  # fmt: skip
    # An empty row and column: the card starts its row.
    assert line_served("british", grid, Card.parse("9S"), [0, 1]) == {
        "line": "row", "index": 0, "hand": "start", "rank": None,
    }  # fmt: skip


def review_of(losses: list[float], table: str = "american") -> dict[str, Any]:
    """A stored review's shape with these losses (the first step on the engine's cell)."""
    deck = [
        str(c)
        for c in cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH")
    ]
    steps = []
    for i, loss in enumerate(losses):
        chosen = [i // 5, i % 5]
        best = chosen if loss == 0 and i % 2 == 0 else [4 - i // 5, 4 - i % 5]
        steps.append({"index": i, "card": deck[i], "chosen": chosen, "best": best, "loss": loss})
    return {
        "table": table,
        "cards": deck,
        "placements": [[i // 5, i % 5] for i in range(25)],
        "steps": steps,
    }


def test_accuracy_counts_placements_on_or_near_the_best_cell() -> None:
    losses = [0.0] * 15 + [0.4] * 5 + [0.5] * 3 + [9.0, 25.0]
    assert accuracy(review_of(losses)) == {
        "percent": 80, "good": 20, "placements": 25, "good_below": 0.5, "hinted": 0,
    }  # fmt: skip
    # The British table's scores are smaller: 0.4 is no longer good there.
    assert accuracy(review_of(losses, "british"))["good"] == 15
    assert accuracy(review_of([0.0] * 25))["percent"] == 100


def test_explain_adds_the_lines_from_the_grid_before_each_placement() -> None:
    review = review_of([0.0] * 25)
    out = explain(review)
    assert out["accuracy"]["percent"] == 100
    # Placement 2 (2S at row 0, column 1) joins AS in row 0: two spades (a flush); with 3S
    # the row holds three spades in a run (a straight flush could still come).
    assert out["steps"][1]["chosen_line"] == {
        "line": "row", "index": 0, "hand": "flush", "rank": None,
    }  # fmt: skip
    assert out["steps"][2]["chosen_line"]["hand"] == "straight_flush"
    # Placement 6 (6S at row 1, column 0) joins AS in column 0 and starts row 1.
    assert out["steps"][5]["chosen_line"]["line"] == "column"
    assert out["steps"][5]["chosen_line"]["hand"] == "flush"
    assert "chosen_line" not in review["steps"][0]  # the stored review is not changed
