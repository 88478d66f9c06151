"""Moves, their text notation, and the two errors a move can raise.

Notation (``Move.parse(str(m)) == m``):

- ``"9H>N"``: play the 9 of hearts from the hand onto pile N;
- ``"E>NW"``: move the whole centre pile E onto pile NW (or into NW when it is empty);
- ``"end"``: end the turn (under draw-last this draws).

`MoveError` means the text or value is not a move at all; `IllegalMove` means a well-formed
move that the rules forbid in the position (``.reason`` in words, ``.key`` and ``.params``
for a translated message, see `reasons`). Both are the shared errors of every game,
defined once in `cardtable.interface` and re-exported here. Neither is a subclass of the other.

Each move also has an integer code (``Move.code``), the engine's own numbering:
``END_CODE`` (0), ``PLACE_BASE + card * 8 + pile`` for a play, ``SHIFT_BASE + source * 8 +
target`` for a pile move; `by_code` gives the shared `Move` for a code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardtable.cards import Card, CardError
from cardtable.interface import Event, IllegalMove, MoveError

from ._tables import CARDS, PILE_INDEX, PILE_NAMES

__all__ = [
    "ALL",
    "END",
    "END_CODE",
    "PLACE",
    "PLACE_BASE",
    "SHIFT",
    "SHIFT_BASE",
    "Event",
    "IllegalMove",
    "Move",
    "MoveError",
    "by_code",
]

END_CODE = 0
PLACE_BASE = 1  # 1 + card * 8 + pile
SHIFT_BASE = 512  # 512 + source * 8 + target


@dataclass(frozen=True, slots=True)
class Move:
    """A play (``card`` and ``target``), a pile move (``source`` and ``target``) or the end
    of the turn (all three None). Prefer `Move.parse`, `Move.place`, `Move.shift`, `END`."""

    card: Card | None = None
    source: str | None = None
    target: str | None = None
    code: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.card is None and self.source is None and self.target is None:
            code = END_CODE
        elif self.target not in PILE_INDEX:
            raise MoveError(f"not a pile: {self.target!r} (piles are {' '.join(PILE_NAMES)})")
        elif self.card is not None and self.source is None:
            if not isinstance(self.card, Card):
                raise MoveError(f"not a card: {self.card!r}")
            code = PLACE_BASE + self.card.index * 8 + PILE_INDEX[self.target]
        elif self.card is None and self.source in PILE_INDEX:
            code = SHIFT_BASE + PILE_INDEX[self.source] * 8 + PILE_INDEX[self.target]
        else:
            raise MoveError(
                f"a move names a card or a source pile, not both: {self.card!r}, {self.source!r}"
            )
        object.__setattr__(self, "code", code)

    @property
    def is_end(self) -> bool:
        return self.code == END_CODE

    @property
    def is_pile_move(self) -> bool:
        return self.code >= SHIFT_BASE

    @property
    def is_play(self) -> bool:
        return END_CODE < self.code < SHIFT_BASE

    @classmethod
    def place(cls, card: Card | str, pile: str) -> Move:
        c = card if isinstance(card, Card) else _parse_card(card)
        return cls(card=c, target=pile)

    @classmethod
    def shift(cls, source: str, target: str) -> Move:
        return cls(source=source, target=target)

    @classmethod
    def end(cls) -> Move:
        return END

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse ``"9H>N"``, ``"E>NW"`` or ``"end"`` (case-insensitive; ``10H`` is ``TH``)."""
        if not isinstance(text, str):
            raise MoveError(f"not a move: {text!r}")
        norm = text.strip().upper()
        move = _BY_TEXT.get(norm)
        if move is not None:
            return move
        left, sep, right = norm.partition(">")
        if sep and right in PILE_INDEX and left not in PILE_INDEX:
            card = _parse_card(left)
            return _BY_TEXT[f"{card}>{right}"]
        raise MoveError(f"not a move: {text!r} (expected e.g. '9H>N', 'E>NW' or 'end')")

    def __str__(self) -> str:
        if self.code == END_CODE:
            return "end"
        if self.card is not None:
            return f"{self.card}>{self.target}"
        return f"{self.source}>{self.target}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def _parse_card(text: str) -> Card:
    try:
        return Card.parse(text)
    except CardError as e:
        raise MoveError(str(e)) from None


END = Move()

# Every well-formed move, built once; the engine hands out these shared objects.
PLACE: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(card=CARDS[c], target=p) for p in PILE_NAMES) for c in range(52)
)
SHIFT: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(source=s, target=t) for t in PILE_NAMES) for s in PILE_NAMES
)
_BY_TEXT: dict[str, Move] = {"END": END}
for _row in (*PLACE, *SHIFT):
    for _m in _row:
        _BY_TEXT[str(_m)] = _m


ALL: tuple[Move, ...] = (END, *(m for row in (*PLACE, *SHIFT) for m in row))
"""Every well-formed move (481): "end", the 416 plays, the 64 pile moves."""

# The same tables as PLACE and SHIFT holding codes instead of moves (for `engine.generate`).
PLACE_CODE: tuple[tuple[int, ...], ...] = tuple(tuple(m.code for m in row) for row in PLACE)
SHIFT_CODE: tuple[tuple[int, ...], ...] = tuple(tuple(m.code for m in row) for row in SHIFT)


def by_code(code: int) -> Move:
    """The shared Move object for an engine move code."""
    if code == END_CODE:
        return END
    if code < SHIFT_BASE:
        c, p = divmod(code - PLACE_BASE, 8)
        return PLACE[c][p]
    s, t = divmod(code - SHIFT_BASE, 8)
    return SHIFT[s][t]
