"""What the daily fair-play check reads of a deal (`fairplay_reading`, docs/daily.md "Fair
play"), against a direct computation: every unseen card tried on every empty cell and valued
by the hint engine's learned evaluator, one after-state at a time."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardtable.cards import Card, shuffled_deck
from cardtable.poker_squares.game import CELLS
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse, cell_classes, static_estimate
from cardtable.server.daily.public import fairplay, fairplay_reading


def direct(
    table: str, cards: Sequence[Card], placements: Sequence[int]
) -> list[tuple[float, list[float], float]]:
    """Per card 2..25: (w of the card that came, w of every unseen card, the card's value on
    the chosen cell), each after-state valued on its own."""
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    out: list[tuple[float, list[float], float]] = []

    def value(p: Position) -> float:
        return static_estimate(p, vt) if p.placed < CELLS else float(p.total)

    for k in range(CELLS):
        card = cards[k].index
        if k > 0:
            worth: dict[int, float] = {}
            for u in range(52):
                if not pos.mask >> u & 1:
                    continue
                seen = pos.copy()
                seen.see(u)
                best = -1e9
                for cell in cell_classes(seen):
                    nxt = seen.copy()
                    nxt.put(cell, u, pts)
                    best = max(best, value(nxt))
                worth[u] = best
            seen = pos.copy()
            seen.see(card)
            seen.put(placements[k], card, pts)
            out.append((worth[card], list(worth.values()), value(seen)))
        pos.see(card)
        pos.put(placements[k], card, pts)
    return out


def some_placements(cards: Sequence[Card], rng: random.Random, table: str) -> list[int]:
    """A grid played by a mix of the engine's best cells and random ones."""
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    cells: list[int] = []
    for card in cards:
        pos.see(card.index)
        if rng.random() < 0.5:
            cell = rng.choice(pos.empties())
        else:
            cell = analyse(pos, card.index, vt, pts, 0)[1]
        pos.put(cell, card.index, pts)
        cells.append(cell)
    return cells


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), table=st.sampled_from(["american", "british"]))
def test_the_reading_is_the_direct_computation(seed: int, table: str) -> None:
    rng = random.Random(seed)
    cards = shuffled_deck(rng)[:CELLS]
    cells = some_placements(cards, rng, table)
    r = fairplay_reading.read(table, cards, cells)
    want = direct(table, cards, cells)
    assert len(want) == fairplay_reading.STEPS == len(r.came)
    for k, (came, pool, chosen) in enumerate(want):
        mean = sum(pool) / len(pool)
        var = sum((v - mean) ** 2 for v in pool) / len(pool)
        assert r.came[k] == pytest.approx(came, abs=1e-9)
        assert r.mean[k] == pytest.approx(mean, abs=1e-9)
        assert r.var[k] == pytest.approx(var, abs=1e-9)
        assert r.chosen[k] == pytest.approx(chosen, abs=1e-9)
        assert r.regret[k] >= -1e-9
    assert r.chosen[-1] == r.total  # the last card's value is the score itself
    assert r.par == fairplay_reading.par(table, cards)


def test_the_engine_gives_nothing_away_and_scores_its_par() -> None:
    cards = shuffled_deck(random.Random(11))[:CELLS]
    vt = load_values("american")
    pts = line_points("american")
    pos = Position()
    cells = []
    for card in cards:
        pos.see(card.index)
        cell = analyse(pos, card.index, vt, pts, 0)[1]
        pos.put(cell, card.index, pts)
        cells.append(cell)
    r = fairplay_reading.read("american", cards, cells)
    assert r.total == r.par == pos.total
    assert float(r.regret.max()) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("table", ["american", "british"])
def test_the_shipped_models_read_this_checks_features(table: str) -> None:
    model = fairplay.load_model(table)
    n = len(fairplay.feature_names())
    assert model.table == table
    assert model.center.shape == model.scale.shape == model.weights.shape == (n,)
    assert (model.scale > 0).all()
    again = fairplay.parse_model(model.to_json({"test": True}))
    assert again.threshold == pytest.approx(model.threshold, abs=1e-6)


def test_a_bad_deal_is_refused() -> None:
    cards = shuffled_deck(random.Random(1))[:CELLS]
    with pytest.raises(ValueError):
        fairplay_reading.read("american", cards, list(range(24)))
