"""An online table as the store keeps it, and every change to it. Pure: no I/O, no clock (each
change takes ``now``, epoch seconds), no randomness (a new match takes its seed).

A `Room` is the lobby's seats and settings, then the match: a `SavedMatch` (the saved
single-device match of `cardtable.server.games.saved_match`, reused as it is: the engine's
`Match`, the hand shown on a shared device, the recent log, the computer's reproducible
choices) plus who holds each seat, their connection, and three deadlines (docs/online.md "Timers"):

- ``step_at``: the next computer step (a computer seat, a stand-in for an away person, or the
  turn timer's computer finishing a turn), paced so that others watch it happen;
- each reconnecting seat's ``deadline``: its grace period's end (then it is away, and a
  computer of strength ``stand_in`` plays its turns until the person is back and their next
  turn starts);
- ``turn_deadline``: the turn timer (when set); at its end a computer plays the rest of that
  turn (``covering``).

A turn-based table (``Config.pace == "turn"``, docs/online.md "Turn-based tables") keeps
only the last two: its people are away most of the time, so a closed connection starts no
grace period and no stand-in takes a seat for absence; when a person's ``turn_deadline``
(hours or days) passes, the computer plays that one turn for them (a ``missed`` note) and the
seat counts the turns missed in a row (`Seat.missed`, back to 0 when the person plays). After
`MISSES_FOR_GOOD` of them the host may give the seat away (a computer for good, or someone
new).

Every change returns a new `Room` at ``version + 1`` (the store saves it with compare-and-set
on ``version``) or raises `Refused` with a stable code. `advance(now)` applies whatever is
due, one computer step at most, and returns None when nothing is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import STRENGTHS, choose_move
from cardtable.server.games.public import MAX_COMPUTER_STEPS, MoveEntry, SavedMatch

FORMAT = "cardtable-server/kings-corner-online/1"
EVENTS_KEPT = 64
"""Versions whose events a room keeps (a device further behind gets the table alone)."""
LOG_KEPT = 60
NOTES_KEPT = 40
"""Notes about seats (a drop, a return, a stand-in, a timer) a room keeps, newest last."""
MOVES_KEPT = 2000
"""Moves of one round a room keeps for its replay (real rounds take a few hundred at most;
a round beyond this cannot be replayed)."""
NOT_MOVES = ("reveal", "draw-king")
"""Log entries that are not moves (a King a draw-last draw put in a corner)."""
NOTE_KINDS = (
    "drop", "away", "back", "left", "timer", "handed", "reopened", "joined", "computer", "missed",
)  # fmt: skip
PACES = ("live", "turn")
"""A table's pace: ``live`` (everyone at the table; the grace period and the stand-in) or
``turn`` (turn-based: hours or days a turn, docs/online.md "Turn-based tables")."""
MISSES_FOR_GOOD = 3
"""Turns in a row a turn-based seat's person let run out before the host may give the seat
to the computer for good (or to someone new)."""
KINDS = ("person", "open", "computer")
CONNECTIONS = ("online", "reconnecting", "away")
SeatSpec = tuple[str, str | None, str | None]
"""A seat asked for at creation: (``"me"``/``"invite"``/``"local"``/``"computer"``,
strength for a computer, name for a local person)."""


class Refused(Exception):
    """A change the room does not allow; ``code`` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RoomError(ValueError):
    """A saved room that does not load."""


@dataclass(frozen=True)
class Config:
    """What the host chose, and the timings the room was made with."""

    players: int
    rules: kc.Rules
    rounds: int
    turn_timer: float | None
    grace: float
    stand_in: str
    step: float
    """Seconds before each computer move (`OnlineSettings.computer_step_seconds`)."""
    pace: str = "live"
    """`PACES`: ``turn`` needs a ``turn_timer`` (its seconds a turn)."""
    quick: bool = False
    """Made by the quick-play queue (docs/quickplay.md); False for a room saved before."""
    rated: bool = False
    """Counts for ratings (docs/rating.md); the queue decides it when it seats the table."""

    @property
    def turn_based(self) -> bool:
        return self.pace == "turn"

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "rules": self.rules.to_dict(),
            "rounds": self.rounds,
            "turn_timer": self.turn_timer,
            "grace": self.grace,
            "stand_in": self.stand_in,
            "step": self.step,
            "pace": self.pace,
            # The contract's name for the turn's length (`turn_timer` kept for old readers).
            "turn_seconds": self.turn_timer,
            "quick": self.quick,
            "rated": self.rated,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Config:
        timer = d["turn_timer"]
        config = cls(
            int(d["players"]),
            kc.Rules.from_dict(d["rules"]),
            int(d["rounds"]),
            None if timer is None else float(timer),
            float(d["grace"]),
            str(d["stand_in"]),
            float(d["step"]),
            str(d.get("pace", "live")),  # a room saved before there were paces: live
            quick=bool(d.get("quick", False)),  # rooms saved before quick play: neither
            rated=bool(d.get("rated", False)),
        )
        if config.pace not in PACES or (config.turn_based and timer is None):
            raise RoomError("bad pace")
        if config.stand_in not in STRENGTHS or not 2 <= config.players <= 4:
            raise RoomError("bad settings")
        return config


