"""`State`: one round of Kings Corner at one moment, immutable.

Inside, cards are engine numbers (`Card.index`) in tuples; the public properties give `Card`
values. Build states with `deal`, `setup`, `from_view` or `State.from_dict`, and change them
only through `play` / `undo` (module ``engine``), which return new states.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cardtable.cards import Card

from . import save
from ._tables import CARDS, PENALTY, PILE_NAMES
from .position import BLOCKED as BLOCKED
from .position import RUNNING as RUNNING
from .position import WENT_OUT as WENT_OUT
from .position import Hand as Hand
from .position import Piles as Piles
from .position import Snapshot as Snapshot
from .position import StateError as StateError
from .rules import Rules


def penalty(cards: Iterable[Card]) -> int:
    """The penalty of cards left in a hand: 1 per card, 10 per King (KC-21)."""
    return sum(PENALTY[c.index] for c in cards)


class State:
    """A round in progress or finished. Equal states compare equal (including undo history).

    Attributes: ``rules``, ``players``, ``to_play``, ``turn`` (1 at the deal, +1 per "end"),
    ``hands`` (per seat, tuples of `Card`), ``piles`` (name -> tuple head..tail), ``stock``
    (next card first), ``is_over``, ``penalties`` and ``winners`` (None until over),
    ``can_undo``, ``ending`` ("out", "blocked" or None), ``last_draw`` ((seat, card) or None).
    """

    __slots__ = (
        "_drawn",
        "_hands",
        "_outcome",
        "_piles",
        "_players",
        "_rules",
        "_stock",
        "_to_play",
        "_turn",
        "_undo",
    )

    def __init__(
        self,
        rules: Rules,
        players: int,
        to_play: int,
        turn: int,
        hands: tuple[Hand, ...],
        piles: Piles,
        stock: Hand,
        undo: tuple[Snapshot, ...] = (),
        outcome: int = RUNNING,
        drawn: tuple[int, int] | None = None,
    ) -> None:
        # Low-level: takes engine card numbers and does not validate. Use setup/from_dict.
        self._rules = rules
        self._players = players
        self._to_play = to_play
        self._turn = turn
        self._hands = hands
        self._piles = piles
        self._stock = stock
        self._undo = undo
        self._outcome = outcome
        self._drawn = drawn

    # -- public, read-only -------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def players(self) -> int:
        return self._players

    @property
    def to_play(self) -> int:
        return self._to_play

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(CARDS[c] for c in h) for h in self._hands)

    @property
    def piles(self) -> dict[str, tuple[Card, ...]]:
        return {n: tuple(CARDS[c] for c in p) for n, p in zip(PILE_NAMES, self._piles, strict=True)}

    @property
    def stock(self) -> tuple[Card, ...]:
        return tuple(CARDS[c] for c in self._stock)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._hands)

    @property
    def is_over(self) -> bool:
        return self._outcome != RUNNING

    @property
    def ending(self) -> str | None:
        return {RUNNING: None, WENT_OUT: "out", BLOCKED: "blocked"}[self._outcome]

    @property
    def penalties(self) -> tuple[int, ...] | None:
        """Per seat when over: 1 per card in hand, 10 per King (KC-21)."""
        if self._outcome == RUNNING:
            return None
        return tuple(sum(PENALTY[c] for c in h) for h in self._hands)

    @property
    def winners(self) -> tuple[int, ...] | None:
        """The seat that went out, or the seats sharing the lowest penalty when blocked."""
        pens = self.penalties
        if pens is None:
            return None
        low = min(pens)
        return tuple(i for i, p in enumerate(pens) if p == low)

    @property
    def can_undo(self) -> bool:
        return bool(self._undo) and self._outcome == RUNNING

    @property
    def last_draw(self) -> tuple[int, Card] | None:
        """The most recent draw: (seat, card). Private to that seat (see `view`)."""
        return None if self._drawn is None else (self._drawn[0], CARDS[self._drawn[1]])

    # -- value semantics ---------------------------------------------------------------
    def _key(self) -> tuple[Any, ...]:
        return (
            self._rules,
            self._players,
            self._to_play,
            self._turn,
            self._hands,
            self._piles,
            self._stock,
            self._undo,
            self._outcome,
            self._drawn,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        status = self.ending or f"seat {self._to_play} to play"
        return (
            f"<kings_corner.State turn {self._turn}, {status}, hands {list(self.hand_sizes)}, "
            f"stock {len(self._stock)}>"
        )

    # -- saving ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Versioned JSON-ready dict (``"format": "kings-corner/1"``), undo history included."""
        return save.dump(save.Fields(*self._key()))

    @classmethod
    def from_dict(cls, d: Any) -> State:
        """Load and validate a saved state; raises `StateError` with a reason."""
        return cls(*save.load(d))
