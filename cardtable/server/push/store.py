"""The push feature's tables (migration 13) over the store's SQL: the VAPID key pair, one
subscription per device credential with its per-table choices, and the outbox.

Claiming: a sender takes due rows by setting ``claimed_by`` and a lease (``claimed_until``)
with one conditional UPDATE, so of two processes asking at once each row goes to one of
them (PostgreSQL: the rows are locked ``FOR UPDATE SKIP LOCKED``, so the other skips them
instead of waiting; SQLite: the write lock makes the UPDATE whole). A row is deleted when
delivered, or put back with a later ``due_at`` for a retry, only by its claimer; a row whose
claimer died is taken again when its lease ends.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cardtable.server.core.store.base import Tx
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.core.store.tables import FeatureTables

KEY_ROW = "vapid"
MAX_TABLES = 200
"""Per-table choices one device keeps (the oldest go first)."""


@dataclass(frozen=True)
class Target:
    """A subscription that may be told about one table."""

    cred: str
    player: str
    lang: str
    events: frozenset[str]
    token: str | None
    """The table's token when the device asked for this table (its link), else None."""


@dataclass(frozen=True)
class Claimed:
    id: str
    cred: str
    player: str
    payload: str
    attempts: int
    endpoint: str | None
    """None: the subscription is gone (the row is dropped)."""
    p256dh: str
    auth: str


@dataclass(frozen=True)
class Outgoing:
    id: str
    cred: str
    player: str
    payload: dict[str, Any]


