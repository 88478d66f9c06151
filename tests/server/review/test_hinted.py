"""Placements made after a hint (issue 44; docs/review.md, "Reading a review"): which they
were comes from the game's move log, through undo; the review marks them (`hinted`) and
leaves them out of the accuracy, as chess sites leave engine-assisted moves out of theirs."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.server.review.explain import GOOD_BELOW, accuracy, explain, hinted_placements
from tests.server.helpers import Api
from tests.server.review.test_api import PS, wait_done
from tests.server.review.test_explain import review_of

ROW_BY_ROW = [[i // 5, i % 5] for i in range(25)]


def place(k: int) -> dict[str, Any]:
    return {"action": "place", "row": k // 5, "col": k % 5}


def log(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"action": "deal", "seed": None, "replay_of": None}, *entries]


HINT = {"action": "hint", "row": 4, "col": 4}
UNDO = {"action": "undo"}


def test_a_placement_made_after_a_hint_for_its_position_is_hinted() -> None:
    rest = [place(k) for k in range(3, 25)]
    # A hint with 2 cards placed helps placement 3 (index 2), whatever cell the card took.
    assert hinted_placements(log(place(0), place(1), HINT, place(2), *rest), ROW_BY_ROW) == {2}
    # Two hints for one card, and a hint before the first card.
    entries = log(HINT, place(0), place(1), HINT, HINT, place(2), *rest)
    assert hinted_placements(entries, ROW_BY_ROW) == {0, 2}
    # A deal played with no hint has none.
    assert hinted_placements(log(*[place(k) for k in range(25)]), ROW_BY_ROW) == set()


def test_an_undo_keeps_a_hint_for_the_same_position_and_drops_it_for_another() -> None:
    rest = [place(k) for k in range(3, 25)]
    # Hint, place, undo, place again: the second try at the same card saw the hint too.
    tried_again = log(place(0), place(1), HINT, place(2), UNDO, place(2), *rest)
    assert hinted_placements(tried_again, ROW_BY_ROW) == {2}
    # Undoing the card before it and putting it back where it was: the same position.
    back = log(place(0), place(1), HINT, UNDO, place(1), place(2), *rest)
    assert hinted_placements(back, ROW_BY_ROW) == {2}
    # Undoing it and putting it elsewhere: placement 3 faced another grid; the hint was for
    # a position the final deal never had.
    middle = range(2, 24)
    moved = [[0, 0], [4, 4], *[[k // 5, k % 5] for k in middle], [0, 1]]
    elsewhere = log(place(0), place(1), HINT, UNDO, place(24), *map(place, middle), place(1))
    assert hinted_placements(elsewhere, moved) == set()


def test_accuracy_leaves_out_the_placements_made_after_a_hint() -> None:
    # 20 good placements, 5 bad; two of the good ones and one bad one came after a hint.
    losses = [0.0] * 20 + [9.0] * 5
    review = review_of(losses)
    assert accuracy(review) == {
        "percent": 80, "good": 20, "placements": 25, "good_below": 0.5, "hinted": 0,
    }  # fmt: skip
    assert accuracy(review, {0, 1, 24}) == {
        "percent": round(100 * 18 / 22), "good": 18, "placements": 22, "good_below": 0.5,
        "hinted": 3,
    }  # fmt: skip
    # Every placement after a hint: nothing to score.
    every = accuracy(review, set(range(25)))
    assert every["percent"] is None and every["placements"] == 0 and every["hinted"] == 25
    shown = explain(review, {1, 24})
    assert [s["index"] for s in shown["steps"] if s["hinted"]] == [1, 24]
    assert shown["accuracy"]["hinted"] == 2


def play(api: Api, hints: dict[int, str]) -> tuple[Any, dict[int, list[int]]]:
    """A deal placed row by row, but before each placement in ``hints`` a hint is asked and
    then ``follow``-ed, ``ignore``-d (the card goes row by row) or followed only after an
    ``undo`` of the card put row by row first; the hint each of those got."""
    game = api.ps_new()
    asked: dict[int, list[int]] = {}
    for i in range(25):
        cells = [c for row in game["view"]["grid"] for c in row]
        row, col = divmod(cells.index(None), 5)
        if i in hints:
            answer = api.ps(game, "hint")
            game, cell = answer["game"], answer["hint"]
            asked[i] = [cell["row"], cell["col"]]
            if hints[i] == "undo":
                game = api.ps(api.ps(game, "moves", row=row, col=col), "undo")
            if hints[i] != "ignore":
                row, col = cell["row"], cell["col"]
        game = api.ps(game, "moves", row=row, col=col)
    assert game["view"]["is_over"]
    return game, asked


@pytest.mark.untraced  # its lines are covered by the traced tests above (docs/checks.md)
def test_the_review_marks_the_placements_made_after_a_hint(api: Api) -> None:
    # Placement 2 follows its hint, placement 7 is made after a hint but elsewhere, and
    # placement 12 follows its hint after a first try undone.
    game, asked = play(api, {1: "follow", 6: "ignore", 11: "undo"})
    api.post(f"{PS}/{game['id']}/start")
    review = wait_done(api, game["id"])["review"]
    hinted = [s["index"] for s in review["steps"] if s["hinted"]]
    assert hinted == [1, 6, 11]
    assert review["steps"][1]["chosen"] == asked[1]
    assert review["steps"][11]["chosen"] == asked[11]
    limit = GOOD_BELOW["american"]
    own = [s for s in review["steps"] if not s["hinted"]]
    good = sum(1 for s in own if s["chosen"] == s["best"] or s["loss"] < limit)
    assert review["accuracy"] == {
        "percent": round(100 * good / 22), "good": good, "placements": 22, "good_below": limit,
        "hinted": 3,
    }  # fmt: skip
    # The marks and the summary's figures still cover all 25 placements.
    assert sum(review["marks"].values()) == sum(1 for s in review["steps"] if s["mark"])
    assert review["vs_par"] == review["total"] - review["par"]
