"""A Poker Squares table as a value, and every change to it, pure (docs/ps-tables.md).

`Room` is what the table's row keeps: the settings, the seats and their presence, the phase,
the deal (its number and its fair seed), the card on show and its deadline. The placements
are not in it: each is a row of its own (store.py), so players placing the same card never
write the same row. What the room needs of them comes in as `Placed`: the cells each seat
filled in this deal, in the order the cards came, and which of those the hint placed.

Every change returns a new `Room` (None: nothing to save) or raises `Refused` with the API's
error code. Nothing here reads a clock or draws a random number: ``now`` and the fair seed
come in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cardtable.cards import Card
from cardtable.fairness import Fair, FairnessError, fair_deck
from cardtable.poker_squares import CELLS, Game, Move, MoveError, legal_moves

LOBBY, PLAYING, OVER = "lobby", "playing", "over"
HERE, RECONNECTING, AWAY = "here", "reconnecting", "away"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
CHECK_SECONDS = 30.0
"""Without a timer, the driver looks at a card this long after it was shown, in case the
process that saved its last placement stopped before showing the next card."""
FORMAT = "ps-table/1"


class Refused(Exception):
    """A change the table refuses: ``code`` is the API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class RoomError(ValueError):
    """A saved table that does not load."""


@dataclass(frozen=True)
class Settings:
    table: str
    card_seconds: int | None
    max_players: int
    grace: float


@dataclass(frozen=True)
class Seat:
    seat: int
    player: str
    """The device's player key (`X-Player-Id`'s hash); never sent to a device."""
    name: str
    presence: str = RECONNECTING
    deadline: float | None = None
    """When ``reconnecting`` turns ``away`` (during play)."""
    ready: bool = False
    left: bool = False


@dataclass(frozen=True)
class Placed:
    """The placements of the current deal as the store has them."""

    cells: Mapping[int, Sequence[int]] = field(default_factory=dict)
    """Each seat's filled cells (row * 5 + col), in the order the cards came."""

    def count(self, seat: int) -> int:
        return len(self.cells.get(seat, ()))