def _now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class PushStore(FeatureTables):
    what = "push subscriptions"

    @property
    def postgres(self) -> bool:
        return self.sql.dialect == "postgresql"

    # -- keys --------------------------------------------------------------------------
    def keys(self, make: Any) -> tuple[str, str]:
        """(private, public) of the server's VAPID key pair, made by ``make()`` and kept the
        first time (two processes starting together keep the first one written)."""
        rows = self._rows("SELECT private_key, public_key FROM push_keys WHERE id = ?", (KEY_ROW,))
        if not rows:
            private, public = make()
            with self.sql.transaction() as tx:
                self._exec(
                    tx,
                    "INSERT INTO push_keys (id, private_key, public_key, created_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                    (KEY_ROW, private, public, _now_text()),
                )
            rows = self._rows(
                "SELECT private_key, public_key FROM push_keys WHERE id = ?", (KEY_ROW,)
            )
        return str(rows[0][0]), str(rows[0][1])

    # -- subscriptions -----------------------------------------------------------------
    def subscribe(
        self,
        cred: str,
        player: str,
        endpoint: str,
        p256dh: str,
        auth: str,
        *,
        lang: str,
        all_tables: bool,
        events: Iterable[str],
        table: tuple[str, str] | None,
    ) -> None:
        """This device's subscription: the same endpoint keeps its tables and adds
        ``table`` (key, token); another endpoint replaces the device's old subscription
        (and what was waiting for it)."""
        with self.sql.transaction() as tx:
            old = self._exec(
                tx,
                "SELECT endpoint, all_tables FROM push_subscriptions WHERE cred = ?",
                (cred,),
            ).fetchone()
            if old is not None and old[0] != endpoint:
                self._remove(tx, [cred])
                old = None
            wants_all = all_tables or (old is not None and bool(old[1]))
            row = (player, endpoint, p256dh, auth, lang, int(wants_all),
                   ",".join(sorted(set(events))))  # fmt: skip
            if old is None:
                self._exec(
                    tx,
                    "INSERT INTO push_subscriptions (player, endpoint, p256dh, auth, lang, "
                    "all_tables, events, cred, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, cred, _now_text()),
                )
            else:
                self._exec(
                    tx,
                    "UPDATE push_subscriptions SET player = ?, endpoint = ?, p256dh = ?, "
                    "auth = ?, lang = ?, all_tables = ?, events = ? WHERE cred = ?",
                    (*row, cred),
                )
            if table is not None:
                self._exec(
                    tx,
                    "INSERT INTO push_tables (cred, table_id, token, added_at) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (cred, table_id) DO UPDATE SET token = excluded.token, "
                    "added_at = excluded.added_at",
                    (cred, table[0], table[1], _now_text()),
                )
                self._exec(
                    tx,
                    "DELETE FROM push_tables WHERE cred = ? AND table_id NOT IN (SELECT table_id "
                    "FROM push_tables WHERE cred = ? ORDER BY added_at DESC LIMIT ?)",
                    (cred, cred, MAX_TABLES),
                )

    def unsubscribe(self, cred: str, table: str | None) -> None:
        """Forget one table of this device (and the subscription when nothing is left), or
        with None the whole subscription."""
        with self.sql.transaction() as tx:
            if table is None:
                self._remove(tx, [cred])
                return
            self._exec(tx, "DELETE FROM push_tables WHERE cred = ? AND table_id = ?",
                       (cred, table))  # fmt: skip
            left = self._exec(
                tx,
                "SELECT s.all_tables, (SELECT COUNT(*) FROM push_tables t WHERE t.cred = s.cred) "
                "FROM push_subscriptions s WHERE s.cred = ?",
                (cred,),
            ).fetchone()
            if left is not None and not left[0] and not left[1]:
                self._remove(tx, [cred])

    def subscription(self, cred: str) -> dict[str, Any] | None:
        """What this device asked for (for its page), or None."""
        rows = self._rows(
            "SELECT endpoint, lang, all_tables, events FROM push_subscriptions WHERE cred = ?",
            (cred,),
        )
        if not rows:
            return None
        tables = self._rows("SELECT table_id FROM push_tables WHERE cred = ?", (cred,))
        r = rows[0]
        return {
            "endpoint": r[0],
            "lang": r[1],
            "all_tables": bool(r[2]),
            "events": [e for e in str(r[3]).split(",") if e],
            "tables": sorted(t[0] for t in tables),
        }

    def remove(self, creds: Sequence[str]) -> None:
        with self.sql.transaction() as tx:
            self._remove(tx, creds)

    def _remove(self, tx: Tx, creds: Sequence[str]) -> None:
        if not creds:
            return
        marks = ", ".join("?" * len(creds))
        for table in ("push_outbox", "push_tables", "push_subscriptions"):
            self._exec(tx, f"DELETE FROM {table} WHERE cred IN ({marks})", creds)

    def forget(self, tx: Tx, player: str) -> None:
        """In the transaction that signed devices of ``player`` out or deleted the record:
        the subscriptions of its credentials no longer signed in go."""
        gone = self._exec(
            tx,
            "SELECT cred FROM push_subscriptions WHERE player = ? AND cred NOT IN "
            "(SELECT cred FROM credentials WHERE player = ? AND revoked_at IS NULL)",
            (player, player),
        ).fetchall()
        self._remove(tx, [r[0] for r in gone])

    # -- the outbox ----------------------------------------------------------------------
    def targets(self, tx: Tx, table: str, players: Sequence[str]) -> list[Target]:
        """The subscriptions of ``players`` that want news of ``table`` (read in the save's
        transaction)."""
        marks = ", ".join("?" * len(players))
        rows = self._exec(
            tx,
            "SELECT s.cred, s.player, s.lang, s.events, s.all_tables, t.token "
            "FROM push_subscriptions s LEFT JOIN push_tables t "
            "ON t.cred = s.cred AND t.table_id = ? "
            f"WHERE s.player IN ({marks})",
            (table, *players),
        ).fetchall()
        return [
            Target(r[0], r[1], r[2], frozenset(str(r[3]).split(",")), r[5])
            for r in rows
            if r[4] or r[5] is not None
        ]

    def enqueue(self, tx: Tx, rows: Sequence[Outgoing], at: float) -> None:
        """Put ``rows`` in the outbox (a row already there, by id, stays as it is)."""
        for row in rows:
            self._exec(
                tx,
                "INSERT INTO push_outbox (id, cred, player, payload, due_at, attempts, "
                "created_at) VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT (id) DO NOTHING",
                (row.id, row.cred, row.player,
                 json.dumps(row.payload, ensure_ascii=False), at, at),
            )  # fmt: skip

    def claim(
        self, me: str, now: float, limit: int, per_player: int, busy: Sequence[str],
        lease: float,
    ) -> list[Claimed]:  # fmt: skip
        """Up to ``limit`` due rows for this sender (``me``), at most ``per_player`` of any
        one player's and none of ``busy`` players (whose sends fill their share already),
        oldest first; each claimed for ``lease`` seconds."""
        if limit <= 0:
            return []
        skip = ""
        params: list[Any] = [now, now]
        if busy:
            skip = f" AND player NOT IN ({', '.join('?' * len(busy))})"
            params += busy
        params += [per_player, limit]
        candidates = [
            r[0]
            for r in self._rows(
                "SELECT id FROM (SELECT id, due_at, ROW_NUMBER() OVER "
                "(PARTITION BY player ORDER BY due_at, id) AS n FROM push_outbox "
                "WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)"
                f"{skip}) c WHERE n <= ? ORDER BY due_at, id LIMIT ?",
                params,
            )
        ]
        if not candidates:
            return []
        marks = ", ".join("?" * len(candidates))
        free = "(claimed_until IS NULL OR claimed_until < ?)"
        if self.postgres:
            where = (f"id IN (SELECT id FROM push_outbox WHERE id IN ({marks}) AND {free} "
                     "FOR UPDATE SKIP LOCKED)")  # fmt: skip
        else:
            where = f"id IN ({marks}) AND {free}"
        with self.sql.transaction() as tx:
            won = [
                r[0]
                for r in self._exec(
                    tx,
                    f"UPDATE push_outbox SET claimed_by = ?, claimed_until = ? WHERE {where} "
                    "RETURNING id",
                    (me, now + lease, *candidates, now),
                ).fetchall()
            ]
            if not won:
                return []
            marks = ", ".join("?" * len(won))
            rows = self._exec(
                tx,
                "SELECT o.id, o.cred, o.player, o.payload, o.attempts, s.endpoint, s.p256dh, "
                "s.auth FROM push_outbox o LEFT JOIN push_subscriptions s ON s.cred = o.cred "
                f"WHERE o.id IN ({marks}) ORDER BY o.due_at, o.id",
                won,
            ).fetchall()
        return [
            Claimed(r[0], r[1], r[2], r[3], int(r[4]), r[5], r[6] or "", r[7] or "") for r in rows
        ]

    def delivered(self, row: str, me: str) -> None:
        with self.sql.transaction() as tx:
            self._exec(tx, "DELETE FROM push_outbox WHERE id = ? AND claimed_by = ?", (row, me))

    def later(self, row: str, me: str, due_at: float) -> None:
        """Put a claimed row back, due again at ``due_at`` (a retry)."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE push_outbox SET due_at = ?, attempts = attempts + 1, claimed_by = NULL, "
                "claimed_until = NULL WHERE id = ? AND claimed_by = ?",
                (due_at, row, me),
            )

    def next_due(self) -> float | None:
        rows = self._rows("SELECT MIN(due_at) FROM push_outbox")
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def waiting(self) -> int:
        """Rows in the outbox (tests and the benchmark)."""
        return int(self._rows("SELECT COUNT(*) FROM push_outbox")[0][0])


def forget(sql: SqlStore, tx: Tx, player: str) -> None:
    """`devices.public.FORGOTTEN`'s hook."""
    PushStore(sql).forget(tx, player)
