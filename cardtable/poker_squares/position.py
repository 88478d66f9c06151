"""Fast positions, the greedy evaluator policy and random playouts for the hint engine.

A `Position` is the player's knowledge as plain ints: the 25 cells (card index or -1), each
line's rank multiset id and suit state, and the unseen cards counted by rank and suit and as a
bit set. The greedy policy places a card where the learned line values (`abstract`) rise the
most; a playout deals a given sequence of unseen cards and plays them greedily to the end.
"""

from __future__ import annotations

from collections.abc import Sequence

from cardtable.poker_squares.abstract import (
    MIXED,
    MS_ADD,
    MS_EMPTY,
    MS_N,
    TB,
    ValueTable,
    line_key,
    line_points,
)

ROW_OF = [c // 5 for c in range(25)]
COL_OF = [5 + c % 5 for c in range(25)]
LINE_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(r * 5 + c for c in range(5)) for r in range(5)
) + tuple(tuple(r * 5 + c for r in range(5)) for c in range(5))
FULL_MASK = (1 << 52) - 1


class Position:
    """Grid plus unseen-card counts. Mutable; `copy` before a playout."""

    __slots__ = ("avail", "cells", "lms", "lst", "mask", "placed", "ru", "su", "total")

    def __init__(self) -> None:
        self.cells = [-1] * 25
        self.lms = [MS_EMPTY] * 10
        self.lst = [-1] * 10
        self.ru = [0] + [4] * 13
        self.su = [13] * 4
        self.mask = FULL_MASK
        self.avail = 0x1FFF
        self.placed = 0
        self.total = 0

    @classmethod
    def from_cells(cls, cells: Sequence[int], current: int, table: str) -> Position:
        """Position with the given cells filled; `current` (the card in hand) is seen."""
        pos = cls()
        pts = line_points(table)
        for cell, card in enumerate(cells):
            if card >= 0:
                pos.see(card)
                pos.put(cell, card, pts)
        pos.see(current)
        return pos

    def copy(self) -> Position:
        p = Position.__new__(Position)
        p.cells = self.cells[:]
        p.lms = self.lms[:]
        p.lst = self.lst[:]
        p.ru = self.ru[:]
        p.su = self.su[:]
        p.mask = self.mask
        p.avail = self.avail
        p.placed = self.placed
        p.total = self.total
        return p

    def see(self, card: int) -> None:
        """Remove a card from the unseen set (it has been turned)."""
        r = card % 13 + 1
        self.ru[r] -= 1
        self.su[card // 13] -= 1
        self.mask &= ~(1 << card)
        if self.ru[r] == 0:
            self.avail &= ~(1 << (r - 1))

    def put(self, cell: int, card: int, pts: list[int]) -> None:
        """Place a seen card on an empty cell, updating both lines and the running total."""
        self.cells[cell] = card
        self.placed += 1
        r = card % 13 + 1
        s = card // 13
        for li in (ROW_OF[cell], COL_OF[cell]):
            ms = MS_ADD[self.lms[li] * 14 + r]
            self.lms[li] = ms
            st = self.lst[li]
            st = s if st == -1 else (st if st == s else MIXED)
            self.lst[li] = st
            if MS_N[ms] == 5:
                self.total += pts[2 * ms + (st != MIXED)]

    def empties(self) -> list[int]:
        return [i for i, c in enumerate(self.cells) if c < 0]

    def unseen(self) -> list[int]:
        m = self.mask
        return [i for i in range(52) if m >> i & 1]


def line_deltas(
    pos: Position, card: int, vt: ValueTable, pts: list[int]
) -> tuple[list[float], float]:
    """Per line, the change of its learned value if `card` joins it (card already seen), and
    the sum of the incomplete lines' current values.

    Index 0-4 rows, 5-9 columns; full lines get a large negative number.
    """
    fine = vt.fine
    value = vt.value
    r = card % 13 + 1
    s = card // 13
    tb = TB[pos.placed]
    ru = pos.ru
    su = pos.su
    avail = pos.avail
    mask = pos.mask
    lms = pos.lms
    lst = pos.lst
    out = [-1e9] * 10
    current = 0.0
    for li in range(10):
        ms = lms[li]
        if MS_N[ms] == 5:
            continue
        is_col = 1 if li >= 5 else 0
        st = lst[li]
        k = line_key(is_col, tb, ms, st, ru, su, avail, mask)
        old = fine.get(k)
        if old is None:
            old = value(k)
        current += old
        ms2 = MS_ADD[ms * 14 + r]
        st2 = s if st == -1 else (st if st == s else MIXED)
        if MS_N[ms2] == 5:
            new = float(pts[2 * ms2 + (st2 != MIXED)])
        else:
            k = line_key(is_col, tb, ms2, st2, ru, su, avail, mask)
            v = fine.get(k)
            new = value(k) if v is None else v
        out[li] = new - old
    return out, current


def deltas(pos: Position, card: int, vt: ValueTable, pts: list[int]) -> list[float]:
    """Per line, the change of its learned value if `card` joins it (see `line_deltas`)."""
    return line_deltas(pos, card, vt, pts)[0]


def greedy_cell(pos: Position, card: int, vt: ValueTable, pts: list[int]) -> int:
    """The empty cell where the learned values rise the most (first such cell on ties)."""
    d = deltas(pos, card, vt, pts)
    best = -1
    bv = -1e18
    cells = pos.cells
    for cell in range(25):
        if cells[cell] < 0:
            v = d[ROW_OF[cell]] + d[COL_OF[cell]]
            if v > bv:
                bv = v
                best = cell
    return best


def playout(pos: Position, cards: Sequence[int], vt: ValueTable, pts: list[int]) -> int:
    """Deal `cards` in order onto `pos` (modified) with the greedy policy; the final total."""
    left = 25 - pos.placed
    for i in range(left):
        card = cards[i]
        pos.see(card)
        cell = pos.cells.index(-1) if left - i == 1 else greedy_cell(pos, card, vt, pts)
        pos.put(cell, card, pts)
    return pos.total


def exact_value(pos: Position, card: int, pts: list[int]) -> dict[int, float]:
    """Exact expected final total for each empty cell with at most 3 empty cells.

    `card` must already be seen. Every later card is equally likely to be any unseen card, and
    later choices are made optimally (expectimax).
    """
    out: dict[int, float] = {}
    for cell in pos.empties():
        nxt = pos.copy()
        nxt.put(cell, card, pts)
        out[cell] = _chance(nxt, pts)
    return out


def _chance(pos: Position, pts: list[int]) -> float:
    if pos.placed == 25:
        return float(pos.total)
    unseen = pos.unseen()
    total = 0.0
    for card in unseen:
        nxt = pos.copy()
        nxt.see(card)
        best = -1.0
        for cell in nxt.empties():
            child = nxt.copy()
            child.put(cell, card, pts)
            v = _chance(child, pts)
            if v > best:
                best = v
        total += best
    return total / len(unseen)


def unsee(pos: Position, card: int) -> None:
    """Undo `see(card)`: the card is unseen again."""
    r = card % 13 + 1
    pos.ru[r] += 1
    pos.su[card // 13] += 1
    pos.mask |= 1 << card
    pos.avail |= 1 << (r - 1)


def best_after(pos: Position, card: int, vt: ValueTable, pts: list[int]) -> float:
    """Value of the best greedy after-state for `card` (already seen): points of complete
    lines plus learned values of incomplete ones, maximised over the empty cells."""
    d, current = line_deltas(pos, card, vt, pts)
    base = float(pos.total) + current
    bv = -1e18
    cells = pos.cells
    for cell in range(25):
        if cells[cell] < 0:
            v = d[ROW_OF[cell]] + d[COL_OF[cell]]
            if v > bv:
                bv = v
    return base + bv


def lookahead(pos: Position, vt: ValueTable, pts: list[int]) -> float:
    """One-card expectimax from an after-state: the mean over every unseen next card of the
    best greedy after-state value (the final total if the grid is full)."""
    if pos.placed == 25:
        return float(pos.total)
    m = pos.mask
    total = 0.0
    n = 0
    for x in range(52):
        if m >> x & 1:
            pos.see(x)
            total += best_after(pos, x, vt, pts)
            unsee(pos, x)
            n += 1
    return total / n
