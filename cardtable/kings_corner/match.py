"""`Match`: 1, 3 or 5 rounds with the first seat rotating and penalties adding up (KC-21,
KC-22). Immutable: `play`, `undo` and `next_round` return new matches.

Round k (0-based) is dealt from a seed derived from the match seed, and its first seat is
``(first + k) % players`` where ``first`` is drawn from the match seed (KC-2). A match
with a fair seed (docs/fairness.md) deals round k+1 from `fairness.round_fair` of it instead,
and its view carries the round's ``fairness``: the commitment, and the seed and salt once
the round is over.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from cardtable.fairness import Fair, FairnessError, check_seed, round_fair
from cardtable.interface import Event

from . import engine
from .deal import deal
from .moves import Move
from .rules import Rules, RulesError
from .state import State, StateError
from .view import view as state_view

FORMAT = "kings-corner-match/1"
ROUNDS = (1, 3, 5)


class MatchError(ValueError):
    """A bad match setting, a saved match that does not load, or a step out of order."""


class RoundResult(NamedTuple):
    """One finished round: penalties per seat, winning seats, ending ("out"/"blocked")."""

    penalties: tuple[int, ...]
    winners: tuple[int, ...]
    ending: str

    def to_dict(self) -> dict[str, Any]:
        return {"penalties": list(self.penalties), "winners": list(self.winners),
                "ending": self.ending}  # fmt: skip


def _result(state: State) -> RoundResult | None:
    if state.penalties is None or state.winners is None or state.ending is None:
        return None
    return RoundResult(state.penalties, state.winners, state.ending)


class Match:
    """A match in progress. ``state`` is the current round; ``results`` holds the penalties
    of every finished round (the current one included once it is over) and
    ``round_results`` the same rounds as `RoundResult` records."""

    __slots__ = ("_fair", "_past", "_players", "_rounds", "_rules", "_seed", "_state")

    def __init__(
        self, players: int, rules: Rules, rounds: int, seed: int, fair_seed: str | None = None
    ) -> None:
        if rounds not in ROUNDS:
            raise MatchError(f"a match has 1, 3 or 5 rounds, got {rounds!r}")
        if not isinstance(players, int) or not 2 <= players <= 4:
            raise MatchError(f"Kings Corner needs 2-4 players, got {players!r}")
        if not isinstance(seed, int):
            raise MatchError(f"seed must be an integer, got {seed!r}")
        if fair_seed is not None:
            try:
                check_seed(fair_seed)
            except FairnessError as e:
                raise MatchError(f"fair_seed: {e}") from None
        self._fair = fair_seed
        self._players = players
        self._rules = rules
        self._rounds = rounds
        self._seed = seed
        self._past: tuple[RoundResult, ...] = ()
        self._state = self._deal(0)

    def _deal(self, k: int) -> State:
        rng = random.Random(self._seed)
        first = rng.randrange(self._players)
        seeds = [rng.getrandbits(63) for _ in range(self._rounds)]
        fair = None if self._fair is None else round_fair(self._fair, k + 1)
        return deal(
            self._players, self._rules, seeds[k], first=(first + k) % self._players, fair=fair
        )

    @property
    def round_fair(self) -> Fair | None:
        """The current round's fair seed and salt; None for a match from an integer seed."""
        return None if self._fair is None else round_fair(self._fair, self.round)

    def _with(self, past: tuple[RoundResult, ...], state: State) -> Match:
        m = object.__new__(Match)
        m._fair = self._fair
        m._players, m._rules, m._rounds, m._seed = (
            self._players,
            self._rules,
            self._rounds,
            self._seed,
        )
        m._past = past
        m._state = state
        return m

    players = property(lambda self: self._players)
    rules = property(lambda self: self._rules)
    rounds = property(lambda self: self._rounds)
    seed = property(lambda self: self._seed)
    fair_seed = property(lambda self: self._fair)
    """The match's fair seed (never shown: `round_fair` derives each round's); None for a
    match from an integer seed."""

    @property
    def state(self) -> State:
        return self._state

    @property
    def round(self) -> int:
        """The current round, 1-based."""
        return len(self._past) + 1

    @property
    def round_results(self) -> tuple[RoundResult, ...]:
        current = _result(self._state)
        return self._past if current is None else (*self._past, current)

    @property
    def results(self) -> tuple[tuple[int, ...], ...]:
        return tuple(r.penalties for r in self.round_results)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r[i] for r in self.results) for i in range(self._players))

    @property
    def is_over(self) -> bool:
        return self.round == self._rounds and self._state.is_over

    @property
    def winners(self) -> tuple[int, ...] | None:
        """Seats with the lowest total once the match is over (ties share)."""
        if not self.is_over:
            return None
        totals = self.totals
        low = min(totals)
        return tuple(i for i, t in enumerate(totals) if t == low)

    def play(self, move: Move | str) -> Match:
        return self._with(self._past, engine.play(self._state, move))

    def play_events(self, move: Move | str) -> tuple[Match, list[Event]]:
        """`play`, and the round's events (see `engine.play_events`)."""
        state, events = engine.play_events(self._state, move)
        return self._with(self._past, state), events

    def undo(self) -> Match:
        return self._with(self._past, engine.undo(self._state))

    def next_round(self) -> Match:
        """Deal the next round; only once the current round is over and rounds remain."""
        current = _result(self._state)
        if current is None:
            raise MatchError("the current round is not over")
        if self.is_over:
            raise MatchError("the match is over")
        past = (*self._past, current)
        return self._with(past, self._deal(len(past)))

    def view(self, seat: int | None) -> dict[str, Any]:
        """The round's `view` for ``seat`` (None: a spectator) plus round, rounds, results,
        totals and the match result."""
        v = state_view(self._state, seat)
        v.update(
            round=self.round,
            rounds=self._rounds,
            results=[r.to_dict() for r in self.round_results],
            totals=list(self.totals),
            match_over=self.is_over,
            match_winners=None if self.winners is None else list(self.winners),
        )
        fair = self.round_fair
        if fair is not None:
            v["fairness"] = fair.public(self._state.is_over) | {"round": self.round}
        return v

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "players": self._players,
            "rules": self._rules.to_dict(),
            "rounds": self._rounds,
            "seed": self._seed,
            "results": [r.to_dict() for r in self._past],
            "state": self._state.to_dict(),
        } | ({} if self._fair is None else {"fair_seed": self._fair})

    @classmethod
    def from_dict(cls, d: Any) -> Match:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise MatchError(f"not a saved match (expected format {FORMAT!r})")
        try:
            # "fair_seed" is absent from matches saved before fair shuffles (not verifiable).
            m = cls(
                d["players"],
                Rules.from_dict(d["rules"]),
                d["rounds"],
                d["seed"],
                d.get("fair_seed"),
            )
            state = State.from_dict(d["state"])
        except (KeyError, RulesError, StateError) as e:
            raise MatchError(f"saved match does not load: {e}") from None
        raw = d.get("results")
        if not isinstance(raw, list) or len(raw) >= m._rounds:
            raise MatchError("results must list the finished earlier rounds")
        past = tuple(_load_result(r, m._players) for r in raw)
        if state.players != m._players or state.rules != m._rules:
            raise MatchError("the round's players or rules differ from the match")
        return m._with(past, state)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Match) and (
            self._players,
            self._rules,
            self._rounds,
            self._seed,
            self._fair,
            self._past,
            self._state,
        ) == (
            other._players,
            other._rules,
            other._rounds,
            other._seed,
            other._fair,
            other._past,
            other._state,
        )

    def __hash__(self) -> int:
        return hash((self._seed, self._past, self._state))

    def __repr__(self) -> str:
        return f"<kings_corner.Match round {self.round}/{self._rounds}, totals {self.totals}>"


def _load_result(r: Any, players: int) -> RoundResult:
    if not isinstance(r, dict) or set(r) != {"penalties", "winners", "ending"}:
        raise MatchError(f"each result needs penalties, winners and ending: {r!r}")
    pens, winners, ending = r["penalties"], r["winners"], r["ending"]
    if not (isinstance(pens, list) and len(pens) == players):
        raise MatchError(f"each result needs one penalty per seat: {r!r}")
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pens):
        raise MatchError(f"penalties are non-negative integers: {r!r}")
    low = min(pens)
    if winners != [i for i, p in enumerate(pens) if p == low] or ending not in ("out", "blocked"):
        raise MatchError(f"winners must be the lowest penalties, ending out or blocked: {r!r}")
    return RoundResult(tuple(pens), tuple(winners), ending)
