"""The quick-play tables (migration 14) over the store's SQL: the queue (one row per player,
waiting or just seated), who sat at which quick table, each player's blocks, and the
cool-downs of players who left the queue too often.

Claiming: a table's players are taken from the queue inside the transaction that inserts
the table (`claim`, the online create's ``then``): each row must still be waiting with the
ticket it had when the matcher read it, or nothing is written (`Lost`). SQLite's write lock
makes that transaction whole; on PostgreSQL the rows are locked ``FOR UPDATE SKIP LOCKED``,
so of two processes claiming one player at once the second finds the row taken and loses.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from cardtable.server.core import retention
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store.base import Tx
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.quickplay.matching import Waiter

_WAITER = "player, ticket, cred, players, preset, rating, name, address, joined_at"


class Lost(Exception):
    """A player of the table was no longer waiting (left, or another process seated them)."""


class AlreadyQueued(Exception):
    pass


class TooManyHere(Exception):
    """The client address has the most players waiting already."""


class CoolingDown(Exception):
    def __init__(self, until: float) -> None:
        super().__init__(until)
        self.until = until


@dataclass(frozen=True)
class Entry:
    """A player's row of the queue."""

    waiter: Waiter
    table: str | None
    token: str | None
    seated_at: float | None
    seen_at: float


@dataclass(frozen=True)
class Sat:
    """A seat of a quick table, as the queue seated it."""

    table: str
    seat: int
    player: str
    name: str
    token: str


@dataclass(frozen=True)
class Block:
    id: str
    name: str
    since: float


def _waiter(r: Sequence[object]) -> Waiter:
    players = r[3]
    return Waiter(
        player=str(r[0]), ticket=str(r[1]), cred=str(r[2]),
        players=None if players is None else int(str(players)), preset=str(r[4]),
        rating=float(str(r[5])), name=str(r[6]), address=str(r[7]), joined_at=float(str(r[8])),
    )  # fmt: skip