@dataclass(frozen=True)
class Due:
    """What the driver must do at a table (`Room.due`): the room to save (None: unchanged)
    and the seats the hint places the card on show for, with the reason."""

    room: Room | None
    hints: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Room:
    settings: Settings
    seats: tuple[Seat, ...]
    host: int
    fair: Fair
    phase: str = LOBBY
    deal: int = 1
    card: int | None = None
    """The index (0-24) of the card on show while playing."""
    shown_at: float | None = None
    deadline: float | None = None
    """The card timer's end (playing, timer on)."""
    spectators: int = 0
    invite: str | None = None
    """The token, kept while the room code leads here (a code lookup answers it)."""
    closed: bool = False
    """Everyone left the lobby."""

    # -- reading ----------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        """Whether the room code still leads here."""
        return self.phase != OVER and not self.closed

    def seat_of(self, player: str) -> Seat | None:
        return next((s for s in self.seats if s.player == player), None)

    def cards(self) -> tuple[Card, ...]:
        """The 25 cards of this deal, in the order they come."""
        return tuple(fair_deck(self.fair.seed)[:CELLS])

    def game(self, cells: Sequence[int]) -> Game:
        """A seat's grid as a Poker Squares game (no fairness: the table shows that)."""
        return Game(self.settings.table, self.cards(), placements=tuple(cells))

    def waiting_for(self, placed: Placed) -> list[Seat]:
        """The seats that have not placed the card on show."""
        if self.phase != PLAYING or self.card is None:
            return []
        return [s for s in self.seats if placed.count(s.seat) <= self.card]

    # -- the lobby --------------------------------------------------------------------------
    @classmethod
    def create(
        cls, settings: Settings, player: str, name: str, now: float, fair: Fair, invite: str
    ) -> Room:
        seat = Seat(0, player, name, deadline=now + settings.grace)
        return cls(settings, (seat,), 0, fair, invite=invite)

    def join(self, player: str, name: str, now: float) -> Room | None:
        if self.seat_of(player) is not None:
            return None  # the same device again: unchanged
        if self.phase != LOBBY or self.closed:
            raise Refused("wrong_phase", "players join in the lobby, before the first card")
        if len(self.seats) >= self.settings.max_players:
            raise Refused("table_full", "every seat at this table is taken")
        number = min(set(range(MAX_PLAYERS)) - {s.seat for s in self.seats})
        seat = Seat(number, player, name, deadline=now + self.settings.grace)
        return replace(self, seats=tuple(sorted((*self.seats, seat), key=lambda s: s.seat)))

    def leave(self, player: str, now: float) -> Room | None:
        seat = self._seated(player)
        if self.phase == LOBBY:
            seats = tuple(s for s in self.seats if s.seat != seat.seat)
            if not seats:
                return replace(self, seats=(), closed=True, invite=None)
            host = self.host if self.host != seat.seat else seats[0].seat
            return replace(self, seats=seats, host=host)
        if seat.left:
            return None
        gone = replace(seat, presence=AWAY, deadline=None, ready=False, left=True)
        return self._with_seat(gone)._rematch_if_ready(now)

    def start(self, player: str, now: float) -> Room:
        seat = self._seated(player)
        if seat.seat != self.host:
            raise Refused("not_host", "only the host starts the deal")
        if self.phase != LOBBY or self.closed:
            raise Refused("wrong_phase", "the deal has started already")
        if len(self.seats) < MIN_PLAYERS:
            raise Refused("wrong_phase", f"a table needs at least {MIN_PLAYERS} players")
        return self._dealt(now)

    def _dealt(self, now: float) -> Room:
        """The first card of a deal on show (start, rematch); the seats' grace runs from now."""
        grace = self.settings.grace
        seats = tuple(
            replace(s, ready=False, deadline=None if s.presence != RECONNECTING else now + grace)
            for s in self.seats
        )
        return replace(self, seats=seats, phase=PLAYING, card=0)._shown(0, now)

    def _shown(self, card: int, now: float) -> Room:
        timer = self.settings.card_seconds
        deadline = None if timer is None else now + timer
        return replace(self, card=card, shown_at=now, deadline=deadline)

    # -- placing ----------------------------------------------------------------------------
    def check_place(self, player: str, card: int, cell: str, placed: Placed) -> tuple[int, int]:
        """(seat, cell index) of a placement the caller may make now, or `Refused`."""
        seat = self._seated(player)
        if self.phase != PLAYING or self.card is None:
            raise Refused("wrong_phase", "no card is on show")
        if seat.left:
            raise Refused("not_seated", "you left this deal")
        if card != self.card:
            raise Refused("stale_card", f"card {card} is not on show: card {self.card} is")
        if placed.count(seat.seat) > card:
            raise Refused("already_placed", "you placed this card already")
        try:
            move = Move.parse(cell)
            legal = legal_moves(self.game(placed.cells.get(seat.seat, ())))
        except MoveError as exc:
            raise Refused("illegal_move", str(exc)) from None
        if move not in legal:
            raise Refused("illegal_move", f"{move} already holds a card")
        return seat.seat, move.cell

    def after_placing(self, placed: Placed, now: float) -> Room | None:
        """The next card once every seat has placed the one on show (the end after the 25th);
        None while someone has not."""
        if self.phase != PLAYING or self.card is None or self.waiting_for(placed):
            return None
        if self.card + 1 >= CELLS:
            return replace(self, phase=OVER, card=None, shown_at=None, deadline=None)
        return self._shown(self.card + 1, now)

    # -- presence ---------------------------------------------------------------------------
    def connected(self, player: str, now: float) -> Room | None:
        seat = self.seat_of(player)
        if seat is None or seat.presence == HERE or seat.left:
            return None
        return self._with_seat(replace(seat, presence=HERE, deadline=None))

    def disconnected(self, player: str, now: float) -> Room | None:
        seat = self.seat_of(player)
        if seat is None or seat.presence != HERE:
            return None
        deadline = now + self.settings.grace
        return self._with_seat(replace(seat, presence=RECONNECTING, deadline=deadline))

    def with_spectators(self, count: int) -> Room | None:
        return None if count == self.spectators else replace(self, spectators=count)

    # -- the driver -------------------------------------------------------------------------
    def due(self, now: float, placed: Placed) -> Due:
        """What is due at ``now``: grace ends (the seat is away), then the hint's placements
        of the card on show (every late seat once the timer has run out, and away seats at
        once), then the next card when everyone has placed."""
        room = self
        for seat in self.seats:
            ended = seat.deadline is not None and seat.deadline <= now
            if self.phase == PLAYING and seat.presence == RECONNECTING and ended:
                room = room._with_seat(replace(seat, presence=AWAY, deadline=None))
        timed_out = room.deadline is not None and room.deadline <= now
        hints = tuple(
            (s.seat, "timer" if timed_out and s.presence != AWAY else "away")
            for s in room.waiting_for(placed)
            if timed_out or s.presence == AWAY
        )
        if not hints:
            room = room.after_placing(placed, now) or room
        return Due(None if room == self else room, hints)

    def due_at(self, placed: Placed, now: float) -> float | None:
        """The next moment something is due (the row's ``due_at``): the card's deadline, a
        grace period's end, at once for an away seat that has not placed, and without a timer
        a look `CHECK_SECONDS` after the card was shown."""
        if self.phase != PLAYING:
            return None
        due = [s.deadline for s in self.seats if s.presence == RECONNECTING and s.deadline]
        if self.deadline is not None:
            due.append(self.deadline)
        elif self.shown_at is not None and self.shown_at + CHECK_SECONDS > now:
            due.append(self.shown_at + CHECK_SECONDS)
        if any(s.presence == AWAY for s in self.waiting_for(placed)):
            due.append(now)
        return min(due) if due else None

    # -- after the deal ---------------------------------------------------------------------
    def rematch(self, player: str, now: float) -> Room:
        seat = self._seated(player)
        if self.phase != OVER or self.closed:
            raise Refused("wrong_phase", "a rematch comes after the last card")
        if seat.left:
            raise Refused("not_seated", "you left this table")
        return self._with_seat(replace(seat, ready=True))._rematch_if_ready(now)

    def _rematch_if_ready(self, now: float) -> Room:
        """After the end: once every present player is ready, a new deal for them."""
        if self.phase != OVER:
            return self
        present = [s for s in self.seats if not s.left and s.presence != AWAY]
        if len(present) < MIN_PLAYERS or not all(s.ready for s in present):
            return self
        host = self.host if any(s.seat == self.host for s in present) else present[0].seat
        return replace(self, seats=tuple(present), host=host, deal=self.deal + 1)

    def new_deal(self, fair: Fair, now: float) -> Room:
        """The rematch's deal, once `_rematch_if_ready` took it (its seed comes in)."""
        return replace(self, fair=fair)._dealt(now)

    def wants_deal(self, before: Room) -> bool:
        """Whether this room (changed from ``before``) began a new deal that needs its seed."""
        return self.deal != before.deal and self.phase == OVER

    # -- helpers ----------------------------------------------------------------------------
    def _seated(self, player: str) -> Seat:
        seat = self.seat_of(player)
        if seat is None:
            raise Refused("not_seated", "you have no seat at this table")
        return seat

    def _with_seat(self, seat: Seat) -> Room:
        return replace(self, seats=tuple(seat if s.seat == seat.seat else s for s in self.seats))

    # -- saving -----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        return {
            "format": FORMAT,
            "settings": [s.table, s.card_seconds, s.max_players, s.grace],
            "seats": [
                [x.seat, x.player, x.name, x.presence, x.deadline, x.ready, x.left]
                for x in self.seats
            ],
            "host": self.host,
            "fair": self.fair.saved(),
            "phase": self.phase,
            "deal": self.deal,
            "card": self.card,
            "shown_at": self.shown_at,
            "deadline": self.deadline,
            "spectators": self.spectators,
            "invite": self.invite,
            "closed": self.closed,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Room:
        try:
            if d["format"] != FORMAT:
                raise RoomError(f"unknown format {d['format']!r}")
            settings = Settings(*d["settings"])
            seats = tuple(Seat(*x) for x in d["seats"])
            return cls(
                settings,
                seats,
                int(d["host"]),
                Fair.load(d["fair"]),
                phase=d["phase"],
                deal=int(d["deal"]),
                card=d["card"],
                shown_at=d["shown_at"],
                deadline=d["deadline"],
                spectators=int(d["spectators"]),
                invite=d["invite"],
                closed=bool(d["closed"]),
            )
        except (KeyError, TypeError, ValueError, FairnessError) as exc:
            raise RoomError(f"a Poker Squares table that does not load: {exc}") from None


def ranking(room: Room, placed: Placed) -> list[tuple[int, Seat, Game]]:
    """(place, seat, finished game) for every seat of the deal, best total first; equal
    totals share a place (1, 1, 3)."""
    games = [(s, room.game(placed.cells.get(s.seat, ()))) for s in room.seats]
    games.sort(key=lambda sg: (-sg[1].total, sg[0].seat))
    out: list[tuple[int, Seat, Game]] = []
    for i, (seat, game) in enumerate(games):
        place = out[-1][0] if out and out[-1][2].total == game.total else i + 1
        out.append((place, seat, game))
    return out
