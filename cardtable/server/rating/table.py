"""What the rating reads of an online table (`online.room.Room` has it), so it needs no import
of the online feature; the app hands it the decoder, as it does the push feature's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class SeatLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def player(self) -> str | None: ...
    @property
    def strength(self) -> str | None: ...
    @property
    def local(self) -> bool: ...
    @property
    def connection(self) -> str | None: ...
    @property
    def stand_in(self) -> bool: ...


class MatchLike(Protocol):
    @property
    def totals(self) -> tuple[int, ...]: ...


class GameLike(Protocol):
    @property
    def match(self) -> MatchLike: ...


class RoomLike(Protocol):
    @property
    def config(self) -> Any: ...
    @property
    def seats(self) -> Sequence[SeatLike]: ...
    @property
    def game(self) -> GameLike | None: ...
    @property
    def notes(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def matches(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def version(self) -> int: ...


class RecordLike(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def version(self) -> int: ...


def rated(room: RoomLike) -> bool:
    """The table counts for ratings (`Config.rated`; False for a room saved before it)."""
    return bool(getattr(room.config, "rated", False))


def persons(room: RoomLike) -> dict[int, SeatLike]:
    """The seats a person of their own holds (not a second local seat), by seat."""
    return {
        i: s
        for i, s in enumerate(room.seats)
        if s.kind == "person" and s.player is not None and not s.local
    }


def playing(room: RoomLike) -> bool:
    """A match is being played (dealt and not over)."""
    return room.game is not None and room.phase != "match_over"


def left(before: RoomLike, after: RoomLike) -> dict[int, SeatLike]:
    """The persons of ``before``'s match who left it at the change to ``after``: a "left"
    note newer than ``before``, or their seat no longer theirs (given to a computer or
    reopened). By seat, as ``before`` had them."""
    if not playing(before) or before.matches != after.matches:
        return {}
    was = persons(before)
    now = persons(after)
    noted = {
        int(n["seat"]) for n in after.notes
        if n.get("kind") == "left" and int(n.get("v", 0)) > before.version
    }  # fmt: skip
    return {
        i: s for i, s in was.items()
        if i in noted or i not in now or now[i].player != s.player
    }  # fmt: skip


def walked_away(room: RoomLike, seat: SeatLike) -> bool:
    """At a live table, the person's device was gone past the grace period when the match
    ended, and the computer finished for them (closing the page counts as leaving; at a
    turn-based table being away is how people usually are)."""
    live = getattr(room.config, "pace", "live") != "turn"
    return live and seat.connection == "away" and seat.stand_in