@dataclass(frozen=True)
class Seat:
    kind: str
    name: str | None = None
    strength: str | None = None
    player: str | None = None
    """The key of the device holding this seat (persons only)."""
    local: bool = False
    """A second person on the host's device (pass and play)."""
    connection: str | None = None
    deadline: float | None = None
    """When ``reconnecting`` turns into ``away``."""
    stand_in: bool = False
    rematch: bool = False
    missed: int = 0
    """Turns in a row the turn timer ran out on this person at a turn-based table."""

    @property
    def person(self) -> bool:
        return self.kind == "person"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "strength": self.strength,
            "player": self.player,
            "local": self.local,
            "connection": self.connection,
            "deadline": self.deadline,
            "stand_in": self.stand_in,
            "rematch": self.rematch,
            "missed": self.missed,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Seat:
        fields = {k: d[k] for k in cls.__dataclass_fields__ if k != "missed"}
        seat = cls(**fields, missed=int(d.get("missed", 0)))  # none before turn-based tables
        ok = (
            seat.kind in KINDS
            and (seat.kind == "computer") == (seat.strength in STRENGTHS)
            and (seat.kind == "person") == (seat.player is not None)
            and (seat.connection in CONNECTIONS if seat.person else seat.connection is None)
        )
        if not ok:
            raise RoomError(f"bad seat {d!r}")
        return seat


_EVENT_FIELDS = ("kind", "seat", "public", "private", "owner")


def _event_dict(e: kc.Event) -> dict[str, Any]:
    d = {name: getattr(e, name) for name in _EVENT_FIELDS}
    d["public"], d["private"] = dict(e.public), dict(e.private)
    return d


def _event(d: Mapping[str, Any]) -> kc.Event:
    return kc.Event(d["kind"], d["seat"], d["public"], d["private"], d["owner"])


