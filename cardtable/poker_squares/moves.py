"""A Poker Squares move (the cell the current card goes on) and its notation.

Notation: the column letter ``a``-``e`` (left to right) then the row number ``1``-``5`` (top
to bottom), as on a chess board read from the top: ``"a1"`` is the top-left cell, ``"e5"``
the bottom-right one, ``"c4"`` column c (the middle one), row 4. Parsing ignores case and
surrounding spaces; ``Move.parse(str(m)) == m``. Text that names no cell raises `MoveError`;
a cell that is already filled is a well-formed move the rules refuse (`IllegalMove`, raised
by `game.play`).

>>> m = Move.parse("c4")
>>> (m.row, m.col), str(m), m
((3, 2), 'c4', Move.parse('c4'))
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.interface import MoveError

SIZE = 5
COLUMNS = "abcde"


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """Put the current card on ``row`` and ``col`` (both 0-4, row 0 at the top)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        for name, v in (("row", self.row), ("column", self.col)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < SIZE:
                raise MoveError(f"{name} must be 0-4, got {v!r}")

    @property
    def cell(self) -> int:
        """The cell index, row-major (``row * 5 + col``)."""
        return self.row * SIZE + self.col

    @classmethod
    def at(cls, cell: int) -> Move:
        """The move for a row-major cell index 0-24."""
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < SIZE * SIZE:
            raise MoveError(f"a cell index is 0-24, got {cell!r}")
        return ALL[cell]

    @classmethod
    def parse(cls, text: str) -> Move:
        """``"c4"``: column letter a-e, then row number 1-5."""
        if not isinstance(text, str):
            raise MoveError(f"not a move: {text!r}")
        norm = text.strip().lower()
        move = _BY_TEXT.get(norm)
        if move is None:
            raise MoveError(
                f"not a cell: {text!r} (a column letter a-e then a row number 1-5, e.g. 'c4')"
            )
        return move

    def __str__(self) -> str:
        return f"{COLUMNS[self.col]}{self.row + 1}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


ALL: tuple[Move, ...] = tuple(Move(cell // SIZE, cell % SIZE) for cell in range(SIZE * SIZE))
_BY_TEXT: dict[str, Move] = {str(m): m for m in ALL}
