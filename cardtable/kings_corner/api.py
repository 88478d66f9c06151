"""Kings Corner through the one game interface (`cardtable.interface.GameEngine`): one round.

Rules header
------------
2-4 players, one 52-card deck. Each player gets 7 cards; four cards go face up at North,
East, South and West (the centre piles); the corners NE, SE, SW and NW start empty; the
rest is the stock. Cards build down by one rank in alternating colour (black 8 on red 9);
nothing goes on an Ace; an empty corner takes only a King; an empty centre pile any card
but a King. On a turn a player plays any number of cards (and, with pile moves on, whole
centre piles by their head) and then ends the turn. The round ends when a hand is empty
(that player wins) or when it is blocked: the stock is empty and nobody can place a card
or move a pile. Penalty: 1 per card left in hand, 10 per King; the lowest wins, ties
share. The four options (draw first or last, pile moves, kings first, dealt Kings to the
corners) and the presets are those of `Rules`; the package docstring has the details.

Moves and options
-----------------
A move is ``"9H>N"`` (a card from the hand onto a pile), ``"E>NW"`` (a whole centre pile
onto a pile) or ``"end"``; `move_space` is all 481 of them. Options: ``{"players": 2-4,
"rules": preset name | {option: value, ...}}`` (defaults: 2 players, ``"standard"``; an
option missing from a mapping keeps its standard value). The first seat comes from the seed.
Undo takes back the plays and pile moves of the current turn, never a draw or a hand-off.

Hidden information
------------------
Every other hand and the stock's order; a drawn card's face is private to the drawer (a
King drawn under draw-last goes face up to a corner). A spectator sees the piles, every
hand's size and the stock count. `resample` redeals exactly those hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cardtable.interface import JSON, Event

from . import engine
from .deal import deal, redeal_hidden
from .moves import ALL, Move
from .rules import Rules, RulesError
from .state import State
from .view import view


def options_of(options: Mapping[str, Any] | None) -> tuple[int, Rules]:
    """Players and rules from an options mapping (see the module docstring)."""
    opts = dict(options or {})
    unknown = set(opts) - {"players", "rules"}
    if unknown:
        raise RulesError(f"unknown Kings Corner options {sorted(map(str, unknown))}")
    return opts.get("players", 2), Rules.from_options(opts.get("rules", "standard"))


class KingsCorner:
    """The `GameEngine` for one round of Kings Corner; use the shared instance `ENGINE`."""

    name = "kings-corner"
    example_options: Sequence[Mapping[str, Any]] = (
        {"players": 2, "rules": "standard"},
        {"players": 3, "rules": "draw-last"},
        {"players": 4, "rules": "simple"},
        {
            "players": 3,
            "rules": {
                "draw": "last",
                "pile_moves": False,
                "kings": "first",
                "dealt_kings": "corner",
            },
        },
    )

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def move_space(self, state: State) -> Sequence[Move]:
        return ALL

    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> State:
        players, rules = options_of(options)
        return deal(players, rules, seed)

    def replay(
        self, seed: int, moves: Iterable[Move | str], options: Mapping[str, Any] | None = None
    ) -> State:
        state = self.new(seed, options)
        for move in moves:
            state = engine.play(state, move)
        return state

    def seats(self, state: State) -> int:
        return state.players

    def to_play(self, state: State) -> int | None:
        return None if state.is_over else state.to_play

    def is_over(self, state: State) -> bool:
        return state.is_over

    def legal_moves(self, state: State) -> list[Move]:
        return engine.legal_moves(state)

    def play(self, state: State, move: Move | str) -> State:
        return engine.play(state, move)

    def play_events(self, state: State, move: Move | str) -> tuple[State, list[Event]]:
        return engine.play_events(state, move)

    def undo(self, state: State) -> State:
        return engine.undo(state)

    def view(self, state: State, seat: int | None) -> JSON:
        return view(state, seat)

    def to_dict(self, state: State) -> JSON:
        return state.to_dict()

    def from_dict(self, data: Any) -> State:
        return State.from_dict(data)

    def resample(self, state: State, seat: int, rng: random.Random) -> State:
        """The other hands and the stock redealt at random (see `deal.redeal_hidden`)."""
        return redeal_hidden(state, seat, rng)


ENGINE = KingsCorner()
