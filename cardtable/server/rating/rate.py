"""Rating a rated table's match when it ends (docs/rating.md, "When a match is rated").

`Rater.on_saved` is a saved hook of the online tables: it runs inside every save's
transaction, so the ratings change if and only if the save that ended the match commits.
A save is one compare-and-set, so one save ends a match whichever process made it; the
``rated_matches`` row written with the ratings makes that hold even if it did not.

Each save of a rated table's match also notes who left it at that change (`table.left`):
a person who leaves counts as finishing last, tied with anyone else who left, even once a
computer has their seat or they came back; so does a person whose device was gone past the
grace period when the match ended, the computer finishing for them (`table.walked_away`).
Persons are ranked by the match's penalty totals (lower is better, equal totals tie);
computers take part at their fixed ratings and are not updated; a seat whose person left is
rated for that person alone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from cardtable.server.core.store.base import Tx
from cardtable.server.rating.computers import COMPUTERS
from cardtable.server.rating.model import Entrant, rate
from cardtable.server.rating.store import Rating, RatingStore
from cardtable.server.rating.table import (
    RecordLike,
    RoomLike,
    left,
    persons,
    rated,
    walked_away,
)

if TYPE_CHECKING:
    from cardtable.server.core.runtime import Runtime

R = TypeVar("R", bound=RecordLike)
Who = tuple[str, str | None]
"""A rated person: (player key, the name they played under)."""


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="microseconds")


class Rater:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        """Now (tests move it)."""

    @property
    def store(self) -> RatingStore:
        return RatingStore(self.runtime.store)

    def on_saved(self, decode: Callable[[R], RoomLike]) -> Callable[[Tx, R, RoomLike], None]:
        """The online tables' saved hook (``decode``: the table a record holds)."""

        def saved(tx: Tx, record: R, room: RoomLike) -> None:
            if not rated(room) or room.game is None:
                return  # before decoding the record: most saves end here
            try:
                before = decode(record)
            except Exception:  # a damaged table: its readers meet the error, not the save
                return
            self.write(tx, record.key, before, room)

        return saved

    def write(self, tx: Tx, key: str, before: RoomLike, after: RoomLike) -> None:
        """Note who left ``after``'s match at this change; rate it if this change ended it.
        Nothing for a table that is not rated."""
        if not rated(after):
            return
        store = self.store
        for seat, s in left(before, after).items():
            if s.player is not None:
                store.note_leaver(tx, key, after.matches, seat, s.player, s.name)
        ended = after.game is not None and after.phase == "match_over"
        was_over = before.matches == after.matches and before.phase == "match_over"
        if ended and not was_over:
            self.rate_match(tx, key, after)

    def rate_match(self, tx: Tx, key: str, room: RoomLike) -> None:
        """Rate match ``room.matches`` of table ``key`` (once: `RatingStore.claim`)."""
        store = self.store
        at = iso(self.clock())
        if room.game is None or not store.claim(tx, key, room.matches, at):
            return
        seats = _seats(room, store.leavers(tx, key, room.matches))
        store.forget_leavers(tx, key, room.matches)
        people = sorted({s.who[0] for s in seats if s.who is not None})
        if not people or len(seats) < 2:
            return
        old = store.locked(tx, people, at)
        entrants = [
            Entrant(*s.fixed, s.rank) if s.who is None
            else Entrant(old[s.who[0]].mu, old[s.who[0]].sigma, s.rank)
            for s in seats
        ]  # fmt: skip
        for s, e, (mu, sigma) in zip(seats, entrants, rate(entrants), strict=True):
            if s.who is None:
                continue
            place = 1 + sum(1 for o in entrants if o.rank < e.rank)
            new = Rating(s.who[0], mu, sigma, old[s.who[0]].matches + 1, s.who[1], at)
            store.put(tx, new, key=key, match_no=room.matches, place=place, players=len(seats))


class Rated(NamedTuple):
    """A rated seat: its person (None: a computer, at ``fixed``) and rank."""

    who: Who | None
    rank: float
    fixed: tuple[float, float] = (0.0, 0.0)


def _seats(room: RoomLike, gone: dict[int, Who]) -> list[Rated]:
    """The match's rated seats in order: a person who left ranks after everyone (tied with
    others who left), whoever holds their seat now; open seats, a second local seat and a
    player's second seat are not rated."""
    assert room.game is not None
    totals = room.game.match.totals
    last = float(max(totals) + 1)
    mine = persons(room)
    out: list[Rated] = []
    seen: set[str] = set()
    for i, seat in enumerate(room.seats):
        if i in gone:
            who: Who = gone[i]
            rank = last
        elif i in mine and walked_away(room, seat):
            who, rank = (str(seat.player), seat.name), last
        elif i in mine:
            who, rank = (str(seat.player), seat.name), float(totals[i])
        elif seat.kind == "computer" and seat.strength in COMPUTERS:
            out.append(Rated(None, float(totals[i]), COMPUTERS[str(seat.strength)]))
            continue
        else:
            continue
        if who[0] not in seen:
            seen.add(who[0])
            out.append(Rated(who, rank))
    return out
