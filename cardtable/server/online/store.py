"""The online tables in the store (migrations 3, 9, 11 and 12): one row per table, compare-and-set
saves, the deadlines the drivers take (and push back while a table's advance keeps failing),
and presence rows for live connections.

Each row also keeps who created the table, its stage (`LOBBY`, `PLAY` or `OVER`) and when it
was last saved, so that a player's unfinished tables are counted at creation (`create`'s
``most``), their finished ones pruned (`prune_finished`) and old tables deleted by the
retention sweep (`expire`, docs/reliability.md "Retention").

Written over `SqlStore`'s public transaction and reading cursors, in ``?`` SQL that both
SQLite and PostgreSQL accept (rewritten to the store's placeholder). Times are epoch seconds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.server.core import jsontext, retention
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import StaleVersion, StoreError
from cardtable.server.core.store.base import JSON, Tx
from cardtable.server.core.store.sql import now
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.online.codes import new_code

LOBBY, PLAY, OVER = "lobby", "play", "over"
"""A table's stage: its match never started; started (a round in play or over); finished
(the match is over, or everyone left the lobby)."""
CODE_ATTEMPTS = 8
"""Codes drawn before giving up: with a million open tables one draw collides about once in
900, so eight in a row practically never do."""

Published = Callable[[Tx, str, int], None]


@dataclass(frozen=True)
class RoomRecord:
    key: str
    code: str | None
    version: int
    state: JSON


@dataclass(frozen=True)
class Due:
    """A table whose deadline has come, at the version the driver found it."""

    key: str
    version: int


@dataclass(frozen=True)
class SeatRow:
    """A player's row of the seats index (mine.py): the token their seat was taken with, whether
    the table waits for their move, whether they left it, and the list's summary (JSON)."""

    token: str | None
    your_turn: bool
    left: bool
    summary: str


@dataclass(frozen=True)
class MineRow:
    """One of a player's tables as the index has it, with when the table was last saved."""

    token: str
    your_turn: bool
    summary: JSON
    saved_at: float


class TooManyTables(Exception):
    """The creator already has the most unfinished tables allowed (`OnlineStore.create`)."""


@dataclass(frozen=True)
class Gone:
    """A presence row swept because its process stopped refreshing it."""

    table: str
    player: str
    seated: bool


