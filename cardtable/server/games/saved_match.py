"""A Kings Corner table as the server keeps it: the engine's `Match` plus who sits where, whose
hand is shown, and the recent steps. Pure (no I/O); the routes load, change and save it.

Phases (docs/api.md): ``play`` (a person's turn, hand shown), ``handoff`` (another person on
this device is next: hands stay hidden until ``reveal``), ``computer`` (a computer seat is to
move; the page asks for one step at a time), ``round_over`` and ``match_over``. With a single
person at the table their hand is always shown; with several, ending a turn hides it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from cardtable import kings_corner as kc

FORMAT = "cardtable-server/kings-corner/1"
MAX_COMPUTER_STEPS = 200
"""A computer turn longer than this is ended by the server (a guard; real turns are short)."""

SeatPlayer = tuple[str, str | None]  # ("human", None) or ("computer", strength)
MoveEntry = dict[str, Any]


class SavedMatchError(ValueError):
    """A saved table that does not load."""


class Played(NamedTuple):
    """One step played at a table: the new table, its log entries, the engine's events."""

    table: SavedMatch
    entries: list[MoveEntry]
    events: list[kc.Event]


@dataclass(frozen=True)
class SavedMatch:
    match: kc.Match
    seats: tuple[SeatPlayer, ...]
    revealed: int | None
    """The person whose hand is on show; None while every hand is hidden."""
    log: tuple[MoveEntry, ...] = ()
    """Recent steps, newest last: {"seat", "move", "turn", "round"}."""
    steps: int = 0
    """Computer steps taken so far in the current turn (seeds the computer's choices)."""

    # -- building ----------------------------------------------------------------------
    @classmethod
    def new(
        cls,
        seats: tuple[SeatPlayer, ...],
        rules: kc.Rules,
        rounds: int,
        seed: int,
        fair_seed: str | None = None,
    ) -> SavedMatch:
        match = kc.Match(len(seats), rules, rounds, seed, fair_seed)
        return cls(match, seats, _first_shown(seats, match))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "match": self.match.to_dict(),
            "seats": [{"kind": k, "strength": s} for k, s in self.seats],
            "revealed": self.revealed,
            "log": list(self.log),
            "steps": self.steps,
        }

    @classmethod
    def from_dict(cls, d: Any) -> SavedMatch:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise SavedMatchError(f"not a saved Kings Corner table (expected {FORMAT!r})")
        try:
            match = kc.Match.from_dict(d["match"])
            seats = tuple((s["kind"], s["strength"]) for s in d["seats"])
            return cls(match, seats, d["revealed"], tuple(d["log"]), int(d["steps"]))
        except (KeyError, TypeError, kc.MatchError) as exc:
            raise SavedMatchError(f"saved table does not load: {exc}") from None

    # -- what the page sees ------------------------------------------------------------
    @property
    def humans(self) -> list[int]:
        return [i for i, (kind, _) in enumerate(self.seats) if kind == "human"]

    @property
    def phase(self) -> str:
        state = self.match.state
        if self.match.is_over:
            return "match_over"
        if state.is_over:
            return "round_over"
        if self.seats[state.to_play][0] == "computer":
            return "computer"
        return "play" if self.revealed == state.to_play else "handoff"

    @property
    def viewer(self) -> int | None:
        return None if self.phase == "handoff" else self.revealed

    def view(self) -> dict[str, Any]:
        """The engine's view for the viewer; with no viewer, the spectator's (no hand). A fair
        match adds the round's ``fairness`` (seed and salt once the round is over)."""
        view = kc.ENGINE.view(self.match.state, self.viewer)
        fair = self.match.round_fair
        if fair is not None:
            view["fairness"] = fair.public(self.match.state.is_over) | {"round": self.match.round}
        return view

    # -- changes -----------------------------------------------------------------------
    def played(self, seat: int, move: kc.Move | str, *, computer: bool) -> Played:
        """The table after ``seat`` plays ``move`` (raises the engine's errors), the log
        entries it adds, and the engine's events."""
        before = self.match
        match, events = before.play_events(move)
        entries = [self._entry(seat, str(move), before)]
        # A King drawn under draw-last goes straight to a corner: log it (it is on the table).
        entries += [
            self._entry(seat, f"draw-king {e.public['pile']}", before)
            for e in events
            if e.kind == "king_to_corner"
        ]
        revealed = self.revealed
        if str(move) == "end" and len(self.humans) > 1:
            revealed = None  # the next person must not see this hand (KC-7)
        steps = self.steps + 1 if computer else self.steps
        if (match.round, match.state.turn) != (before.round, before.state.turn):
            steps = 0
        log = (*self.log, *entries)
        table = replace(self, match=match, revealed=revealed, log=log, steps=steps)
        return Played(table, entries, events)

    def undone(self) -> SavedMatch:
        match = self.match.undo()
        log = self.log
        last = log[-1] if log else None
        if (
            last is not None
            and last["move"] != "end"
            and (last["seat"], last["turn"], last["round"])
            == (match.state.to_play, match.state.turn, match.round)
        ):
            log = log[:-1]
        return replace(self, match=match, log=log)

    def revealed_to(self) -> SavedMatch:
        return replace(self, revealed=self.match.state.to_play)

    def next_round(self) -> SavedMatch:
        match = self.match.next_round()
        # The log shows the current round only: the cards it names are on this round's piles.
        shown = _first_shown(self.seats, match)
        return replace(self, match=match, revealed=shown, log=(), steps=0)

    def trimmed(self, keep: int) -> SavedMatch:
        return replace(self, log=self.log[-keep:]) if len(self.log) > keep else self

    def computer_rng(self) -> random.Random:
        """Reproducible choices: the same match, round, turn and step, the same randomness."""
        m = self.match
        return random.Random(f"{m.seed}:{m.round}:{m.state.turn}:{self.steps}")

    def _entry(self, seat: int, move: str, match: kc.Match) -> MoveEntry:
        return {"seat": seat, "move": move, "turn": match.state.turn, "round": match.round}


def _first_shown(seats: tuple[SeatPlayer, ...], match: kc.Match) -> int | None:
    humans = [i for i, (kind, _) in enumerate(seats) if kind == "human"]
    return humans[0] if len(humans) == 1 else None
