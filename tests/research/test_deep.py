"""The third card of the review-setting experiment (issue 31, `research/ps_deep.py`): with
four cells empty and every cell tried, `look3` is the exact expectimax to the end of the deal;
the choice keeps the shipped search's cell where the third card is not searched; the script's
compare plays the deals and reports them."""

from __future__ import annotations

import random
from functools import cache

import pytest

from cardtable.poker_squares.hint import INTERACTIVE_BUDGET
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse, cell_classes
from research import ps_deep


def played(deck: list[int], n: int, table: str) -> Position:
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    for card in deck[:n]:
        pos.see(card)
        _, cell = analyse(pos, card, vt, pts, 0)
        pos.put(cell, card, pts)
    return pos


def exact(pos: Position, pts: list[int]) -> float:
    """Expectimax over every remaining card and cell of an after-state (brute force)."""

    @cache
    def value(cells: tuple[int, ...]) -> float:
        q = rebuild(cells)
        if q.placed == 25:
            return float(q.total)
        xs = [c for c in range(52) if q.mask >> c & 1]
        total = 0.0
        for x in xs:
            best = -1e18
            for cell in q.empties():
                nxt = list(cells)
                nxt[cell] = x
                best = max(best, value(tuple(nxt)))
            total += best
        return total / len(xs)

    seen = [c for c in range(52) if not pos.mask >> c & 1]
    placed = set(pos.cells)

    def rebuild(cells: tuple[int, ...]) -> Position:
        q = Position()
        for card in seen:
            q.see(card)
        for card in cells:
            if card >= 0 and card not in placed:
                q.see(card)
        for cell, card in enumerate(cells):
            if card >= 0:
                q.put(cell, card, pts)
        return q

    return value(tuple(pos.cells))


def test_look3_with_four_cells_empty_is_exact() -> None:
    table = "british"
    deck = random.Random(12).sample(range(52), 25)
    vt = load_values(table)
    pts = line_points(table)
    pos = played(deck, 21, table)
    card = deck[21]
    pos.see(card)
    assert len(pos.empties()) == 4
    for cell in pos.empties()[::3]:  # two of the four (a brute force costs seconds)
        after = pos.copy()
        after.put(cell, card, pts)
        want = exact(after, pts)
        got = ps_deep.look3(pos, card, cell, vt, pts, width_x=4, width_y=4)
        assert got == pytest.approx(want, abs=1e-9)


def test_choose_keeps_the_shipped_cell_outside_its_window() -> None:
    deck = random.Random(13).sample(range(52), 25)
    vt = load_values("american")
    pts = line_points("american")
    for n in (0, 5, 22):  # 25, 20 and 3 cells empty: more than max_empty, or exact already
        pos = played(deck, n, "american")
        card = deck[n]
        pos.see(card)
        shipped = analyse(pos, card, vt, pts, INTERACTIVE_BUDGET)
        assert ps_deep.choose(pos, card, vt, pts, 2, 3, 2, 16) == shipped[1]
    pos = played(deck, 18, "american")  # 7 empty: the best two are searched
    card = deck[18]
    pos.see(card)
    est, _ = analyse(pos, card, vt, pts, INTERACTIVE_BUDGET)
    reps = sorted(cell_classes(pos), key=lambda c: (-est[c], c))  # one cell per class
    chosen = ps_deep.choose(pos, card, vt, pts, 2, 3, 2, 16)
    deep = {c: ps_deep.look3(pos, card, c, vt, pts, 3, 2) for c in reps[:2]}
    assert chosen == max(deep, key=lambda c: (deep[c], -c))


def test_compare_prints_each_deal_and_the_paired_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ps_deep.main(["compare", "--table", "british", "--first", "3", "--limit", "1",
                  "--max-empty", "5"])  # fmt: skip
    out, err = capsys.readouterr()
    ident, b, a = out.split()
    assert ident == "3" and abs(int(b) - int(a)) < 200
    assert "paired difference" in err and "games 1" in err