class OnlineStore(FeatureTables):
    what = "online tables"
    rows = "online_tables"
    presence_rows = "online_presence"
    """The tables this store keeps (the Poker Squares tables' store, pstables/store.py, keeps
    rows of the same shape in tables of its own)."""
    seen_version = "t.version"
    """A row's version as devices see it (`versions`), in SQL over the row ``t``."""

    # -- tables --------------------------------------------------------------------------
    def create(
        self,
        key: str,
        state: JSON,
        *,
        at: float,
        code_until: float,
        due_at: float | None,
        creator: str | None = None,
        most: int | None = None,
        then: Callable[[Tx], None] | None = None,
    ) -> str:
        """Insert a new table at version 1 with a fresh room code; returns the code. With
        ``most``, `TooManyTables` when ``creator`` already has that many unfinished tables
        (counted in the same transaction, under a lock on the creator on PostgreSQL, so
        requests at once cannot go past it). ``then`` runs in the same transaction, after the
        insert (the seats index, mine.py)."""
        for _ in range(CODE_ATTEMPTS):
            code = new_code()
            try:
                with self.sql.transaction() as tx:
                    if most is not None and creator is not None:
                        if self.sql.dialect == "postgresql":
                            self._exec(tx, "SELECT pg_advisory_xact_lock(hashtext(?))", (creator,))
                        count = self._exec(
                            tx,
                            f"SELECT COUNT(*) FROM {self.rows} WHERE creator = ? "
                            "AND stage IN (?, ?)",
                            (creator, LOBBY, PLAY),
                        ).fetchone()
                        if int(count[0]) >= most:
                            raise TooManyTables(creator)
                    # Codes of tables whose code time is over go first, so they can be drawn.
                    self._exec(
                        tx,
                        f"UPDATE {self.rows} SET code = NULL "
                        "WHERE code IS NOT NULL AND code_until < ?",
                        (at,),
                    )
                    taken = self._exec(
                        tx, f"SELECT 1 FROM {self.rows} WHERE code = ?", (code,)
                    ).fetchone()
                    if taken:
                        continue
                    self._exec(
                        tx,
                        f"INSERT INTO {self.rows} (id, code, code_until, version, state, due_at, "
                        "created_at, updated_at, creator, stage, saved_at) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (key, code, code_until, 1, _dump(state), due_at, now(), now(), creator,
                         self.stage_of(state, keep_code=True), at),
                    )  # fmt: skip
                    if then is not None:
                        then(tx)
                return code
            except (StoreError, TooManyTables):
                raise
            except Exception:
                # Another process drew the same code at the same moment (unique index).
                if not self._rows(f"SELECT 1 FROM {self.rows} WHERE code = ?", (code,)):
                    raise
        raise StoreError("no free room code")  # pragma: no cover - see CODE_ATTEMPTS

    def stage_of(self, state: JSON, *, keep_code: bool) -> str:
        """The stage a row saved with ``state`` is at (`stage_of`)."""
        return stage_of(state, keep_code=keep_code)

    def load(self, key: str) -> RoomRecord | None:
        rows = self._rows(f"SELECT id, code, version, state FROM {self.rows} WHERE id = ?", (key,))
        if not rows:
            return None
        r = rows[0]
        return RoomRecord(r[0], r[1], int(r[2]), _load(r[3]))

    def by_code(self, code: str, at: float) -> str | None:
        rows = self._rows(
            f"SELECT id FROM {self.rows} WHERE code = ? AND code_until >= ?", (code, at)
        )
        return rows[0][0] if rows else None

    def save(
        self,
        record: RoomRecord,
        state: JSON,
        *,
        due_at: float | None,
        keep_code: bool,
        published: Published | None = None,
    ) -> RoomRecord:
        """Write ``state`` as the next version if the row is still at ``record.version``
        (else `StaleVersion`, nothing written); ``published`` runs in the same transaction.
        A save ends a streak of failed advances (`back_off`)."""
        version = record.version + 1
        with self.sql.transaction() as tx:
            changed = self._exec(
                tx,
                f"UPDATE {self.rows} SET state = ?, version = ?, due_at = ?, updated_at = ?, "
                "failures = 0, code = CASE WHEN ? = 1 THEN code ELSE NULL END, stage = ?, "
                "saved_at = ? WHERE id = ? AND version = ?",
                (_dump(state), version, due_at, now(), int(keep_code),
                 self.stage_of(state, keep_code=keep_code), time.time(), record.key,
                 record.version),
            ).rowcount  # fmt: skip
            if changed != 1:
                raise StaleVersion(record.key)
            if published is not None:
                published(tx, record.key, version)
        return RoomRecord(record.key, record.code if keep_code else None, version, state)

    def due(self, at: float, limit: int) -> list[Due]:
        """Tables whose next deadline has come, earliest first."""
        rows = self._rows(
            f"SELECT id, version FROM {self.rows} WHERE due_at <= ? ORDER BY due_at LIMIT ?",
            (at, limit),
        )
        return [Due(r[0], int(r[1])) for r in rows]

    def back_off(
        self, due: Due, at: float, *, first: float, most: float
    ) -> tuple[float, int] | None:
        """Advancing ``due`` failed at ``at``: count the failure on the row and move its
        deadline to ``at`` plus ``first`` doubled per earlier consecutive failure, at most
        ``most``. Only while the row is still at ``due.version`` (a table another process has
        saved since is on its normal schedule). Returns the new deadline and the failure
        count, or None when the row moved on (or another driver counted this failure)."""
        with self.sql.transaction() as tx:
            row = self._exec(
                tx,
                f"SELECT failures FROM {self.rows} WHERE id = ? AND version = ?",
                (due.key, due.version),
            ).fetchone()
            if row is None:
                return None
            failures = int(row[0])
            due_at = at + min(most, first * 2 ** min(failures, 32))
            changed = self._exec(
                tx,
                f"UPDATE {self.rows} SET due_at = ?, failures = ? "
                "WHERE id = ? AND version = ? AND failures = ?",
                (due_at, failures + 1, due.key, due.version, failures),
            ).rowcount
        return (due_at, failures + 1) if changed == 1 else None

    def next_due(self) -> float | None:
        rows = self._rows(f"SELECT MIN(due_at) FROM {self.rows} WHERE due_at IS NOT NULL")
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def versions(self, keys: Iterable[str]) -> dict[str, int]:
        """The stored version of each of ``keys`` that exists (the fallback poll's query)."""
        keys = list(keys)
        out: dict[str, int] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self._rows(
                f"SELECT t.id, {self.seen_version} FROM {self.rows} t WHERE t.id IN ({marks})",
                chunk,
            )
            out.update((r[0], int(r[1])) for r in rows)
        return out

    # -- bounds ----------------------------------------------------------------------------
    def prune_finished(self, creator: str, keep: int) -> int:
        """Delete ``creator``'s finished tables but the ``keep`` last saved; how many."""
        with self.sql.transaction() as tx:
            rows = self._exec(
                tx,
                f"SELECT id FROM {self.rows} WHERE creator = ? AND stage = ? "
                "ORDER BY saved_at DESC, id LIMIT -1 OFFSET ?"
                if self.sql.dialect == "sqlite"
                else f"SELECT id FROM {self.rows} WHERE creator = ? AND stage = ? "
                "ORDER BY saved_at DESC, id OFFSET ?",
                (creator, OVER, keep),
            ).fetchall()
            self._delete(tx, [r[0] for r in rows])
        return len(rows)

    def expire(
        self, *, lobby_before: str, finished_before: float, idle_before: float, limit: int
    ) -> int:
        """Delete at most ``limit`` tables (and their presence rows): lobbies created before
        ``lobby_before`` (ISO time, as ``created_at``), finished tables last saved before
        ``finished_before`` and any table last saved before ``idle_before`` (epoch seconds);
        how many."""
        with self.sql.transaction() as tx:
            rows = self._exec(
                tx,
                f"SELECT id FROM {self.rows} WHERE stage = ? AND created_at < ? "
                f"UNION SELECT id FROM {self.rows} WHERE stage = ? AND saved_at < ? "
                f"UNION SELECT id FROM {self.rows} WHERE saved_at < ? LIMIT ?",
                (LOBBY, lobby_before, OVER, finished_before, idle_before, limit),
            ).fetchall()
            self._delete(tx, [r[0] for r in rows])
        return len(rows)

    def _delete(self, tx: Tx, keys: Sequence[str]) -> None:
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ", ".join("?" * len(chunk))
            self._exec(tx, f"DELETE FROM {self.presence_rows} WHERE table_id IN ({marks})", chunk)
            self._exec(tx, f"DELETE FROM online_seats WHERE table_id IN ({marks})", chunk)
            self._exec(tx, f"DELETE FROM {self.rows} WHERE id IN ({marks})", chunk)

    # -- the seats index ("Your tables", mine.py) ------------------------------------------
    def seat_rows(self, tx: Tx, key: str) -> dict[str, SeatRow]:
        """The index rows of table ``key``, by player (read inside a save's transaction)."""
        rows = self._exec(
            tx,
            "SELECT player, token, your_turn, left_table, summary FROM online_seats "
            "WHERE table_id = ?",
            (key,),
        ).fetchall()
        return {r[0]: SeatRow(r[1], bool(r[2]), bool(r[3]), str(r[4])) for r in rows}

    def put_seat(self, tx: Tx, player: str, key: str, row: SeatRow, *, new: bool) -> None:
        """Write ``player``'s index row of table ``key`` (``new``: there is none yet)."""
        values = (row.token, int(row.your_turn), int(row.left), row.summary, player, key)
        self._exec(
            tx,
            "INSERT INTO online_seats (token, your_turn, left_table, summary, player, table_id) "
            "VALUES (?, ?, ?, ?, ?, ?)"
            if new
            else "UPDATE online_seats SET token = ?, your_turn = ?, left_table = ?, summary = ? "
            "WHERE player = ? AND table_id = ?",
            values,
        )

    def drop_seat(self, tx: Tx, player: str, key: str) -> None:
        self._exec(tx, "DELETE FROM online_seats WHERE player = ? AND table_id = ?", (player, key))

    def mine(self, player: str, *, finished_after: float, limit: int) -> list[MineRow]:
        """``player``'s tables, the ``limit`` last saved first: not left, with a token, and
        not finished before ``finished_after`` (the retention rule for finished tables, in
        case the sweep has not run yet)."""
        rows = self._rows(
            "SELECT s.token, s.your_turn, s.summary, t.saved_at FROM online_seats s "
            "JOIN online_tables t ON t.id = s.table_id "
            "WHERE s.player = ? AND s.left_table = 0 AND s.token IS NOT NULL "
            "AND (t.stage <> ? OR t.saved_at >= ?) "
            "ORDER BY t.saved_at DESC, s.table_id LIMIT ?",
            (player, OVER, finished_after, limit),
        )
        return [MineRow(str(r[0]), bool(r[1]), _load(r[2]), float(r[3])) for r in rows]

    # -- presence ------------------------------------------------------------------------
    def present(
        self, connection: str, table: str, player: str, *, seated: bool, process: str, at: float
    ) -> None:
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                f"INSERT INTO {self.presence_rows} (connection, table_id, player, seated, process, "
                "seen_at) VALUES (?, ?, ?, ?, ?, ?)",
                (connection, table, player, int(seated), process, at),
            )

    def reseat(self, connection: str, *, seated: bool) -> None:
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                f"UPDATE {self.presence_rows} SET seated = ? WHERE connection = ?",
                (int(seated), connection),
            )

    def absent(self, connection: str) -> None:
        with self.sql.transaction() as tx:
            self._exec(tx, f"DELETE FROM {self.presence_rows} WHERE connection = ?", (connection,))

    def refresh(self, connections: Sequence[str], at: float) -> None:
        """Mark this process's open connections as seen at ``at``."""
        for i in range(0, len(connections), 500):
            chunk = connections[i : i + 500]
            marks = ", ".join("?" * len(chunk))
            with self.sql.transaction() as tx:
                self._exec(
                    tx,
                    f"UPDATE {self.presence_rows} SET seen_at = ? WHERE connection IN ({marks})",
                    (at, *chunk),
                )

    def connections(self, table: str, player: str, fresh: float) -> int:
        """Open connections of ``player``'s device to ``table`` seen since ``fresh``."""
        rows = self._rows(
            f"SELECT COUNT(*) FROM {self.presence_rows} WHERE table_id = ? AND player = ? "
            "AND seen_at >= ?",
            (table, player, fresh),
        )
        return int(rows[0][0])

    def spectators(self, table: str, fresh: float) -> int:
        rows = self._rows(
            f"SELECT COUNT(*) FROM {self.presence_rows} WHERE table_id = ? AND seated = 0 "
            "AND seen_at >= ?",
            (table, fresh),
        )
        return int(rows[0][0])

    def sweep(self, before: float) -> list[Gone]:
        """Delete presence rows not refreshed since ``before`` (their process is gone)."""
        with self.sql.transaction() as tx:
            rows = self._exec(
                tx,
                f"SELECT table_id, player, seated FROM {self.presence_rows} WHERE seen_at < ?",
                (before,),
            ).fetchall()
            if rows:
                self._exec(tx, f"DELETE FROM {self.presence_rows} WHERE seen_at < ?", (before,))
        return [Gone(r[0], r[1], bool(r[2])) for r in rows]


