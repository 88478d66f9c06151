"""Words for a stored Poker Squares review (docs/review.md, "Reading a review"): the deal's
accuracy and, for each placement, the line (row or column) the chosen cell and the engine's
best cell serve and the hand that line was building.

Worked out when a review is answered, from the stored review alone (the cards, the
placements, each step's chosen and best cells): cheap, and the same for every stored review
whether it was computed before these fields existed or after.

Accuracy is the share of the 25 placements that were *good*: the engine's own cell, or a
cell whose expected points lost are below `GOOD_BELOW` (half a point on the American table,
0.2 on the British one, whose scores are about 0.4 of American ones). A decent player close
to the hint scores about 90-95% (the review thresholds' measurement: 6.8% of that player's
American placements lose 0.5 or more).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from cardtable.cards import RANK_CHARS, Card
from cardtable.poker_squares.hands import TABLES, Hand, classify

GOOD_BELOW = {"american": 0.5, "british": 0.2}
"""A placement losing less than this (expected points) counts as good for accuracy."""

_BROADWAY = {1, 10, 11, 12, 13}


def accuracy(review: dict[str, Any]) -> dict[str, Any]:
    """``{"percent", "good", "placements", "good_below"}`` of a stored review."""
    limit = GOOD_BELOW[review["table"]]
    steps = review["steps"]
    good = sum(1 for s in steps if s["chosen"] == s["best"] or s["loss"] < limit)
    return {
        "percent": round(100 * good / len(steps)),
        "good": good,
        "placements": len(steps),
        "good_below": limit,
    }


def _straight_possible(ranks: set[int]) -> bool:
    """Distinct ranks that five consecutive ranks (Ace low or high) could still hold."""
    if max(ranks) - min(ranks) <= 4:
        return True
    return ranks <= _BROADWAY


def building(cards: Sequence[Card]) -> tuple[str, str | None]:
    """What a line of these cards is (five cards) or is building (fewer): a hand key
    (``hand.<key>`` words) or ``start`` (the card alone in its line), and the rank the hand
    is made of for pairs, threes and fours (``"9"``)."""
    if len(cards) == 5:
        hand = classify(cards)
        if hand in (Hand.ONE_PAIR, Hand.THREE_OF_A_KIND, Hand.FOUR_OF_A_KIND):
            top = Counter(c.rank for c in cards).most_common(1)[0][0]
            return hand.key, RANK_CHARS[top - 1]
        return hand.key, None
    if len(cards) == 1:
        return "start", None
    counts = Counter(c.rank for c in cards).most_common()
    top_rank, top = counts[0]
    rank = RANK_CHARS[top_rank - 1]
    if top == 4:
        return Hand.FOUR_OF_A_KIND.key, rank
    if top == 3:
        return Hand.THREE_OF_A_KIND.key, rank
    if top == 2:
        if len(counts) > 1 and counts[1][1] == 2:
            return Hand.TWO_PAIR.key, None
        return Hand.ONE_PAIR.key, rank
    suited = len({c.suit for c in cards}) == 1
    straight = _straight_possible({c.rank for c in cards})
    if suited and straight and len(cards) >= 3:
        return Hand.STRAIGHT_FLUSH.key, None
    if suited:
        return Hand.FLUSH.key, None
    if straight:
        return Hand.STRAIGHT.key, None
    return Hand.NOTHING.key, None


def _worth(table: str, hand: str, size: int) -> tuple[int, int]:
    """How much a line's hand promises (its points on the table), then its size."""
    if hand == "start":
        return -1, size
    return TABLES[table][Hand[hand.upper()]], size


def line_served(
    table: str, grid: dict[tuple[int, int], Card], card: Card, cell: Sequence[int]
) -> dict[str, Any]:
    """The line through ``cell`` (its row or its column) that ``card`` placed there helps
    most, and the hand that line is building with it: ``{"line": "row" | "column", "index":
    0-4, "hand", "rank"}``. The row wins a tie."""
    row, col = cell[0], cell[1]
    choices = []
    for line, index, others in (
        ("row", row, [grid[(row, c)] for c in range(5) if (row, c) in grid]),
        ("column", col, [grid[(r, col)] for r in range(5) if (r, col) in grid]),
    ):
        hand, rank = building([*others, card])
        choices.append((_worth(table, hand, len(others) + 1), line, index, hand, rank))
    best = max(choices, key=lambda c: c[0])  # max keeps the first (the row) on a tie
    return {"line": best[1], "index": best[2], "hand": best[3], "rank": best[4]}


def explain(review: dict[str, Any]) -> dict[str, Any]:
    """The stored review with its accuracy and each step's lines (a new dict)."""
    table = review["table"]
    cards = [Card.parse(c) for c in review["cards"]]
    grid: dict[tuple[int, int], Card] = {}
    steps = []
    for i, step in enumerate(review["steps"]):
        card = cards[i]
        steps.append(
            {
                **step,
                "chosen_line": line_served(table, grid, card, step["chosen"]),
                "best_line": line_served(table, grid, card, step["best"]),
            }
        )
        row, col = review["placements"][i]
        grid[(row, col)] = card
    return {**review, "accuracy": accuracy(review), "steps": steps}
