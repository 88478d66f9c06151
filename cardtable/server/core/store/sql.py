"""`SqlStore`: the store's SQL, shared by SQLite and PostgreSQL.

The statements are plain SQL both databases accept (``?`` placeholders are rewritten for
psycopg); JSON is kept as text, flags as 0/1 integers and times as ISO-8601 UTC text, so the
two backends behave the same. Subclasses supply connections and transactions. The tables are
made and changed by the numbered migrations in `migrations.py`, run when a store opens.

Every transaction and reading cursor is timed (``cardtable_store_transaction_seconds``) and
every failure of the database counted (``cardtable_store_errors_total``; core/metrics.py):
not a refusal made inside a transaction (an illegal move, a lost compare-and-set), nor a
unique-key conflict that is tried again.
"""

from __future__ import annotations

import json
import secrets
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any, ClassVar

from cardtable.server.core import jsontext
from cardtable.server.core.metrics import RETENTION_DELETED, STORE_ERRORS, STORE_SECONDS
from cardtable.server.core.store.base import (
    JSON,
    Caller,
    Change,
    GameRecord,
    Result,
    ResultRecord,
    Retention,
    StaleVersion,
    Store,
    StoreBusy,
    StoreError,
    Tx,
)
from cardtable.server.core.store.migrations import Dialect, migrate, new_device_id

_GAME_COLUMNS = "id, player, kind, version, state, finished, current, created_at, updated_at"
_BATCH = 500  # rows one pruning statement handles; each new game adds at most one
# `change_game`'s one read: a credential row and the game of the player it names (a LEFT
# JOIN, so a credential without that game still reads; no row at all: no such credential).
_CALLER_AND_GAME = (
    "SELECT c.player, c.kind, c.revoked_at, c.last_used_at, "
    + ", ".join(f"g.{c}" for c in _GAME_COLUMNS.split(", "))
    + " FROM credentials c LEFT JOIN games g ON g.id = ? AND g.player = c.player "
    "WHERE c.cred = ?"
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _dump(data: JSON) -> str:
    return jsontext.dumps(data, sort_keys=True)


def _state(text: Any) -> JSON:
    # A row whose JSON does not parse (a damaged or tampered file) loads as an empty state,
    # which no game validates: the routes answer 409 `damaged_game`, never a 500.
    try:
        state = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}
    return state if isinstance(state, dict) else {}


def _game(row: Sequence[Any]) -> GameRecord:
    return GameRecord(
        id=row[0],
        player=row[1],
        kind=row[2],
        version=int(row[3]),
        state=_state(row[4]),
        finished=bool(row[5]),
        current=bool(row[6]),
        created_at=row[7],
        updated_at=row[8],
    )


_UNSETTLED = (
    "AND id NOT IN (SELECT game_id FROM daily_entries WHERE player = ? AND status = 'open')"
)
"""Retention never removes a game whose daily entry is not settled yet (docs/daily.md): its
fair-play judgement needs the placements."""


