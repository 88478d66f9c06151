"""Words for a stored Poker Squares review (docs/review.md, "Reading a review"): the deal's
accuracy and, for each placement, the line (row or column) the chosen cell and the engine's
best cell serve and the hand that line was building.

Worked out when a review is answered, from the stored review alone (the cards, the
placements, each step's chosen and best cells): cheap, and the same for every stored review
whether it was computed before these fields existed or after.

Accuracy is the share of the player's own placements that were *good*: the engine's own
cell, or a cell whose expected points lost are below `GOOD_BELOW` (half a point on the
American table, 0.2 on the British one, whose scores are about 0.4 of American ones). A
decent player close to the hint scores about 90-95% (the review thresholds' measurement: 6.8%
of that player's American placements lose 0.5 or more).

A placement made with the engine's hint for that very position in view is not the player's
own: it is marked (`hinted`) and left out of the accuracy, as chess sites leave
engine-assisted moves out of theirs. Which placements those were comes from the game's move
log (`hinted_placements`): the hint route logs ``{"action": "hint"}`` before the placement it
helped, and the log is read when the review is answered, so every stored review gets it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from cardtable.cards import RANK_CHARS, Card
from cardtable.poker_squares.hands import TABLES, Hand, classify

GOOD_BELOW = {"american": 0.5, "british": 0.2}
"""A placement losing less than this (expected points) counts as good for accuracy."""

_BROADWAY = {1, 10, 11, 12, 13}


def hinted_placements(
    log: Iterable[Mapping[str, Any]], placements: Sequence[Sequence[int]]
) -> set[int]:
    """The placements (0-based) of a finished deal that were made with the engine's hint for
    that very position in view, from the game's move log (``place``, ``undo`` and ``hint``
    entries) and its final ``placements`` ([row, col] each).

    A hint asked with *k* cards placed helped placement *k* if the final deal still has those
    *k* cards where they were then: the player saw the engine's answer for exactly the grid
    and card of that placement. That holds through an undo and a second try at the same card;
    a hint whose grid was later changed by undoing an earlier placement helped none."""
    final = [(p[0], p[1]) for p in placements]
    placed: list[tuple[int, int]] = []
    hinted: set[int] = set()
    for entry in log:
        action = entry.get("action")
        if action == "place":
            placed.append((entry["row"], entry["col"]))
        elif action == "undo":
            if placed:
                placed.pop()
        elif action == "hint":
            k = len(placed)
            if k < len(final) and final[:k] == placed:
                hinted.add(k)
    return hinted


def accuracy(review: dict[str, Any], hinted: Collection[int] = ()) -> dict[str, Any]:
    """``{"percent", "good", "placements", "good_below", "hinted"}`` of a stored review: the
    share of good placements among those made without a hint (``hinted``: 0-based indexes);
    ``percent`` is None when every placement was made after a hint."""
    limit = GOOD_BELOW[review["table"]]
    own = [s for s in review["steps"] if s["index"] not in hinted]
    good = sum(1 for s in own if s["chosen"] == s["best"] or s["loss"] < limit)
    return {
        "percent": round(100 * good / len(own)) if own else None,
        "good": good,
        "placements": len(own),
        "good_below": limit,
        "hinted": len(review["steps"]) - len(own),
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


def explain(review: dict[str, Any], hinted: Collection[int] = ()) -> dict[str, Any]:
    """The stored review with its accuracy and each step's lines and whether it was made
    after a hint (``hinted``: 0-based indexes, `hinted_placements`), as a new dict."""
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
                "hinted": step["index"] in hinted,
            }
        )
        row, col = review["placements"][i]
        grid[(row, col)] = card
    return {**review, "accuracy": accuracy(review, hinted), "steps": steps}
