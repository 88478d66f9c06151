"""Tables as the rating reads them (`rating.table.RoomLike`), so a test states each match's
finishing order without playing it, and the library's own computation to compare with."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from cardtable.server.rating.rate import Rater

LIBRARY = PlackettLuce()
"""The library with its defaults, built here on its own (not the server's instance)."""


@dataclass(frozen=True)
class Seat:
    kind: str
    name: str | None = None
    player: str | None = None
    strength: str | None = None
    local: bool = False
    connection: str | None = "online"
    stand_in: bool = False


def person(player: str, name: str | None = None) -> Seat:
    return Seat("person", name or player, player)


def computer(strength: str) -> Seat:
    return Seat("computer", None, None, strength, connection=None)


def away(player: str) -> Seat:
    """A person whose device has been gone past the grace period: the stand-in plays."""
    return Seat("person", player, player, connection="away", stand_in=True)


@dataclass(frozen=True)
class Config:
    rated: bool = True


@dataclass(frozen=True)
class MatchState:
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Game:
    match: MatchState


@dataclass(frozen=True)
class Table:
    seats: tuple[Seat, ...]
    totals: tuple[int, ...]
    config: Any = field(default_factory=Config)
    notes: tuple[dict[str, Any], ...] = ()
    matches: int = 1
    phase: str = "play"
    version: int = 5

    @property
    def game(self) -> Game:
        return Game(MatchState(self.totals))


def finish(
    rater: Rater,
    key: str,
    seats: tuple[Seat, ...],
    totals: tuple[int, ...],
    *,
    rated: bool = True,
    matches: int = 1,
) -> None:
    """Match ``matches`` of table ``key`` ends with ``totals``, in one save."""
    before = Table(seats, totals, Config(rated), matches=matches)
    after = replace(before, phase="match_over", version=before.version + 1)
    with rater.runtime.store.transaction() as tx:
        rater.write(tx, key, before, after)


def leave(rater: Rater, key: str, table: Table, seat: int, *, to_computer: bool = False) -> Table:
    """The person at ``seat`` leaves the match (a "left" note; their seat handed to a
    computer when ``to_computer``), in one save; the table after it."""
    note = {"v": table.version + 1, "kind": "left", "seat": seat}
    seats = table.seats
    if to_computer:
        seats = (*seats[:seat], computer("normal"), *seats[seat + 1 :])
        note = {**note, "kind": "computer"}
    after = replace(table, seats=seats, notes=(*table.notes, note), version=table.version + 1)
    with rater.runtime.store.transaction() as tx:
        rater.write(tx, key, table, after)
    return after


def end(rater: Rater, key: str, table: Table, totals: tuple[int, ...]) -> None:
    after = replace(table, totals=totals, phase="match_over", version=table.version + 1)
    with rater.runtime.store.transaction() as tx:
        rater.write(tx, key, table, after)
