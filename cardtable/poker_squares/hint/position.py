"""The hint engine's position: the player's knowledge of a Poker Squares deal as plain ints.

A `Position` holds the 25 cells (card index or -1), each line's rank multiset id and suit
state, the running total of complete lines, and the unseen cards counted by rank and suit and
as a bit set, so the search (`search`, `search_look`) and the trainer (`training.train`) touch
only ints and lists. Lines are numbered 0-4 for the rows and 5-9 for the columns (`ROW_OF`,
`COL_OF`).
"""

from __future__ import annotations

from collections.abc import Sequence

from cardtable.poker_squares.hint.abstract import MIXED, MS_ADD, MS_EMPTY, MS_N, line_points

ROW_OF = [c // 5 for c in range(25)]
COL_OF = [5 + c % 5 for c in range(25)]
FULL_MASK = (1 << 52) - 1


class Position:
    """Grid plus unseen-card counts. Mutable: `copy` before trying a placement."""

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