EXPIRE_BATCH = 500
EXPIRE_BATCHES = 20
"""Tables one sweep deletes at most per transaction, and transactions (the next sweep goes
on)."""


def expire_tables(runtime: Runtime, now: float, kind: type[OnlineStore] | None = None) -> int:
    """The retention sweep's part for online tables (`OnlineSettings.lobby_hours`,
    `finished_hours`, `idle_hours`): the tables deleted. ``kind``: the store of other tables
    kept the same way (the Poker Squares tables')."""
    s = runtime.settings.online
    tables = (kind or OnlineStore)(runtime.store)
    total = 0
    for _ in range(EXPIRE_BATCHES):
        gone = tables.expire(
            lobby_before=retention.iso(now - s.lobby_hours * 3600),
            finished_before=now - s.finished_hours * 3600,
            idle_before=now - s.idle_hours * 3600,
            limit=EXPIRE_BATCH,
        )
        total += gone
        if gone < EXPIRE_BATCH:
            break
    return total


retention.expires("online tables", expire_tables)


def stage_of(state: JSON, *, keep_code: bool) -> str:
    """The stage of a table saved as ``state``; ``keep_code`` is the room's `is_open` (its
    code still leads there: False once the match is over or everyone left the lobby)."""
    if not keep_code:
        return OVER
    return LOBBY if state.get("game") is None else PLAY


def _dump(state: JSON) -> str:
    return jsontext.dumps(state)


def _load(text: Any) -> JSON:
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


load_state = _load
"""A row's state from its JSON text (`{}` when it does not parse): the Poker Squares tables'
store reads its rows with it."""