class SqlStore(Store):
    """`Store` over any DB-API database; subclasses give `transaction` and `_conflict`."""

    placeholder = "?"
    dialect: ClassVar[Dialect]
    driver_errors: ClassVar[tuple[type[Exception], ...]] = ()
    """The database driver's own errors (``cardtable_store_errors_total{error="database"}``)."""

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A cursor inside one write transaction: committed on leaving, rolled back on an
        error."""
        with self._timed("write"), self._transaction() as tx:
            yield tx

    @contextmanager
    def reading(self) -> Iterator[Tx]:
        """A cursor for reads that need no write lock (each statement sees committed data)."""
        with self._timed("read"), self._reading() as tx:
            yield tx

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Tx]:
        """`transaction` of this database."""

    @abstractmethod
    def _reading(self) -> AbstractContextManager[Tx]:
        """`reading` of this database."""

    @contextmanager
    def _timed(self, kind: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        except Exception as exc:
            error = self._error_label(exc)
            if error is not None:
                STORE_ERRORS.labels(error=error).inc()
            raise
        finally:
            STORE_SECONDS.labels(kind=kind).observe(time.perf_counter() - start)

    def _error_label(self, exc: Exception) -> str | None:
        """How a failure is counted: ``busy`` (no connection free in time), ``unavailable``
        (the database unreachable, a lost connection, the store closed), ``database`` (the
        driver's error); None for what is not the store's failure (a refusal raised inside
        the transaction, a conflict tried again)."""
        if isinstance(exc, StoreBusy):
            return "busy"
        if isinstance(exc, StoreError):
            return "unavailable"
        if isinstance(exc, self.driver_errors) and not self._is_conflict(exc):
            return "database"
        return None

    def _is_conflict(self, exc: Exception) -> bool:
        """True for a unique-key violation (another process created a game at once)."""
        return False

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def _run(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> Tx:
        tx.execute(self._sql(sql), tuple(params))
        return tx

    def _rows(self, sql: str, params: Sequence[Any]) -> list[Any]:
        with self.reading() as tx:
            return self._run(tx, sql, params).fetchall()

    def migrate(self) -> list[int]:
        """Apply the migrations this database lacks (see `migrations.py`); the numbers
        applied, none when it was up to date. Raises `SchemaTooNew` for a newer database."""
        return migrate(self._schema_transaction, self.dialect)

    def _schema_transaction(self) -> AbstractContextManager[Tx]:
        """A transaction for one migration, which no other opener can run beside."""
        return self.transaction()

    # -- players -----------------------------------------------------------------------
    def create_player(self, player: str, *, device_name: str = "Browser") -> None:
        # With its first credential (docs/devices.md): the id it was created with, whose
        # hash is the player key.
        at = now()
        with self.transaction() as tx:
            self._run(tx, "INSERT INTO players (id, created_at) VALUES (?, ?)", (player, at))
            self._run(
                tx,
                "INSERT INTO credentials (cred, player, device, name, kind, created_at, "
                "last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (player, player, new_device_id(), device_name, "device", at, at),
            )

    def has_player(self, player: str) -> bool:
        return bool(self._rows("SELECT 1 FROM players WHERE id = ?", (player,)))

    # -- games -------------------------------------------------------------------------
    def create_game(
        self, player: str, kind: str, state: JSON, *, finished: bool, log: Sequence[JSON] = ()
    ) -> GameRecord:
        for attempt in range(3):
            try:
                return self._create_game(player, kind, state, finished, log)
            except Exception as exc:
                if attempt == 2 or not self._is_conflict(exc):
                    raise
        raise AssertionError("unreachable")

    def _create_game(
        self, player: str, kind: str, state: JSON, finished: bool, log: Sequence[JSON]
    ) -> GameRecord:
        game_id = secrets.token_urlsafe(12)
        at = now()
        with self.transaction() as tx:
            self._run(
                tx,
                "UPDATE games SET current = 0 WHERE player = ? AND kind = ? AND current = 1",
                (player, kind),
            )
            self._run(
                tx,
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, player, kind, 1, _dump(state), int(finished), 1, at, at),
            )
            self._log(tx, game_id, 1, log, at)
        return GameRecord(game_id, player, kind, 1, state, finished, True, at, at)

    def load_game(self, game_id: str, player: str) -> GameRecord | None:
        rows = self._rows(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ? AND player = ?", (game_id, player)
        )
        return _game(rows[0]) if rows else None

    def save_game(
        self,
        game: GameRecord,
        state: JSON,
        *,
        finished: bool,
        log: Sequence[JSON] = (),
        result: Result | None = None,
    ) -> GameRecord:
        with self.transaction() as tx:
            return self._save(tx, game, Change(state, finished, log, result))

    def change_game(
        self,
        cred: str,
        game_id: str,
        admit: Callable[[Caller | None], str | None],
        play: Callable[[GameRecord | None], Change],
    ) -> GameRecord:
        with self.transaction() as tx:
            row = self._run(tx, _CALLER_AND_GAME, (game_id, cred)).fetchone()
            touch = admit(None if row is None else Caller(row[0], row[1], row[2], row[3]))
            game = None if row is None or row[4] is None else _game(row[4:])
            change = play(game)
            if game is None:
                raise LookupError("play must refuse a missing game")
            saved = self._save(tx, game, change)
            if touch is not None:
                self._run(
                    tx,
                    "UPDATE credentials SET last_used_at = ? WHERE cred = ? AND last_used_at < ?",
                    (touch, cred, touch),
                )
        return saved

    def _save(self, tx: Tx, game: GameRecord, change: Change) -> GameRecord:
        """The compare-and-set write of `save_game` inside ``tx``."""
        at = now()
        version = game.version + 1
        changed = self._run(
            tx,
            "UPDATE games SET state = ?, version = ?, finished = ?, updated_at = ? "
            "WHERE id = ? AND player = ? AND version = ? AND current = 1",
            (_dump(change.state), version, int(change.finished), at, game.id, game.player,
             game.version),
        ).rowcount  # fmt: skip
        if changed != 1:
            raise StaleVersion(game.id)
        self._log(tx, game.id, version, change.log, at)
        if change.result is not None:
            self._result(tx, game, change.result, at)
        return GameRecord(
            game.id, game.player, game.kind, version, change.state, change.finished,
            game.current, game.created_at, at,
        )  # fmt: skip

    def _log(self, tx: Tx, game_id: str, version: int, log: Sequence[JSON], at: str) -> None:
        for i, entry in enumerate(log):
            self._run(
                tx,
                "INSERT INTO moves (game_id, version, idx, entry, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, version, i, _dump(entry), at),
            )

    def _result(self, tx: Tx, game: GameRecord, r: Result, at: str) -> None:
        # Every finish is kept: a Poker Squares deal undone after it ended and finished again
        # adds a result (practice by then) and leaves the first one as it was.
        n = self._run(
            tx, "SELECT COALESCE(MAX(n), 0) + 1 FROM finishes WHERE game_id = ?", (game.id,)
        ).fetchone()[0]
        self._run(
            tx,
            "INSERT INTO finishes (game_id, n, player, kind, variant, total, practice, summary, "
            "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game.id, int(n), game.player, game.kind, r.variant, r.total, int(r.practice),
             _dump(r.summary), at),
        )  # fmt: skip

    def current_game(self, player: str, kind: str) -> GameRecord | None:
        rows = self._rows(
            f"SELECT {_GAME_COLUMNS} FROM games "
            "WHERE player = ? AND kind = ? AND current = 1 AND finished = 0",
            (player, kind),
        )
        return _game(rows[0]) if rows else None

    def move_log(self, game_id: str) -> list[JSON]:
        rows = self._rows(
            "SELECT entry FROM moves WHERE game_id = ? ORDER BY version, idx", (game_id,)
        )
        return [json.loads(r[0]) for r in rows]

    # -- results -----------------------------------------------------------------------
    def results(
        self, player: str, kind: str, *, variant: str | None = None, limit: int
    ) -> list[ResultRecord]:
        where, params = "player = ? AND kind = ?", [player, kind]
        if variant is not None:
            where += " AND variant = ?"
            params.append(variant)
        rows = self._rows(
            "SELECT game_id, kind, variant, total, practice, summary, finished_at FROM finishes "
            f"WHERE {where} ORDER BY finished_at DESC, game_id, n DESC LIMIT ?",
            (*params, limit),
        )
        return [ResultRecord(r[0], r[1], r[2], r[3], bool(r[4]), _state(r[5]), r[6]) for r in rows]

    def best_scores(self, player: str, kind: str) -> Mapping[tuple[str, bool], int]:
        rows = self._rows(
            "SELECT variant, practice, MAX(total) FROM finishes WHERE player = ? AND kind = ? "
            "AND total IS NOT NULL GROUP BY variant, practice",
            (player, kind),
        )
        return {(r[0], bool(r[1])): int(r[2]) for r in rows}

    # -- retention (docs/reliability.md, "Retention") ----------------------------------
    def prune(self, player: str, kind: str, keep: Retention) -> int:
        with self.transaction() as tx:
            old = [
                r[0]
                for r in self._run(
                    tx,
                    "SELECT id FROM games WHERE player = ? AND kind = ? AND finished = 0 "
                    f"AND current = 0 {_UNSETTLED} ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                    (player, kind, player, _BATCH, max(0, keep.unfinished - 1)),
                ).fetchall()
            ]
            old += [
                r[0]
                for r in self._run(
                    tx,
                    "SELECT id FROM games WHERE player = ? AND kind = ? AND finished = 1 "
                    f"{_UNSETTLED} ORDER BY updated_at DESC, id LIMIT ? OFFSET ?",
                    (player, kind, player, _BATCH, keep.finished),
                ).fetchall()
            ]
            deleted = self._delete_games(tx, old)
            rows = self._run(
                tx,
                "SELECT game_id, n FROM finishes WHERE player = ? AND kind = ? "
                "ORDER BY finished_at DESC, game_id, n DESC LIMIT ? OFFSET ?",
                (player, kind, _BATCH, keep.finishes),
            ).fetchall()
            if rows:
                keepers = self._best_rows(tx, player, kind)
                for game_id, n in rows:
                    if (game_id, n) in keepers:
                        continue  # the first finish with a best total stays (score board)
                    self._run(tx, "DELETE FROM finishes WHERE game_id = ? AND n = ?", (game_id, n))
                    deleted += 1
        if deleted:
            RETENTION_DELETED.labels(what="pruned").inc(deleted)
        return deleted

    def _best_rows(self, tx: Tx, player: str, kind: str) -> set[tuple[str, int]]:
        """The first finish reaching each best total per (variant, practice)."""
        keepers: set[tuple[str, int]] = set()
        best = self._run(
            tx,
            "SELECT variant, practice, MAX(total) FROM finishes WHERE player = ? AND kind = ? "
            "AND total IS NOT NULL GROUP BY variant, practice",
            (player, kind),
        ).fetchall()
        for variant, practice, total in best:
            row = self._run(
                tx,
                "SELECT game_id, n FROM finishes WHERE player = ? AND kind = ? AND variant = ? "
                "AND practice = ? AND total = ? ORDER BY finished_at, game_id, n LIMIT 1",
                (player, kind, variant, practice, total),
            ).fetchone()
            keepers.add((row[0], int(row[1])))
        return keepers

    def _delete_games(self, tx: Tx, ids: Sequence[str]) -> int:
        for start in range(0, len(ids), 100):
            chunk = list(ids[start : start + 100])
            marks = ", ".join("?" * len(chunk))
            for table, column in (("moves", "game_id"), ("reviews", "game_id"), ("games", "id")):
                self._run(tx, f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
        return len(ids)

    def expire_players(self, idle_since: str, *, limit: int) -> int:
        with self.transaction() as tx:
            players = [
                r[0]
                for r in self._run(
                    tx,
                    "SELECT id FROM players WHERE created_at < ? AND NOT EXISTS "
                    "(SELECT 1 FROM games WHERE games.player = players.id "
                    "AND games.updated_at >= ?) AND NOT EXISTS "
                    "(SELECT 1 FROM credentials WHERE credentials.player = players.id "
                    "AND credentials.last_used_at >= ?) ORDER BY created_at LIMIT ?",
                    (idle_since, idle_since, idle_since, limit),
                ).fetchall()
            ]
            for player in players:
                ids = [
                    r[0]
                    for r in self._run(
                        tx, "SELECT id FROM games WHERE player = ?", (player,)
                    ).fetchall()
                ]
                self._delete_games(tx, ids)
                self._run(tx, "DELETE FROM finishes WHERE player = ?", (player,))
                self._run(tx, "DELETE FROM credentials WHERE player = ?", (player,))
                self._run(tx, "DELETE FROM transfer_codes WHERE player = ?", (player,))
                self._run(tx, "DELETE FROM players WHERE id = ?", (player,))
        return len(players)

    def claim(self, job: str, every: float, now: float) -> bool:
        with self.transaction() as tx:
            self._run(
                tx,
                "INSERT INTO maintenance (name, ran_at) VALUES (?, ?) "
                "ON CONFLICT (name) DO NOTHING",
                (job, 0.0),
            )
            claimed = self._run(
                tx,
                "UPDATE maintenance SET ran_at = ? WHERE name = ? AND ran_at <= ?",
                (now, job, now - every),
            ).rowcount
        return claimed == 1