@dataclass(frozen=True)
class Room:
    version: int
    config: Config
    seats: tuple[Seat, ...]
    host: int
    game: SavedMatch | None = None
    events: tuple[tuple[int, tuple[kc.Event, ...]], ...] = ()
    """(version, what happened in the change that made it), oldest first."""
    turn_deadline: float | None = None
    covering: int | None = None
    step_at: float | None = None
    log_total: int = 0
    """Log entries this round so far (numbers the log's ``n``)."""
    spectators: int = 0
    closed: bool = False
    """Everyone left the lobby: the room is over."""
    turn_key: tuple[int, int] | None = field(default=None)
    """(round, turn) the deadlines were set for."""
    invite: str | None = None
    """The token, kept only while the room code leads here (the code gives it away anyway);
    afterwards the store holds only its hash."""
    basis: int = 0
    """The version of the last change other than the spectator count: a request made at any
    version from this one on is current (`current`), so spectators coming and going never
    make a player's move stale. 0: the room's own version."""
    notes: tuple[dict[str, Any], ...] = ()
    """What happened to the seats during the match, for the log and the announcements
    (docs/online.md "The table's story"): ``{"v": version, "kind", "seat", "name",
    "round", "after"}``, ``after`` being the number of the last log entry before it."""
    moves: tuple[tuple[str, ...], ...] = ()
    """The moves of each round of the current match so far (undone moves taken out), for
    the replay of a finished round (docs/online.md "Replay"): the log keeps only the last
    `LOG_KEPT` entries. Empty for a match started before rooms kept them."""
    matches: int = 0
    """Matches dealt at this table (a rematch is a new one): names a match's replays."""

    # -- building ------------------------------------------------------------------------
    @classmethod
    def create(
        cls,
        config: Config,
        seats: Iterable[SeatSpec],
        player: str,
        name: str,
        now: float,
        invite: str | None = None,
    ) -> Room:
        out: list[Seat] = []
        for kind, strength, local_name in seats:
            if kind == "me":
                out.append(_person(player, name, now, config))
            elif kind == "local":
                out.append(replace(_person(player, local_name, now, config), local=True))
            elif kind == "computer":
                out.append(Seat("computer", strength=strength or "normal"))
            else:
                out.append(Seat("open"))
        if len(out) != config.players or out[0].player != player or out[0].local:
            raise Refused("invalid_request", "seat 0 is the creator's; 2-4 seats in all")
        return cls(1, config, tuple(out), 0, invite=invite, basis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "config": self.config.to_dict(),
            "seats": [s.to_dict() for s in self.seats],
            "host": self.host,
            "game": None if self.game is None else self.game.to_dict(),
            "events": [[v, [_event_dict(e) for e in es]] for v, es in self.events],
            "turn_deadline": self.turn_deadline,
            "covering": self.covering,
            "step_at": self.step_at,
            "log_total": self.log_total,
            "spectators": self.spectators,
            "closed": self.closed,
            "turn_key": None if self.turn_key is None else list(self.turn_key),
            "invite": self.invite if self.is_open else None,
            "basis": self.basis,
            "notes": [dict(n) for n in self.notes],
            "moves": [list(r) for r in self.moves],
            "matches": self.matches,
        }

    @classmethod
    def from_dict(cls, d: Any, version: int) -> Room:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise RoomError(f"not a saved online table (expected {FORMAT!r})")
        try:
            config = Config.from_dict(d["config"])
            seats = tuple(Seat.from_dict(s) for s in d["seats"])
            game = None if d["game"] is None else SavedMatch.from_dict(d["game"])
            events = tuple((int(v), tuple(_event(e) for e in es)) for v, es in d["events"])
            key = d["turn_key"]
            room = cls(
                version,
                config,
                seats,
                int(d["host"]),
                game,
                events,
                d["turn_deadline"],
                d["covering"],
                d["step_at"],
                int(d["log_total"]),
                int(d["spectators"]),
                bool(d["closed"]),
                None if key is None else (int(key[0]), int(key[1])),
                d["invite"],
                int(d.get("basis", version)),
                tuple(_note(n) for n in d.get("notes", [])),
                tuple(tuple(str(m) for m in r) for r in d.get("moves", [])),
                int(d.get("matches", 0)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise RoomError(f"saved online table does not load: {exc}") from None
        if len(seats) != config.players or room.host not in range(len(seats)):
            raise RoomError("seats do not match the settings")
        if game is not None and game.match.players != len(seats):
            raise RoomError("the match does not match the seats")
        return room

    # -- reading -------------------------------------------------------------------------
    @property
    def phase(self) -> str:
        game = self.game
        if game is None:
            return "lobby"
        if game.match.is_over:
            return "match_over"
        if game.match.state.is_over:
            return "round_over"
        seat = game.match.state.to_play
        if (
            not self.driven(seat)
            and len(self.seats_of(self.seats[seat].player)) > 1
            and game.revealed != seat
        ):
            return "handoff"
        return "play"

    @property
    def to_play(self) -> int | None:
        """The seat whose turn it is, while a round is being played."""
        game = self.game
        if game is None or game.match.state.is_over:
            return None
        return game.match.state.to_play

    @property
    def is_open(self) -> bool:
        """Its room code still leads here (until the match ends or everyone left)."""
        return not self.closed and self.phase != "match_over"

    def driven(self, seat: int) -> bool:
        """A computer moves for ``seat``: a computer seat, a stand-in, or the turn timer."""
        s = self.seats[seat]
        return s.kind == "computer" or s.stand_in or self.covering == seat

    def seats_of(self, player: str | None) -> list[int]:
        if player is None:
            return []
        return [i for i, s in enumerate(self.seats) if s.player == player]

    def is_host(self, player: str) -> bool:
        return self.seats[self.host].player == player

    def viewer(self, player: str | None) -> int | None:
        """Whose hand ``player``'s device shows: its only seat; on a shared device the
        revealed person, none at a hand-off."""
        mine = self.seats_of(player)
        if self.game is None or not mine:
            return None
        if len(mine) == 1:
            return mine[0]
        revealed = self.game.revealed
        return revealed if revealed in mine and self.phase != "handoff" else None

    @property
    def due_at(self) -> float | None:
        times = [t for t in (self.step_at, self.turn_deadline) if t is not None]
        times += [s.deadline for s in self.seats if s.deadline is not None]
        return min(times) if times else None

    def events_since(self, version: int) -> list[kc.Event]:
        return [e for v, es in self.events if v > version for e in es]

    def had(self, version: int) -> bool:
        """Whether the table has had ``version`` (a device's hello names the version it
        holds: any other gets the table alone, with no events)."""
        return 1 <= version <= self.version

    # -- lobby ---------------------------------------------------------------------------
    def join(self, player: str, name: str, seat: int | None, now: float) -> Room | None:
        """``player`` takes ``seat`` (or the first open one); None when they already sit."""
        if self.seats_of(player):
            return None
        open_seats = [i for i, s in enumerate(self.seats) if s.kind == "open"]
        playing = self.game is not None
        if self.closed or (playing and (not open_seats or self.phase == "match_over")):
            raise Refused("table_full", "the match has started: watch it as a spectator")
        if seat is None:
            if not open_seats:
                raise Refused("table_full", "every seat is taken")
            seat = open_seats[0]
        elif seat not in range(len(self.seats)):
            raise Refused("invalid_request", f"seat: 0-{len(self.seats) - 1}")
        elif seat not in open_seats:
            raise Refused("seat_taken", f"seat {seat} is taken")
        person = _person(player, name, now, self.config)
        if playing:
            # Mid-match the stand-in keeps the seat until the newcomer's device connects (and
            # finishes a turn it is in the middle of).
            person = replace(person, stand_in=True)
        room = self._next(seats=_put(self.seats, seat, person))
        if playing:
            room = room._noted("joined", [seat])
        return self._bumped(room._settled(now, moved=False))

    def leave(self, player: str, now: float) -> Room:
        mine = self.seats_of(player)
        if not mine:
            raise Refused("not_your_turn", "you hold no seat at this table")
        seats = list(self.seats)
        if self.phase == "lobby":
            for i in mine:
                seats[i] = Seat("open")
        else:
            for i in mine:
                seats[i] = replace(seats[i], connection="away", deadline=None, stand_in=True,
                                   rematch=False)  # fmt: skip
        room = self._next(seats=tuple(seats))
        if self.phase != "lobby":
            room = room._noted("left", [i for i in mine if not self.seats[i].local])
        if not any(s.person for s in room.seats):
            room = replace(room, closed=True)
        return self._bumped(room._pass_host()._settled(now, moved=False))

    def seat_computer(self, player: str, seat: int, strength: str, now: float) -> Room:
        """The host turns an open seat, or a person who is away, into a computer."""
        self._host_only(player)
        if seat not in range(len(self.seats)):
            raise Refused("invalid_request", f"seat: 0-{len(self.seats) - 1}")
        target = self.seats[seat]
        gone = target.connection == "away"
        if self.config.turn_based:
            # Away is how a turn-based table's people usually are: only missed turns count.
            gone = _given_up(target)
        if not (target.kind == "open" or (target.person and gone and target.player != player)):
            if self.config.turn_based and target.person and target.player != player:
                raise Refused(
                    "seat_taken",
                    f"only after {MISSES_FOR_GOOD} turns in a row ran out on this person",
                )
            raise Refused("seat_taken", "only an open seat or a person who is away")
        seats = _put(self.seats, seat, Seat("computer", strength=strength))
        game = self.game
        if game is not None:
            kinds = tuple(
                ("computer", s.strength) if s.kind == "computer" else ("human", None) for s in seats
            )
            game = replace(game, seats=kinds)
        room = self._next(seats=seats, game=game)
        if game is not None:
            room = room._noted("computer", [seat], names=self.seats)
        return self._bumped(room._settled(now, moved=False))

    def hand_to_computer(self, player: str, seat: int, now: float) -> Room:
        """The host does not wait for the grace period: the stand-in plays ``seat`` (a person
        on another device whose connection is gone) from now until they are back."""
        target = self._absent(player, seat)
        if target.stand_in or (target.connection == "away" and not self.config.turn_based):
            raise Refused("wrong_phase", "the computer already plays for this seat")
        seats = _put(self.seats, seat, replace(target, connection="away", deadline=None,
                                               stand_in=True))  # fmt: skip
        room = self._next(seats=seats)._noted("handed", [seat])
        return self._bumped(room._settled(now, moved=False))

    def reopen(self, player: str, seat: int, now: float) -> Room:
        """The host invites someone new into an absent person's seat: it is open again (the
        stand-in plays it meanwhile) and the absent device no longer holds it; whoever joins
        first with the table's link or room code takes it, the returning person included."""
        self._absent(player, seat)
        seats = _put(self.seats, seat, Seat("open", stand_in=True))
        room = self._next(seats=seats)._noted("reopened", [seat], names=self.seats)
        return self._bumped(room._settled(now, moved=False))

    def _absent(self, player: str, seat: int) -> Seat:
        """``seat`` for a host's action on an absent person during the match."""
        self._host_only(player)
        if seat not in range(len(self.seats)):
            raise Refused("invalid_request", f"seat: 0-{len(self.seats) - 1}")
        if self.game is None or self.phase == "match_over":
            raise Refused("wrong_phase", "only while the match is being played")
        target = self.seats[seat]
        if self.config.turn_based:
            if not target.person or target.player == player:
                raise Refused("seat_taken", "only a person on another device")
            if not _given_up(target):
                raise Refused(
                    "seat_taken",
                    f"only after {MISSES_FOR_GOOD} turns in a row ran out on this person",
                )
            return target
        if not target.person or target.player == player or target.connection == "online":
            raise Refused("seat_taken", "only a person on another device whose connection is gone")
        return target

    def start(self, player: str, seed: int, now: float, fair_seed: str | None = None) -> Room:
        self._host_only(player)
        if self.phase != "lobby":
            raise Refused("wrong_phase", "the match has already started")
        if any(s.kind == "open" for s in self.seats):
            raise Refused("wrong_phase", "every seat needs a person or a computer first")
        return self._bumped(self._new_match(seed, now, fair_seed))

    def _new_match(self, seed: int, now: float, fair_seed: str | None) -> Room:
        """A new match: ``seed`` draws who starts; with ``fair_seed`` every round is dealt by
        the provably fair shuffle (docs/fairness.md), else from ``seed`` (tests)."""
        kinds = tuple(
            ("computer", s.strength) if s.kind == "computer" else ("human", None)
            for s in self.seats
        )
        game = SavedMatch.new(kinds, self.config.rules, self.config.rounds, seed, fair_seed)
        seats = tuple(replace(s, rematch=False) for s in self.seats)
        room = self._next(
            seats=seats, game=game, log_total=0, covering=None, turn_key=None, moves=((),),
            matches=self.matches + 1,
        )  # fmt: skip
        return room._settled(now, moved=True)

    # -- play ----------------------------------------------------------------------------
    def move(self, player: str, text: str, now: float) -> Room:
        seat = self._my_turn(player)
        try:
            parsed = kc.ENGINE.parse_move(text)
        except kc.MoveError as exc:
            raise Refused("invalid_request", f"move: {exc}") from None
        try:
            played = self._game.played(seat, parsed, computer=False)
        except kc.IllegalMove as exc:
            raise Refused("illegal_move", exc.reason) from None
        room = self
        if self.seats[seat].missed:
            # A turn the person plays: the count of turns missed in a row starts again.
            room = self._next(seats=_put(self.seats, seat, replace(self.seats[seat], missed=0)))
        return self._bumped(room._after_play(played.table, played.entries, played.events, now))

    def undo(self, player: str, now: float) -> Room:
        self._my_turn(player)
        try:
            game = self._game.undone()
        except kc.IllegalMove as exc:
            raise Refused("illegal_move", exc.reason) from None
        total = self.log_total - (len(self._game.log) - len(game.log))
        moves = self.moves
        if moves and moves[-1]:
            moves = (*moves[:-1], moves[-1][:-1])
        # What the undone play told never leaves the server again: its events go with it
        # (each play adds one entry, and only the player's own last play can be undone).
        events = self.events[:-1]
        room = self._next(game=game, log_total=total, moves=moves, events=events)
        return self._bumped(room._settled(now, moved=True))

    def reveal(self, player: str, now: float) -> Room:
        if self.phase != "handoff":
            raise Refused("wrong_phase", "no hand is waiting to be shown")
        seat = self._game.match.state.to_play
        if seat not in self.seats_of(player):
            raise Refused("not_your_turn", "the person to play is on another device")
        return self._bumped(self._next(game=self._game.revealed_to())._settled(now, moved=False))

    def next_round(self, player: str, now: float) -> Room:
        self._seated(player)
        if self.phase != "round_over":
            raise Refused("wrong_phase", "the round is not over")
        game = self._game.next_round()
        moves = (*self.moves, ()) if self.moves else ()
        room = self._next(game=game, log_total=0, covering=None, moves=moves)
        return self._bumped(room._settled(now, moved=True))

    def rematch(self, player: str, seed: int, now: float, fair_seed: str | None = None) -> Room:
        """Marks ``player`` ready; when every present person is, a new match (``seed``)."""
        mine = self._seated(player)
        if self.phase != "match_over":
            raise Refused("wrong_phase", "the match is not over")
        seats = tuple(
            replace(s, rematch=True) if i in mine else s for i, s in enumerate(self.seats)
        )
        room = self._next(seats=seats)
        # Turn-based: everyone who has not left the table (away is how they usually are).
        waiting = [
            s for s in seats
            if s.person and not s.rematch
            and (not s.stand_in if self.config.turn_based else s.connection != "away")
        ]  # fmt: skip
        return self._bumped(room if waiting else room._new_match(seed, now, fair_seed))

    # -- presence ------------------------------------------------------------------------
    def connected(self, player: str, now: float) -> Room | None:
        """A live connection of ``player``'s device opened; None when nothing changes."""
        mine = self.seats_of(player)
        if not mine or all(self.seats[i].connection == "online" for i in mine):
            return None
        seats = list(self.seats)
        back = [i for i in mine if not seats[i].local and self._was_gone(i)]
        for i in mine:
            seat = replace(seats[i], connection="online", deadline=None)
            # Back at once unless a stand-in is in the middle of this seat's turn.
            if seat.stand_in and not (self.to_play == i and self._game.steps > 0):
                seat = replace(seat, stand_in=False)
            seats[i] = seat
        room = self._next(seats=tuple(seats))._noted("back", back)
        return self._bumped(room._settled(now, moved=False))

    def disconnected(self, player: str, now: float) -> Room | None:
        """The last live connection of ``player``'s device closed: grace starts."""
        mine = [i for i in self.seats_of(player) if self.seats[i].connection == "online"]
        if not mine:
            return None
        if self.config.turn_based:
            # Gone for now, which is how turn-based tables are: no grace, no stand-in, no
            # note; the turn's own deadline is all that counts.
            seats = tuple(
                replace(s, connection="away", deadline=None) if i in mine else s
                for i, s in enumerate(self.seats)
            )
            return self._bumped(self._next(seats=seats)._settled(now, moved=False))
        deadline = now + self.config.grace
        seats = tuple(
            replace(s, connection="reconnecting", deadline=deadline) if i in mine else s
            for i, s in enumerate(self.seats)
        )
        dropped = [i for i in mine if not self.seats[i].local]
        return self._bumped(
            self._next(seats=seats)._noted("drop", dropped)._settled(now, moved=False)
        )

    def with_spectators(self, count: int) -> Room | None:
        """The spectator count changed: a new version (pushed to everyone) that leaves
        `basis`, and so every request made since the last other change, current."""
        if count == self.spectators:
            return None
        return replace(self, spectators=count, version=self.version + 1, basis=self.origin)

    @property
    def origin(self) -> int:
        """`basis`, or the room's version for a room saved before there was one."""
        return self.basis or self.version

    def current(self, version: int) -> bool:
        """Whether a request made at ``version`` still sees this room as it was: nothing but
        the spectator count changed since."""
        return self.origin <= version <= self.version

    def seen(self, version: int) -> bool:
        """Whether a host's action on an absent seat, asked at ``version``, still applies:
        any version the table has had. Other seats' play (a computer's steps come every
        moment) does not make it stale; the action checks the seat as it is now and is
        refused if it no longer fits (the person came back, the match ended)."""
        return 0 <= version <= self.version

    # -- deadlines -----------------------------------------------------------------------
    def advance(self, now: float) -> Room | None:
        """Whatever is due at ``now``: grace periods ending, the host passing on, the turn
        timer, one computer step. None when nothing is due."""
        room = self
        changed = False
        seats = list(room.seats)
        gone = []
        for i, s in enumerate(seats):
            if s.connection == "reconnecting" and s.deadline is not None and s.deadline <= now:
                seats[i] = replace(s, connection="away", deadline=None, stand_in=True)
                gone.append(i)
                changed = True
        if changed:
            away = [i for i in gone if not seats[i].local]
            room = room._next(seats=tuple(seats))._noted("away", away)._pass_host()
        seat = room.to_play
        if (
            seat is not None
            and room.turn_deadline is not None
            and room.turn_deadline <= now
            and not room.driven(seat)
        ):
            if room.config.turn_based:
                # The computer plays this one turn for the person, who missed it.
                late = room.seats[seat]
                counted = _put(room.seats, seat, replace(late, missed=late.missed + 1))
                room = room._next(seats=counted, covering=seat, turn_deadline=None)
                room = room._noted("missed", [seat])
            else:
                room = room._next(covering=seat, turn_deadline=None)._noted("timer", [seat])
            changed = True
        if changed:
            room = room._settled(now, moved=False)
        if room.step_at is not None and room.step_at <= now and room.phase == "play":
            seat = room.to_play
            if seat is not None and room.driven(seat):
                room = room._computer_step(seat, now)
                changed = True
        return self._bumped(room) if changed else None

    def _computer_step(self, seat: int, now: float) -> Room:
        game = self._game
        s = self.seats[seat]
        strength = s.strength if s.kind == "computer" and s.strength else self.config.stand_in
        chosen: kc.Move | None = None
        try:
            if game.steps >= MAX_COMPUTER_STEPS:
                raise ValueError("the computer's turn ran too long")
            chosen = choose_move(game.match.view(seat), strength, game.computer_rng())
            played = game.played(seat, chosen, computer=True)
        except ValueError:
            played = game.played(seat, kc.default_move(game.match.state), computer=True)
        table, entries = played.table, played.entries
        if s.kind != "computer":
            # A computer playing for a person: the log says so ("Computer for Ana").
            by = "timer" if self.covering == seat else "stand_in"
            entries = [{**e, "by": by} for e in entries]
            table = replace(table, log=(*table.log[: len(table.log) - len(entries)], *entries))
        return self._after_play(table, entries, played.events, now)

    # -- helpers -------------------------------------------------------------------------
    @property
    def _game(self) -> SavedMatch:
        if self.game is None:
            raise Refused("wrong_phase", "the match has not started")
        return self.game

    def _next(self, **changes: Any) -> Room:
        """The room with ``changes`` at the same version (a public change bumps it once)."""
        return replace(self, **changes)

    def _was_gone(self, seat: int) -> bool:
        """Whether the notes say ``seat``'s person went (dropped, away, left, handed to the
        computer) and has not been noted back since: a first connection is not news."""
        for note in reversed(self.notes):
            if note["seat"] != seat:
                continue
            if note["kind"] in ("back", "joined", "reopened", "computer"):
                return False
            if note["kind"] in ("drop", "away", "left", "handed"):
                return True
        return False

    def _noted(
        self, kind: str, seats: Iterable[int], names: tuple[Seat, ...] | None = None
    ) -> Room:
        """The room with a note of ``kind`` for each of ``seats`` (once the match has
        started); ``names``: the seats as they were, when the change renames one."""
        if self.game is None:
            return self
        named = self.seats if names is None else names
        added = tuple(
            {
                "v": self.version + 1,
                "kind": kind,
                "seat": i,
                "name": named[i].name,
                "round": self.game.match.round,
                "after": self.log_total,
            }
            for i in seats
        )
        if not added:
            return self
        return replace(self, notes=(*self.notes, *added)[-NOTES_KEPT:])

    def _bumped(self, room: Room) -> Room:
        return replace(room, version=self.version + 1, basis=self.version + 1)

    def _host_only(self, player: str) -> None:
        if not self.is_host(player):
            raise Refused("not_host", "only the host may do that")

    def _seated(self, player: str) -> list[int]:
        mine = self.seats_of(player)
        if not mine:
            raise Refused("not_your_turn", "you hold no seat at this table")
        return mine

    def _my_turn(self, player: str) -> int:
        phase = self.phase
        if phase == "handoff":
            raise Refused("wrong_phase", "the next person must reveal their hand first (reveal)")
        if phase != "play":
            raise Refused("wrong_phase", f"the table is in phase {phase}")
        seat = self._game.match.state.to_play
        if seat not in self.seats_of(player) or self.driven(seat):
            raise Refused("not_your_turn", f"it is seat {seat}'s turn")
        return seat

    def _after_play(
        self, game: SavedMatch, entries: list[MoveEntry], events: list[kc.Event], now: float
    ) -> Room:
        total = self.log_total + len(entries)
        kept = (*self.events, (self.version + 1, tuple(events)))[-EVENTS_KEPT:]
        moves = self.moves
        played = tuple(e["move"] for e in entries if not e["move"].startswith(NOT_MOVES))
        if moves and len(moves[-1]) + len(played) <= MOVES_KEPT:
            moves = (*moves[:-1], moves[-1] + played)
        room = self._next(game=game.trimmed(LOG_KEPT), log_total=total, events=kept, moves=moves)
        return room._settled(now, moved=True)

    def _pass_host(self) -> Room:
        """Hosting passes to the first person whose device is online when the host's is away;
        at a turn-based table (where everyone is away most of the time) when the host left,
        to the first person who has not."""
        host = self.seats[self.host]
        if self.config.turn_based:
            if host.person and not host.stand_in:
                return self
            for i, s in enumerate(self.seats):
                if s.person and not s.stand_in and not s.local:
                    return replace(self, host=i)
            return self
        if host.connection != "away" and host.person:
            return self
        for i, s in enumerate(self.seats):
            if s.person and s.connection == "online" and not s.local:
                return replace(self, host=i)
        return self

    def _settled(self, now: float, *, moved: bool) -> Room:
        """The deadlines after a change: a new turn hands a returned person their seat back
        and starts the turn timer; a seat a computer moves for gets its next step time."""
        seat = self.to_play
        if seat is None:
            seats = tuple(
                replace(s, stand_in=False) if s.stand_in and s.connection == "online" else s
                for s in self.seats
            )
            return replace(self, seats=seats, turn_deadline=None, covering=None, step_at=None,
                           turn_key=None)  # fmt: skip
        game = self._game
        key = (game.match.round, game.match.state.turn)
        room = self
        if key != self.turn_key:
            # A new turn: everyone who is back has their seat again.
            seats = tuple(
                replace(s, stand_in=False) if s.stand_in and s.connection == "online" else s
                for s in self.seats
            )
            room = replace(room, seats=seats, covering=None, turn_key=key, turn_deadline=None)
            timer = room.config.turn_timer
            if timer is not None and not room.driven(seat):
                room = replace(room, turn_deadline=now + timer)
        if room.driven(seat):
            step_at = room.step_at
            if step_at is None or moved:
                step_at = now + room.config.step
            room = replace(room, step_at=step_at, turn_deadline=None)
        else:
            room = replace(room, step_at=None)
        return room


def _person(player: str, name: str | None, now: float, config: Config) -> Seat:
    if config.turn_based:
        # Not at the table until its device connects, and nothing happens for that.
        return Seat("person", name=name, player=player, connection="away")
    # A device has `grace` seconds to open its live channel before it counts as gone.
    return Seat("person", name=name, player=player, connection="reconnecting",
                deadline=now + config.grace)  # fmt: skip


def _given_up(seat: Seat) -> bool:
    """At a turn-based table, whether the host may give ``seat``'s person's seat away: they
    let `MISSES_FOR_GOOD` turns in a row run out, or left the table."""
    return seat.missed >= MISSES_FOR_GOOD or (seat.stand_in and seat.connection == "away")


def _note(d: Any) -> dict[str, Any]:
    if not isinstance(d, dict) or d.get("kind") not in NOTE_KINDS:
        raise ValueError(f"bad note {d!r}")
    name = d.get("name")
    return {
        "v": int(d["v"]),
        "kind": str(d["kind"]),
        "seat": int(d["seat"]),
        "name": None if name is None else str(name),
        "round": int(d["round"]),
        "after": int(d["after"]),
    }


def _put(seats: tuple[Seat, ...], i: int, seat: Seat) -> tuple[Seat, ...]:
    return (*seats[:i], seat, *seats[i + 1 :])
