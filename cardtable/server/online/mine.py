"""The online tables a player sits at ("Your tables", docs/online.md), for the home page.

An index in the store (`online_seats`, migration 12) keeps one row per (player, table): the
table's token, whether it waits for that player's move, whether they left, and a small
summary (names, round, whose turn, its deadline, pace: never a card, SPEC C-8). It is
written in the same transaction as every save of the table (`index`, a saved hook of
`OnlineTables`, and `OnlineStore.create`'s ``then``), only when a row changes (a play within
a turn changes none), and deleted with the table (retention). So the list is one indexed
read of a player's rows, never a scan of the rooms nor a decode of their states.

The token: the store otherwise keeps only its hash once the room code closes (codes.py); a
seat's row keeps the token the seat was taken with, so the player's other devices can open
the table. Whoever reads the row already holds that seat, so it hands out nothing more to
them; a leaked database hands out these tokens (docs/online.md "Your tables").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cardtable.server.core import jsontext
from cardtable.server.core.store.base import Tx
from cardtable.server.online.room import Room
from cardtable.server.online.store import OnlineStore, SeatRow

MOST = 50
"""Tables one answer lists at most (the player's last saved)."""


@dataclass(frozen=True)
class Listed:
    """One table of a player's list, as `tables` answers it."""

    token: str
    your_turn: bool
    summary: dict[str, Any]
    updated: float


def pace_of(room: Room) -> tuple[str, float | None]:
    """The table's pace (``"live"`` or ``"turn"``) and its seconds per turn (None: no turn
    timer); a room made before tables had a pace is live."""
    pace = getattr(room.config, "pace", None)
    seconds = getattr(room.config, "turn_seconds", room.config.turn_timer)
    return (
        pace if pace in ("live", "turn") else "live",
        float(seconds) if isinstance(seconds, int | float) else None,
    )


def summary(room: Room, player: str) -> tuple[bool, str]:
    """Whether ``room`` waits for ``player``'s move, and what their list shows of it (JSON
    text): the seats' names and kinds (which are theirs), the phase, the round, whose turn
    and until when, the pace. No card, no hand size, no log."""
    mine = room.seats_of(player)
    game = room.game
    turn = room.to_play
    finished = room.closed or room.phase == "match_over"
    pace, seconds = pace_of(room)
    data = {
        "seats": [
            {"seat": i, "kind": s.kind, "name": s.name, "you": i in mine}
            for i, s in enumerate(room.seats)
        ],
        "phase": "match_over" if room.closed else room.phase,
        "finished": finished,
        "round": None if game is None else game.match.round,
        "rounds": room.config.rounds,
        "turn_seat": turn,
        "deadline": None if turn is None else room.turn_deadline,
        "pace": pace,
        "turn_seconds": seconds,
    }
    your_turn = not finished and turn is not None and turn in mine
    return your_turn, jsontext.dumps(data)


def index(store: OnlineStore, tx: Tx, key: str, since: int, room: Room) -> None:
    """Bring table ``key``'s rows of the seats index to ``room`` (saved over version
    ``since``; 0 for a new table), inside its save's transaction: a row for every person's
    player, marked left when they left at this change (and kept so, so later saves do not
    list it again), gone when they no longer hold a seat. Rows that did not change are not
    written."""
    rows = store.seat_rows(tx, key)
    players = {s.player for s in room.seats if s.player is not None}
    left = {
        room.seats[n["seat"]].player
        for n in room.notes
        if n.get("kind") == "left" and int(n.get("v", 0)) > since
        and n.get("seat") in range(len(room.seats))
    }  # fmt: skip
    for player in rows.keys() - players:
        store.drop_seat(tx, player, key)
    for player in sorted(players):
        row = rows.get(player)
        if row is not None and row.left:
            continue
        your_turn, text = summary(room, player)
        token = room.invite if room.invite is not None else (row.token if row else None)
        new = SeatRow(token, your_turn and player not in left, player in left, text)
        if new != row:
            store.put_seat(tx, player, key, new, new=row is None)


def tables(store: OnlineStore, player: str, *, finished_after: float) -> list[Listed]:
    """``player``'s tables (at most `MOST`, the last saved): those waiting for their move
    first, then the others by their last change, newest first."""
    rows = store.mine(player, finished_after=finished_after, limit=MOST)
    listed = [Listed(r.token, r.your_turn, r.summary, r.saved_at) for r in rows]
    return sorted(listed, key=lambda t: (not t.your_turn, -t.updated))


def iso(at: float | None) -> str | None:
    """Epoch seconds as an ISO 8601 UTC time (``...Z``), for the API."""
    if at is None:
        return None
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