class QuickStore(FeatureTables):
    what = "the quick-play queue"

    @property
    def postgres(self) -> bool:
        return self.sql.dialect == "postgresql"

    # -- the queue -------------------------------------------------------------------------
    def join(self, w: Waiter, *, per_address: int, now: float) -> None:
        """Put ``w`` in the queue (replacing a row of a table they were seated at);
        `AlreadyQueued`, `TooManyHere` or `CoolingDown` instead, nothing written."""
        with self.sql.transaction() as tx:
            if self.postgres:
                # Joins of one address at once count each other (and one player's, each other).
                self._exec(tx, "SELECT pg_advisory_xact_lock(hashtext(?))", ("qa:" + w.address,))
            row = self._exec(tx, "SELECT table_id FROM quick_queue WHERE player = ?",
                             (w.player,)).fetchone()  # fmt: skip
            if row is not None and row[0] is None:
                raise AlreadyQueued
            cool = self._exec(tx, "SELECT until_at FROM quick_cooldowns WHERE player = ?",
                              (w.player,)).fetchone()  # fmt: skip
            if cool is not None and float(cool[0]) > now:
                raise CoolingDown(float(cool[0]))
            here = self._exec(
                tx,
                "SELECT COUNT(*) FROM quick_queue WHERE address = ? AND table_id IS NULL "
                "AND player <> ?",
                (w.address, w.player),
            ).fetchone()
            if int(here[0]) >= per_address:
                raise TooManyHere
            self._exec(tx, "DELETE FROM quick_queue WHERE player = ?", (w.player,))
            self._exec(
                tx,
                f"INSERT INTO quick_queue ({_WAITER}, seen_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (w.player, w.ticket, w.cred, w.players, w.preset, w.rating, w.name, w.address,
                 w.joined_at, w.joined_at),
            )  # fmt: skip

    def leave(self, player: str) -> bool:
        """Take ``player`` out of the queue (a seated notice goes too); whether they were
        waiting."""
        with self.sql.transaction() as tx:
            waiting = self._exec(
                tx, "DELETE FROM quick_queue WHERE player = ? AND table_id IS NULL", (player,)
            ).rowcount
            self._exec(tx, "DELETE FROM quick_queue WHERE player = ?", (player,))
        return waiting == 1

    def cool_down(self, player: str, until: float) -> None:
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "INSERT INTO quick_cooldowns (player, until_at) VALUES (?, ?) "
                "ON CONFLICT (player) DO UPDATE SET until_at = excluded.until_at",
                (player, until),
            )

    def entry(self, player: str) -> Entry | None:
        rows = self._rows(
            f"SELECT {_WAITER}, table_id, token, seated_at, seen_at FROM quick_queue "
            "WHERE player = ?",
            (player,),
        )
        if not rows:
            return None
        r = rows[0]
        seated = None if r[11] is None else float(r[11])
        return Entry(_waiter(r), r[9], r[10], seated, float(r[12]))

    def seen(self, player: str, now: float) -> None:
        """``player``'s page is still there (their status was asked): a waiting row counts
        as present again (`waiting`'s ``seen_after``)."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE quick_queue SET seen_at = ? WHERE player = ? AND table_id IS NULL",
                (now, player),
            )

    def forget_seated(self, player: str, table: str) -> None:
        """The seated notice of ``table`` is over (opened, or its time passed)."""
        with self.sql.transaction() as tx:
            self._exec(tx, "DELETE FROM quick_queue WHERE player = ? AND table_id = ?",
                       (player, table))  # fmt: skip

    def waiting(self, seen_after: float) -> list[Waiter]:
        """Every waiting player whose page was seen after ``seen_after``, who joined first
        first."""
        rows = self._rows(
            f"SELECT {_WAITER} FROM quick_queue WHERE table_id IS NULL AND seen_at > ? "
            "ORDER BY joined_at, player",
            (seen_after,),
        )
        return [_waiter(r) for r in rows]

    def count_waiting(self, preset: str, players: int | None, seen_after: float) -> int:
        """Players waiting for ``preset`` (their page seen after ``seen_after``) who could sit
        at a table with one wanting ``players`` (None: any)."""
        sql, params = "", []
        if players is not None:
            sql, params = " AND (players IS NULL OR players = ?)", [players]
        rows = self._rows(
            "SELECT COUNT(*) FROM quick_queue WHERE table_id IS NULL AND preset = ? "
            f"AND seen_at > ?{sql}",
            (preset, seen_after, *params),
        )
        return int(rows[0][0])

    # -- seating ---------------------------------------------------------------------------
    def claim(self, tx: Tx, members: Sequence[Waiter], table: str, token: str, now: float) -> None:
        """Seat ``members`` (in seat order) at ``table``, inside its insert's transaction;
        `Lost` (the transaction rolls back) unless every one still waits with their ticket
        and no two of them block each other."""
        players = [m.player for m in members]
        marks = ", ".join("?" * len(players))
        lock = " FOR UPDATE SKIP LOCKED" if self.postgres else ""
        rows = self._exec(
            tx,
            f"SELECT player, ticket FROM quick_queue WHERE player IN ({marks}) "
            f"AND table_id IS NULL{lock}",
            players,
        ).fetchall()
        if {(r[0], r[1]) for r in rows} != {(m.player, m.ticket) for m in members}:
            raise Lost
        if len(players) > 1:
            blocks = self._exec(
                tx,
                f"SELECT COUNT(*) FROM quick_blocks WHERE player IN ({marks}) "
                f"AND blocked IN ({marks})",
                (*players, *players),
            ).fetchone()
            if int(blocks[0]):
                raise Lost
        self._exec(
            tx,
            f"UPDATE quick_queue SET table_id = ?, token = ?, seated_at = ? "
            f"WHERE player IN ({marks}) AND table_id IS NULL",
            (table, token, now, *players),
        )
        for seat, m in enumerate(members):
            self._exec(
                tx,
                "INSERT INTO quick_seated (table_id, seat, player, cred, address, name, token, "
                "seated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (table, seat, m.player, m.cred, m.address, m.name, token, now),
            )

    def recent_tables(self, player: str, since: float) -> list[tuple[str, str]]:
        """(table, token) of the quick tables ``player`` was seated at since ``since``."""
        rows = self._rows(
            "SELECT table_id, token FROM quick_seated WHERE player = ? AND seated_at >= ? "
            "ORDER BY seated_at DESC",
            (player, since),
        )
        return [(str(r[0]), str(r[1])) for r in rows]

    def pairs_since(self, players: Sequence[str], since: float) -> dict[frozenset[str], int]:
        """How many quick tables each two of ``players`` sat at together since ``since``."""
        marks = ", ".join("?" * len(players))
        rows = self._rows(
            "SELECT a.player, b.player, COUNT(*) FROM quick_seated a JOIN quick_seated b "
            "ON a.table_id = b.table_id AND a.player < b.player "
            f"WHERE a.player IN ({marks}) AND b.player IN ({marks}) AND a.seated_at >= ? "
            "GROUP BY a.player, b.player",
            (*players, *players, since),
        )
        return {frozenset((str(r[0]), str(r[1]))): int(r[2]) for r in rows}

    def sat(self, table: str) -> list[Sat]:
        rows = self._rows(
            "SELECT table_id, seat, player, name, token FROM quick_seated WHERE table_id = ? "
            "ORDER BY seat",
            (table,),
        )
        return [Sat(str(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4])) for r in rows]

    # -- blocks ----------------------------------------------------------------------------
    def blocked_pairs(self, players: Sequence[str]) -> set[frozenset[str]]:
        """The pairs of ``players`` of which one blocked the other."""
        out: set[frozenset[str]] = set()
        for i in range(0, len(players), 400):
            chunk = players[i : i + 400]
            marks = ", ".join("?" * len(chunk))
            rows = self._rows(
                f"SELECT player, blocked FROM quick_blocks WHERE player IN ({marks}) "
                f"OR blocked IN ({marks})",
                (*chunk, *chunk),
            )
            out |= {frozenset((str(r[0]), str(r[1]))) for r in rows}
        return out

    def block(self, player: str, blocked: str, name: str, now: float, most: int) -> Block:
        """``player`` blocks ``blocked`` (known to them as ``name``); the oldest blocks
        beyond ``most`` go."""
        ident = secrets.token_urlsafe(12)
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "INSERT INTO quick_blocks (id, player, blocked, name, since) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (player, blocked) DO NOTHING",
                (ident, player, blocked, name, now),
            )
            row = self._exec(
                tx,
                "SELECT id, name, since FROM quick_blocks WHERE player = ? AND blocked = ?",
                (player, blocked),
            ).fetchone()
            self._exec(
                tx,
                "DELETE FROM quick_blocks WHERE player = ? AND id NOT IN (SELECT id FROM "
                "quick_blocks WHERE player = ? ORDER BY since DESC, id LIMIT ?)",
                (player, player, most),
            )
        return Block(str(row[0]), str(row[1]), float(row[2]))

    def blocks(self, player: str) -> list[Block]:
        rows = self._rows(
            "SELECT id, name, since FROM quick_blocks WHERE player = ? ORDER BY since DESC, id",
            (player,),
        )
        return [Block(str(r[0]), str(r[1]), float(r[2])) for r in rows]

    def unblock(self, player: str, ident: str) -> None:
        with self.sql.transaction() as tx:
            self._exec(tx, "DELETE FROM quick_blocks WHERE player = ? AND id = ?",
                       (player, ident))  # fmt: skip

    # -- retention -------------------------------------------------------------------------
    def expire(
        self, *, seated_before: float, unseen_before: float, history_before: float, now: float
    ) -> int:
        with self.sql.transaction() as tx:
            gone = self._exec(
                tx,
                "DELETE FROM quick_queue WHERE table_id IS NOT NULL AND seated_at < ?",
                (seated_before,),
            ).rowcount
            gone += self._exec(
                tx,
                "DELETE FROM quick_queue WHERE table_id IS NULL AND seen_at < ?",
                (unseen_before,),
            ).rowcount
            gone += self._exec(
                tx, "DELETE FROM quick_seated WHERE seated_at < ?", (history_before,)
            ).rowcount
            gone += self._exec(
                tx, "DELETE FROM quick_cooldowns WHERE until_at < ?", (now,)
            ).rowcount
        return int(gone)


def forget(sql: SqlStore, tx: Tx, player: str) -> None:
    """`devices.public.FORGOTTEN`'s hook, in the transaction that signed devices of ``player``
    out or deleted the record: a queue row joined from a device no longer signed in goes;
    with the record, the player's blocks and cool-down go too."""
    store = QuickStore(sql)
    signed_in = "SELECT cred FROM credentials WHERE player = ? AND revoked_at IS NULL"
    store._exec(
        tx, f"DELETE FROM quick_queue WHERE player = ? AND cred NOT IN ({signed_in})",
        (player, player),
    )  # fmt: skip
    if store._exec(tx, "SELECT 1 FROM credentials WHERE player = ?", (player,)).fetchone():
        return
    store._exec(tx, "DELETE FROM quick_blocks WHERE player = ?", (player,))
    store._exec(tx, "DELETE FROM quick_cooldowns WHERE player = ?", (player,))


def expire_quick(runtime: Runtime, now: float) -> int:
    """The retention sweep's part for quick play: seated notices past their time, who sat
    where after `QuickSettings.history_hours`, cool-downs over."""
    s = runtime.settings.quick
    return QuickStore(runtime.store).expire(
        seated_before=now - s.seated_seconds,
        unseen_before=now - s.unseen_hold_seconds,
        history_before=now - s.history_hours * 3600,
        now=now,
    )


retention.expires("quick play", expire_quick)
