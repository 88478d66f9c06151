"""The events a table's save makes, found by comparing the table before and after it: the
turn passed to a person's seat, a player joined, the match ended, a rematch was offered.

A save is one compare-and-set, so each change of the table is seen by exactly one
committed save: a turn that passes to seat 2 is one event, whichever process saved it.
The types here are what the push feature reads of an online table (`online.room.Room`
has them), so it needs no import of the online feature; the app hands it the decoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class SeatLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def player(self) -> str | None: ...
    @property
    def local(self) -> bool: ...
    @property
    def connection(self) -> str | None: ...
    @property
    def rematch(self) -> bool: ...


class RoomLike(Protocol):
    @property
    def seats(self) -> Sequence[SeatLike]: ...
    @property
    def host(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def to_play(self) -> int | None: ...
    @property
    def matches(self) -> int: ...


class RecordLike(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def version(self) -> int: ...


@dataclass(frozen=True)
class Event:
    kind: str
    """One of `messages.KINDS`."""
    player: str
    """Who is told (a player key)."""
    who: str | None = None
    """The other person it is about (joined, rematch)."""


def _persons(room: RoomLike) -> dict[str, SeatLike]:
    """Each player seated at the table (not a second local seat) and their seat."""
    out: dict[str, SeatLike] = {}
    for s in room.seats:
        if s.kind == "person" and s.player is not None and not s.local:
            out.setdefault(s.player, s)
    return out


def looking(room: RoomLike, player: str) -> bool:
    """The player is at the table already: a live connection of theirs is open
    (the stored presence, docs/online-presence.md; page visibility is not stored, so a
    connected page counts as looking even in a hidden tab, where the page's own in-page
    notification speaks)."""
    seat = _persons(room).get(player)
    return seat is not None and seat.connection == "online"


def events(before: RoomLike, after: RoomLike) -> list[Event]:
    """What happened in the change from ``before`` to ``after``, one event per person told."""
    out: list[Event] = []
    turn = after.to_play
    if turn is not None and after.phase in ("play", "handoff"):
        new_turn = (
            before.to_play != turn
            or before.matches != after.matches
            or before.phase not in ("play", "handoff")
        )
        seat = after.seats[turn]
        if new_turn and seat.kind == "person" and seat.player is not None:
            out.append(Event("turn", seat.player))
    was = _persons(before)
    now = _persons(after)
    for player, seat in now.items():
        if player not in was:
            out += [Event("joined", other, seat.name) for other in was if other in now]
    if after.phase == "match_over" and before.phase != "match_over":
        out += [Event("over", player) for player in now]
    for player, seat in now.items():
        old = was.get(player)
        if seat.rematch and (old is None or not old.rematch):
            out += [
                Event("rematch", other, seat.name)
                for other, s in now.items()
                if other != player and not s.rematch
            ]
    return out
