"""Quick-play tables (docs/quickplay.md): what the quick-play queue asks of the online tables.

A quick-play table is an ordinary online table (docs/online.md), made by the queue already
dealt: its persons' seats theirs under the names they queued with (seat 0, the first of them,
hosts it), computers in the other seats, ``Config.quick`` set and ``Config.rated`` as the
queue decided. It is inserted like any table (`OnlineStore.create`, with the seats index of
mine.py), and the queue's own claim of its players runs in the same transaction (``then``),
so a table exists exactly when its players were taken from the queue.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable.server.core.store.base import Tx
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.online import codes, mine
from cardtable.server.online.room import Config, Room, Seat, SeatSpec
from cardtable.server.online.store import LOBBY, PLAY
from cardtable.server.online.tables import OnlineTables, load_room


@dataclass(frozen=True)
class QuickSeat:
    """A seat of a new quick table: a person (``player`` and ``name``) or a computer."""

    player: str | None = None
    name: str | None = None
    strength: str | None = None


@dataclass(frozen=True)
class QuickOptions:
    preset: str
    """A Kings Corner rules preset ("standard", "draw-last", "simple")."""
    rounds: int
    turn_timer: float | None
    stand_in: str
    rated: bool


@dataclass(frozen=True)
class QuickTable:
    token: str
    key: str
    """The table's key in the store (the token's hash)."""


def create_quick(
    tables: OnlineTables,
    seats: Sequence[QuickSeat],
    options: QuickOptions,
    now: float,
    then: Callable[[Tx, QuickTable], None],
) -> QuickTable:
    """A new quick table, dealt, with ``seats`` (the first a person, who hosts it);
    ``then`` runs in the insert's transaction (an exception there writes nothing)."""
    settings = tables.settings
    config = Config(
        players=len(seats),
        rules=kc.Rules.from_options(options.preset),
        rounds=options.rounds,
        turn_timer=options.turn_timer,
        grace=settings.grace_seconds,
        stand_in=options.stand_in,
        step=settings.computer_step_seconds,
        quick=True,
        rated=options.rated,
    )
    host = seats[0]
    if host.player is None or host.name is None:
        raise ValueError("seat 0 of a quick table is a person")
    specs: list[SeatSpec] = [("me", None, None)]
    specs += [
        ("invite", None, None) if s.player is not None else ("computer", s.strength, None)
        for s in seats[1:]
    ]
    token = codes.new_token()
    key = codes.table_key(token)
    room = Room.create(config, specs, host.player, host.name, now, invite=token)
    placed = list(room.seats)
    for i, s in enumerate(seats[1:], start=1):
        if s.player is not None:
            placed[i] = Seat("person", name=s.name, player=s.player, connection="reconnecting",
                             deadline=now + config.grace)  # fmt: skip
    # Dealt at once: the new room is version 0, so the deal saved at version 1 is current.
    lobby = replace(room, seats=tuple(placed), version=0, basis=0)
    dealt = lobby.start(host.player, secrets.randbits(63), now, fairness.new_seed())
    table = QuickTable(token, key)

    def inserted(tx: Tx) -> None:
        mine.index(tables.store, tx, key, 0, dealt)
        then(tx, table)

    tables.store.create(
        key, dealt.to_dict(), at=now, code_until=now + settings.code_hours * 3600,
        due_at=dealt.due_at, creator=host.player, then=inserted,
    )  # fmt: skip
    tables.driver.wake(dealt.due_at)
    return table


class _Playing(FeatureTables):
    what = "online tables"

    def of(self, player: str, keys: Sequence[str]) -> list[str]:
        marks = ", ".join("?" * len(keys))
        rows = self._rows(
            "SELECT t.id FROM online_tables t JOIN online_seats s "
            "ON s.table_id = t.id AND s.player = ? "
            f"WHERE t.id IN ({marks}) AND t.stage IN (?, ?) AND s.left_table = 0",
            (player, *keys, LOBBY, PLAY),
        )
        return [str(r[0]) for r in rows]


def playing(tables: OnlineTables, player: str, keys: Sequence[str]) -> list[str]:
    """Those of tables ``keys`` that are not finished and that ``player`` has not left."""
    return _Playing(tables.runtime.store).of(player, keys) if keys else []


def opened(tables: OnlineTables, key: str, player: str) -> bool:
    """Whether ``player``'s device has opened table ``key`` (its live channel connected once:
    the seat is online, or dropped since); True when the table is gone."""
    record = tables.store.load(key)
    if record is None:
        return True
    room = load_room(record)
    mine_ = room.seats_of(player)
    if not mine_:
        return True
    if any(room.seats[i].connection == "online" for i in mine_):
        return True
    return any(n.get("kind") in ("drop", "left") and n.get("seat") in mine_ for n in room.notes)


def display_name(text: str) -> str:
    """A table's display name (`codes.display_name`: 422 ``invalid_name`` when refused)."""
    return codes.display_name(text)
