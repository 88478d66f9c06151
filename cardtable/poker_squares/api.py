"""Poker Squares through the one game interface (`cardtable.interface.GameEngine`).

Rules header
------------
One player, one seat (0). Twenty-five cards of a shuffled deck are turned one at a time;
each goes on an empty cell of a 5x5 grid and never moves again. When the grid is full the
five rows and five columns each score as a poker hand (American or British points).

Moves and options
-----------------
A move is a cell in the notation of `moves` (``"c4"``: column c, row 4). Options:
``{"table": "american" | "british", "target": "easy" | "normal" | "hard", "replay": bool,
"fair": {"seed": hex, "salt": hex, "withheld": bool}}`` (defaults: American, normal, not a
replay, an integer seed; a replay of an earlier deal is practice; with ``fair`` the deal comes
from that server seed by the shuffle of docs/fairness.md and the view carries its
``fairness``; a withheld seed, the daily deal's, stays out of the view even after the deal).
Undo
takes back the last placement and makes the deal practice.

Hidden information: only the order of the cards still to come (every card after the one on
show) and, until the deal is over, a fair deal's seed and salt (which name that order); the
spectator sees what the player sees, without moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from cardtable.cards import DECK
from cardtable.fairness import Fair
from cardtable.interface import JSON, Event
from cardtable.poker_squares import game as rules
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.moves import ALL, Move


class PokerSquares:
    """The `GameEngine` for Poker Squares; use the shared instance `ENGINE`."""

    name = "poker-squares"
    example_options: Sequence[Mapping[str, Any]] = (
        {},
        {"table": "british", "target": "hard"},
        {"table": "american", "target": "easy"},
    )

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def move_space(self, state: Game) -> Sequence[Move]:
        return ALL

    def new(self, seed: int, options: Mapping[str, Any] | None = None) -> Game:
        opts = dict(options or {})
        fair = opts.get("fair")
        return rules.deal(
            opts.get("table", "american"),
            seed,
            target=opts.get("target", "normal"),
            replay=bool(opts.get("replay", False)),
            fair=None if fair is None else Fair.load(fair),
        )

    def replay(
        self, seed: int, moves: Iterable[Move | str], options: Mapping[str, Any] | None = None
    ) -> Game:
        state = self.new(seed, options)
        for move in moves:
            state = rules.play(state, move)
        return state

    def seats(self, state: Game) -> int:
        return 1

    def to_play(self, state: Game) -> int | None:
        return None if state.is_over else 0

    def is_over(self, state: Game) -> bool:
        return state.is_over

    def legal_moves(self, state: Game) -> list[Move]:
        return rules.legal_moves(state)

    def play(self, state: Game, move: Move | str) -> Game:
        return rules.play(state, move)

    def play_events(self, state: Game, move: Move | str) -> tuple[Game, list[Event]]:
        after = rules.play(state, move)
        cell = str(Move.at(after.placements[-1]))
        events = [Event("place", 0, {"card": str(state.card), "cell": cell})]
        if after.card is not None:
            events.append(Event("card_turned", 0, {"card": str(after.card)}))
        else:
            events.append(
                Event(
                    "deal_over",
                    None,
                    {"total": after.total, "target_reached": after.target_reached},
                )
            )
        return after, events

    def undo(self, state: Game) -> Game:
        return rules.undo(state)

    def view(self, state: Game, seat: int | None) -> JSON:
        return rules.view(state, seat)

    def to_dict(self, state: Game) -> JSON:
        return state.to_dict()

    def from_dict(self, data: Any) -> Game:
        return Game.from_dict(data)

    def resample(self, state: Game, seat: int, rng: random.Random) -> Game:
        """The same deal up to the card on show; the cards after it are redrawn from the
        cards the player has not seen. The seeds (which would name them) are dropped."""
        shown = state.placed + (0 if state.is_over else 1)
        seen = set(state.cards[:shown])
        unseen = [c for c in DECK if c not in seen]
        rest = rng.sample(unseen, CELLS - shown)
        return replace(state, cards=(*state.cards[:shown], *rest), seed=None, fair=None)


ENGINE = PokerSquares()
