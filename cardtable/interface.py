"""The one game interface every game implements, and the two errors a move can raise.

A game is a value implementing `GameEngine` (each game package exports one as ``ENGINE``;
`cardtable.registry` lists them). The server, the command line and the conformance suite
(``tests/conformance/``) use games only through it:

- ``parse_move(text)`` reads the game's move notation (`MoveError` when the text is not a
  move at all); ``str(move)`` writes it back, and ``parse_move(str(m)) == m``.
  ``move_space(state)`` lists every well-formed move for a game of that shape.
- ``new(seed, options)`` deals a fresh game from an explicit seed; ``replay(seed, moves,
  options)`` deals the same game and plays the moves, reproducing the state exactly.
- ``legal_moves(state)`` lists every legal move for the player to act; ``play(state, move)``
  returns the new state (`IllegalMove` when the rules refuse a well-formed move, and the
  state never changes); ``play_events`` also returns what happened, as `Event` values;
  ``undo(state)`` takes back what the rules allow to be taken back.
- ``view(state, seat)`` is everything ``seat`` may see, JSON-ready; ``seat=None`` is a
  spectator, who sees no hand. Hidden cards never appear in a view they are hidden from.
- ``to_dict`` / ``from_dict`` save and load a versioned JSON form, validated on load.
- ``resample(state, seat, rng)`` gives a state that ``seat`` cannot tell apart from
  ``state``: the cards hidden from it are redrawn. Tests use it to check that a view (and so
  a computer's choice or a hint) does not depend on hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

JSON = dict[str, Any]


class MoveError(ValueError):
    """Text (or a value) that is not a move in the game's notation at all."""


class IllegalMove(ValueError):
    """A well-formed move that the rules refuse in this position.

    ``reason`` is a sentence a person can read (English); ``key`` and ``params``, when set,
    name the same reason for a translated message (``key`` is a stable identifier such as
    ``"not_one_below"``)."""

    def __init__(
        self, reason: str, *, key: str | None = None, params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.key = key
        self.params: dict[str, Any] = dict(params or {})


@dataclass(frozen=True)
class Event:
    """One thing that happened when a move was played, as a game reports it.

    ``kind`` names it ("play", "pile_move", "draw", "king_to_corner", "round_over", ...);
    ``seat`` is the seat it concerns (None for the table). ``public`` is seen by everyone;
    ``private`` only by ``owner`` (a drawn card's face, say)."""

    kind: str
    seat: int | None = None
    public: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[str, Any] = field(default_factory=dict)
    owner: int | None = None

    def seen_by(self, seat: int | None) -> JSON:
        """The event as ``seat`` may see it (None: a spectator), JSON-ready."""
        out: JSON = {"kind": self.kind, "seat": self.seat, **self.public}
        if seat is not None and seat == self.owner:
            out.update(self.private)
        return out


S = TypeVar("S")
M = TypeVar("M")


class GameEngine(Protocol[S, M]):
    """What every game provides (see the module docstring). ``S`` is the game's immutable
    state, ``M`` its move value."""

    name: str
    """The game's identifier, e.g. ``"poker-squares"``."""
    example_options: Sequence[Mapping[str, Any]]
    """Option sets that together cover the game's variants (the conformance suite plays
    each); ``{}`` means the defaults."""

    def parse_move(self, text: str) -> M: ...

    def move_space(self, state: S) -> Sequence[M]:
        """Every well-formed move for a game of this shape, legal here or not (the
        conformance suite plays the others and expects `IllegalMove`)."""
        ...

    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> S: ...

    def replay(
        self, seed: int, moves: Iterable[M | str], options: Mapping[str, Any] | None = None
    ) -> S: ...

    def seats(self, state: S) -> int: ...

    def to_play(self, state: S) -> int | None:
        """The seat to act, or None when the game is over."""
        ...

    def is_over(self, state: S) -> bool: ...

    def legal_moves(self, state: S) -> list[M]: ...

    def play(self, state: S, move: M | str) -> S: ...

    def play_events(self, state: S, move: M | str) -> tuple[S, list[Event]]: ...

    def undo(self, state: S) -> S: ...

    def view(self, state: S, seat: int | None) -> JSON: ...

    def to_dict(self, state: S) -> JSON: ...

    def from_dict(self, data: Any) -> S: ...

    def resample(self, state: S, seat: int, rng: random.Random) -> S: ...
