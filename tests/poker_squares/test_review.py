"""The engine review of a finished Poker Squares deal (cardtable.poker_squares.review)."""

from __future__ import annotations

import pytest

from cardtable import poker_squares as ps
from cardtable.cards import DECK
from cardtable.poker_squares import review as rv

FAST = 8  # a small budget keeps these tests quick; the review works the same at any budget


def engine_deal(table: str, seed: int, budget: int = FAST) -> ps.Game:
    """A deal played by the hint engine itself."""
    game = ps.deal(table, seed)
    while not game.is_over:
        game = ps.place(game, *ps.hint(ps.view(game), budget=budget))
    return game


@pytest.mark.variants("table")
@pytest.mark.parametrize("table", ["american", "british"])
def test_the_engines_own_deal_loses_nothing_and_scores_par(table: str) -> None:
    game = engine_deal(table, 11)
    review = rv.review(game, FAST)
    assert [s["loss"] for s in review["steps"]] == [0.0] * 25
    assert review["expected_loss"] == 0 and review["marks"] == dict.fromkeys(rv.MARKS, 0)
    assert all(s["chosen"] == s["best"] and s["mark"] is None for s in review["steps"])
    assert review["par"] == game.total and review["vs_par"] == 0
    assert review["par_placements"] == review["placements"]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_at_the_review_budget_the_hint_engines_deal_has_no_loss() -> None:
    game = engine_deal("american", 3, rv.REVIEW_BUDGET)
    review = rv.review(game)
    assert review["budget"] == rv.REVIEW_BUDGET == ps.INTERACTIVE_BUDGET
    assert review["expected_loss"] <= 0.5
    assert review["par"] == game.total


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_bad_placement_shows_its_loss_where_it_was_made() -> None:
    good = engine_deal("american", 5)
    bad_at = (2, 9)
    game = ps.deal("american", 5)
    worst: dict[int, float] = {}
    while not game.is_over:
        view = ps.view(game)
        if game.placed in bad_at:
            est = ps.evaluate(view, budget=FAST)
            low = min(est, key=lambda e: e["estimate"])
            worst[game.placed] = max(e["estimate"] for e in est) - low["estimate"]
            game = ps.place(game, low["row"], low["col"])
        else:
            game = ps.place(game, *ps.hint(view, budget=FAST))
    review = rv.review(game, FAST)
    losses = [s["loss"] for s in review["steps"]]
    assert losses[:2] == [0.0, 0.0], "before the first bad placement the play is the engine's"
    for i in bad_at:
        # The chosen cell is looked at two cards deep, so its loss is near the hint's gap.
        assert losses[i] >= 5 and losses[i] >= worst[i] / 2, (i, losses[i], worst[i])
        assert review["steps"][i]["mark"] is not None
        assert review["steps"][i]["chosen"] != review["steps"][i]["best"]
    assert max(losses) in (losses[2], losses[9])
    assert review["expected_loss"] >= losses[2] + losses[9] - 0.05
    # Par depends only on the cards: the same as the engine's own game of this deal.
    assert review["par"] == good.total and review["vs_par"] == game.total - good.total


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_par_is_reproducible() -> None:
    cards = ps.deal("british", 21).cards
    first = list(rv.par_placements("british", cards, FAST))
    assert first == list(rv.par_placements("british", cards, FAST))
    assert sorted(first) == list(range(25))


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_step_never_reads_the_cards_still_to_come() -> None:
    game = engine_deal("american", 8)
    k = 12
    # The same first k + 1 cards and placements, then other cards in another order.
    rest = [c for c in DECK if c not in game.cards[: k + 1]][::-1][: 25 - k - 1]
    other = ps.Game("american", (*game.cards[: k + 1], *rest), game.placements)
    for i in range(k + 1):
        assert rv.visible(game, i) == rv.visible(other, i)
        assert rv.review_step(game, i, FAST) == rv.review_step(other, i, FAST)
    shown = rv.visible(game, k)
    named = {c for row in shown["grid"] for c in row if c} | {shown["card"]}
    assert named == {str(c) for c in game.cards[: k + 1]}


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_estimates_match_the_hint_and_the_progress_is_counted() -> None:
    game = engine_deal("american", 9)
    steps = list(rv.review_deal(game, FAST))
    assert steps[:-1] == list(range(1, rv.STEPS + 1))
    review = steps[-1]
    assert isinstance(review, dict)
    for i in (0, 7, 20):
        view = rv.visible(game, i)
        hint_est = {(e["row"], e["col"]): e["estimate"] for e in ps.evaluate(view, budget=FAST)}
        step = review["steps"][i]
        mine = {(e["row"], e["col"]): e["estimate"] for e in step["estimates"]}
        assert mine.keys() == hint_est.keys()
        assert mine[tuple(step["best"])] == max(hint_est.values())
    assert review["steps"][-1]["expected"] == game.total


def test_marks_and_refusals() -> None:
    low, mid, high = rv.THRESHOLDS["american"]
    assert rv.mark_of(0, "american") is None and rv.mark_of(low - 0.1, "american") is None
    assert rv.mark_of(low, "american") == "inaccuracy"
    assert rv.mark_of(mid, "american") == "mistake"
    assert rv.mark_of(high + 50, "american") == "blunder"
    for table, (a, b, c) in rv.THRESHOLDS.items():
        assert 0 < a < b < c, table
    unfinished = ps.place(ps.deal("american", 1), 0, 0)
    with pytest.raises(ValueError, match="not over"):
        rv.review(unfinished, FAST)
    with pytest.raises(ValueError, match="has not been made"):
        rv.review_step(unfinished, 1, FAST)
