"""The store's schema as numbered migrations: one list, applied in order, each exactly once.

`MIGRATIONS` is the whole history of the schema. A database records which migrations it has
in ``schema_version`` (one row per applied migration: number, name, time); its version is
the highest number there, 0 for a database that has none (an empty one, or one made before
versions existed). `migrate` runs when a store opens:

- each pending migration runs in its own transaction together with the row that records it,
  so a migration is applied completely (and recorded) or not at all;
- the transaction first shuts other openers out (SQLite: ``BEGIN IMMEDIATE``, the write
  lock; PostgreSQL: ``pg_advisory_xact_lock``), then reads the version again, so two
  processes starting together never both run a migration: the second waits, sees the new
  version and has nothing to do;
- a database whose version is higher than the last one here was written by newer code, and
  is refused (`SchemaTooNew`) rather than used with a schema this code does not know.

Why a table on both databases, rather than SQLite's ``PRAGMA user_version``: one code path
for both dialects, written in the same transaction as the migration on both, and the history
(which migration, when) is there for anyone reading the database with plain SQL.

To change the schema, append a `Migration` with the next number. Plain SQL both databases
accept goes in ``steps``; anything one dialect spells differently in ``sqlite`` or
``postgresql`` (run after ``steps``); a data move that SQL cannot express is a Python
function taking a `MigrationTx`. Never edit a migration that has shipped: databases out there
have already run it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from cardtable.server.core.store.base import StoreError, Tx

Dialect = Literal["sqlite", "postgresql"]


class SchemaTooNew(StoreError):
    """The database was migrated by newer code than this; it is not opened."""


class MigrationTx:
    """A migration's view of its transaction: ``?`` placeholders on both dialects."""

    def __init__(self, cursor: Tx, dialect: Dialect) -> None:
        self.cursor = cursor
        self.dialect = dialect

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Tx:
        if params is None:
            self.cursor.execute(sql)
        else:
            if self.dialect == "postgresql":
                sql = sql.replace("?", "%s")
            self.cursor.execute(sql, tuple(params))
        return self.cursor


Step = str | Callable[[MigrationTx], None]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    steps: tuple[Step, ...] = ()
    """Run on both databases, in order."""
    sqlite: tuple[Step, ...] = ()
    """Run after ``steps`` on SQLite only."""
    postgresql: tuple[Step, ...] = ()
    """Run after ``steps`` on PostgreSQL only."""

    def steps_for(self, dialect: Dialect) -> tuple[Step, ...]:
        return self.steps + (self.sqlite if dialect == "sqlite" else self.postgresql)


MIGRATIONS: tuple[Migration, ...] = (
    # The schema as the store created it before it had versions. `IF NOT EXISTS` because this
    # migration also adopts such databases: on one made by the first layout (no `finishes`)
    # or the second (`finishes` beside an emptied `results`) it adds only what is missing.
    Migration(
        1,
        "players, games, moves, results, finishes",
        steps=(
            """CREATE TABLE IF NOT EXISTS players (
                id TEXT PRIMARY KEY,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE IF NOT EXISTS games (
                id TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                kind TEXT NOT NULL,
                version INTEGER NOT NULL,
                state TEXT NOT NULL,
                finished INTEGER NOT NULL,
                current INTEGER NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL)""",
            "CREATE INDEX IF NOT EXISTS games_by_player ON games (player, kind, created_at)",
            # At most one current game per player and kind, even with several processes.
            "CREATE UNIQUE INDEX IF NOT EXISTS games_current ON games (player, kind) "
            "WHERE current = 1",
            """CREATE TABLE IF NOT EXISTS moves (
                game_id TEXT NOT NULL,
                version INTEGER NOT NULL,
                idx INTEGER NOT NULL,
                entry TEXT NOT NULL,
                at TEXT NOT NULL,
                PRIMARY KEY (game_id, version, idx))""",
            # The first layout: one result per game (its latest finish).
            """CREATE TABLE IF NOT EXISTS results (
                game_id TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                kind TEXT NOT NULL,
                variant TEXT NOT NULL,
                total INTEGER,
                practice INTEGER NOT NULL,
                summary TEXT NOT NULL,
                finished_at TEXT NOT NULL)""",
            # One row per finish (a Poker Squares deal undone after it ended and finished
            # again has two).
            """CREATE TABLE IF NOT EXISTS finishes (
                game_id TEXT NOT NULL,
                n INTEGER NOT NULL,
                player TEXT NOT NULL,
                kind TEXT NOT NULL,
                variant TEXT NOT NULL,
                total INTEGER,
                practice INTEGER NOT NULL,
                summary TEXT NOT NULL,
                finished_at TEXT NOT NULL,
                PRIMARY KEY (game_id, n))""",
            "CREATE INDEX IF NOT EXISTS finishes_by_player ON finishes (player, kind, finished_at)",
        ),
    ),
    # The store used to run this copy at every open. It now runs once, and the emptied
    # `results` table (and the first layout's index on it) goes.
    Migration(
        2,
        "results copied into finishes; results dropped",
        steps=(
            """INSERT INTO finishes (game_id, n, player, kind, variant, total, practice,
                summary, finished_at)
                SELECT game_id, 1, player, kind, variant, total, practice, summary,
                    finished_at
                FROM results WHERE game_id NOT IN (SELECT game_id FROM finishes)""",
            "DROP TABLE results",
        ),
    ),
    # Kings Corner online (docs/online.md): one row per shared table, keyed by the SHA-256 of
    # its invite token; `due_at` (epoch seconds) is its next deadline for the drivers; a
    # presence row per open live connection, refreshed by the process holding it.
    Migration(
        3,
        "online tables and presence",
        steps=(
            """CREATE TABLE online_tables (
                id TEXT PRIMARY KEY,
                code TEXT,
                code_until DOUBLE PRECISION,
                version INTEGER NOT NULL,
                state TEXT NOT NULL,
                due_at DOUBLE PRECISION,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL)""",
            # A room code names one open table; a closed table's code is NULL.
            "CREATE UNIQUE INDEX online_tables_code ON online_tables (code) WHERE code IS NOT NULL",
            "CREATE INDEX online_tables_due ON online_tables (due_at) WHERE due_at IS NOT NULL",
            """CREATE TABLE online_presence (
                connection TEXT PRIMARY KEY,
                table_id TEXT NOT NULL,
                player TEXT NOT NULL,
                seated INTEGER NOT NULL,
                process TEXT NOT NULL,
                seen_at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX online_presence_by_table ON online_presence (table_id, player)",
            "CREATE INDEX online_presence_by_age ON online_presence (seen_at)",
        ),
    ),
    # Engine reviews of finished games (docs/review.md): one row per game and part (the Poker
    # Squares review is part "placements"), its progress while a thread of some process
    # computes it (`owner` holds it until `lease_until`, epoch seconds, renewed at each
    # step), then the finished review as JSON text.
    Migration(
        4,
        "engine reviews",
        steps=(
            """CREATE TABLE reviews (
                game_id TEXT NOT NULL,
                part TEXT NOT NULL,
                version INTEGER NOT NULL,
                budget INTEGER NOT NULL,
                status TEXT NOT NULL,
                done INTEGER NOT NULL,
                total INTEGER NOT NULL,
                owner TEXT NOT NULL,
                lease_until DOUBLE PRECISION NOT NULL,
                result TEXT,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                PRIMARY KEY (game_id, part))""",
        ),
    ),
    # Retention (docs/reliability.md, "Retention"): one row per periodic job with the epoch
    # second it last ran, claimed by compare-and-set so that one process of many runs it;
    # players by age, for the sweep that expires idle anonymous players.
    Migration(
        5,
        "maintenance claims; players by age",
        steps=(
            """CREATE TABLE maintenance (
                name TEXT PRIMARY KEY,
                ran_at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX players_by_age ON players (created_at)",
        ),
    ),
    # The daily Poker Squares deal (docs/daily.md): one row per UTC day and point table with
    # its seed (and, for provably fair shuffles, its commitment); one entry per player, day
    # and table (the first attempt, with its counted score once settled); the number of
    # ranked scores per total (the histogram, and a player's rank as a sum over the totals
    # above theirs); the optional display names.
    Migration(
        6,
        "daily deals, entries, score counts, display names",
        steps=(
            """CREATE TABLE daily_deals (
                day TEXT NOT NULL,
                variant TEXT NOT NULL,
                seed BIGINT NOT NULL,
                commitment TEXT,
                created_at TEXT NOT NULL,
                PRIMARY KEY (day, variant))""",
            """CREATE TABLE daily_entries (
                day TEXT NOT NULL,
                variant TEXT NOT NULL,
                player TEXT NOT NULL,
                game_id TEXT NOT NULL,
                eligible INTEGER NOT NULL,
                status TEXT NOT NULL,
                ranked INTEGER NOT NULL,
                total INTEGER,
                lines TEXT,
                started_at TEXT NOT NULL,
                finished_at TEXT,
                PRIMARY KEY (day, variant, player))""",
            # The board's top 100 reads this index in order and stops after 100 rows.
            "CREATE INDEX daily_entries_board ON daily_entries "
            "(day, variant, ranked, total DESC, finished_at, player)",
            "CREATE INDEX daily_entries_by_player ON daily_entries (player, day)",
            """CREATE TABLE daily_scores (
                day TEXT NOT NULL,
                variant TEXT NOT NULL,
                total INTEGER NOT NULL,
                n INTEGER NOT NULL,
                PRIMARY KEY (day, variant, total))""",
            """CREATE TABLE player_names (
                player TEXT PRIMARY KEY,
                name TEXT NOT NULL)""",
        ),
    ),
    # The daily deal is provably fair (docs/fairness.md): its server seed and salt, drawn
    # with the row; the commitment is published as the day starts, the seed and salt when it
    # ends. Rows from before keep their integer seed (and no commitment).
    Migration(
        7,
        "daily deals carry a fair seed and salt",
        steps=(
            "ALTER TABLE daily_deals ADD COLUMN fair_seed TEXT",
            "ALTER TABLE daily_deals ADD COLUMN fair_salt TEXT",
        ),
    ),
    # One record on several devices (docs/devices.md): each browser's id is its own
    # credential (the SHA-256 of the id) mapping to a player; a transfer code's hash, live
    # 10 minutes and claimed once. Every existing player gets its first credential: the id it
    # was created with, whose hash is the player key (`cred = player`), so it keeps working.
    Migration(
        8,
        "device credentials and transfer codes",
        steps=(
            """CREATE TABLE credentials (
                cred TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                device TEXT NOT NULL,
                name TEXT NOT NULL,
                kind TEXT NOT NULL,
                created_at TEXT NOT NULL,
                last_used_at TEXT NOT NULL,
                revoked_at TEXT)""",
            "CREATE UNIQUE INDEX credentials_device ON credentials (device)",
            # A player's devices; the retention sweep asks whether any was used lately.
            "CREATE INDEX credentials_by_use ON credentials (player, last_used_at)",
            """CREATE TABLE transfer_codes (
                code TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                created_by TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT,
                used_by TEXT)""",
            "CREATE INDEX transfer_codes_by_player ON transfer_codes (player, used_at)",
            lambda tx: _backfill_credentials(tx),
        ),
    ),
    # An online table whose advance keeps failing backs off (docs/online.md, "Timers"): the
    # drivers count its consecutive failures on the row (any process may serve it) and push
    # its `due_at` further each time; a successful save sets the count back to 0.
    Migration(
        9,
        "online tables count failed advances",
        steps=("ALTER TABLE online_tables ADD COLUMN failures INTEGER NOT NULL DEFAULT 0",),
    ),
    # The limits on guessing transfer codes and recovery keys, and on issuing them, hold
    # across server processes (docs/devices.md, "Limits"): a token bucket per limit and key
    # hash, written by compare-and-set on `rev`; rows idle long enough to be full again are
    # deleted, so the table holds only the keys limited lately.
    Migration(
        10,
        "stored rate limits",
        steps=(
            """CREATE TABLE rate_limits (
                name TEXT NOT NULL,
                key TEXT NOT NULL,
                tokens DOUBLE PRECISION NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                rev INTEGER NOT NULL,
                PRIMARY KEY (name, key))""",
            "CREATE INDEX rate_limits_by_time ON rate_limits (name, at)",
        ),
    ),
    # Online tables are bounded per player and expire (docs/reliability.md, "Retention"):
    # who created each one (the player key), its stage ('lobby': never started, 'play', or
    # 'over': the match over or everyone left the lobby) and when it was last saved (epoch
    # seconds), all kept by every save. Tables from before get no creator (counted for
    # nobody), 'lobby' when they never started, and their last save from `updated_at`.
    Migration(
        11,
        "online tables by creator, stage and age",
        steps=(
            "ALTER TABLE online_tables ADD COLUMN creator TEXT",
            "ALTER TABLE online_tables ADD COLUMN stage TEXT NOT NULL DEFAULT 'play'",
            "ALTER TABLE online_tables ADD COLUMN saved_at DOUBLE PRECISION NOT NULL DEFAULT 0",
            """UPDATE online_tables SET stage = CASE
                WHEN state LIKE '%"closed":true%' THEN 'over'
                WHEN state LIKE '%"game":null%' THEN 'lobby'
                ELSE 'play' END""",
            "CREATE INDEX online_tables_by_creator ON online_tables (creator, stage, saved_at)",
            "CREATE INDEX online_tables_by_stage ON online_tables (stage, saved_at)",
        ),
        sqlite=(
            "UPDATE online_tables SET saved_at = (julianday(updated_at) - 2440587.5) * 86400.0",
        ),
        postgresql=(
            "UPDATE online_tables SET saved_at = "
            "EXTRACT(EPOCH FROM CAST(updated_at AS TIMESTAMPTZ))",
        ),
    ),
    # "Your tables" (docs/online.md): the online tables each player sits at, one row per
    # (player, table), kept by every save of the table in the same transaction
    # (online/mine.py) and deleted with it. ``token`` is the invite token the seat was taken
    # with; ``summary`` what the list shows (no card); ``left``: the player left the table.
    # Tables from before get their rows at their next change.
    Migration(
        12,
        "online seats by player",
        steps=(
            """CREATE TABLE online_seats (
                player TEXT NOT NULL,
                table_id TEXT NOT NULL,
                token TEXT,
                your_turn INTEGER NOT NULL DEFAULT 0,
                left_table INTEGER NOT NULL DEFAULT 0,
                summary TEXT NOT NULL,
                PRIMARY KEY (player, table_id))""",
            "CREATE INDEX online_seats_by_table ON online_seats (table_id)",
        ),
    ),
    # Web Push (docs/online.md, "Notifications"; cardtable/server/push/): the server's VAPID
    # key pair (one row, made on first start), one subscription per device credential
    # (``tables``: the per-table choices with the token its link opens), and the outbox the
    # table saves write in their own transaction and the senders claim (``claimed_by`` /
    # ``claimed_until``: a lease, so two processes never send one row and a dead one's rows
    # are taken over).
    Migration(
        13,
        "web push keys, subscriptions and outbox",
        steps=(
            """CREATE TABLE push_keys (
                id TEXT PRIMARY KEY,
                private_key TEXT NOT NULL,
                public_key TEXT NOT NULL,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE push_subscriptions (
                cred TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                endpoint TEXT NOT NULL,
                p256dh TEXT NOT NULL,
                auth TEXT NOT NULL,
                lang TEXT NOT NULL,
                all_tables INTEGER NOT NULL,
                events TEXT NOT NULL,
                created_at TEXT NOT NULL)""",
            "CREATE INDEX push_subscriptions_by_player ON push_subscriptions (player)",
            """CREATE TABLE push_tables (
                cred TEXT NOT NULL,
                table_id TEXT NOT NULL,
                token TEXT NOT NULL,
                added_at TEXT NOT NULL,
                PRIMARY KEY (cred, table_id))""",
            """CREATE TABLE push_outbox (
                id TEXT PRIMARY KEY,
                cred TEXT NOT NULL,
                player TEXT NOT NULL,
                payload TEXT NOT NULL,
                due_at DOUBLE PRECISION NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                claimed_by TEXT,
                claimed_until DOUBLE PRECISION,
                created_at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX push_outbox_by_due ON push_outbox (due_at)",
            "CREATE INDEX push_outbox_by_cred ON push_outbox (cred)",
        ),
    ),
    # Quick play (docs/quickplay.md; cardtable/server/quickplay/): the stored queue, one row
    # per player (``table_id``/``token`` set once seated), who sat at which quick table
    # (blocks, repeated pairs), each player's blocks, and cool-downs after leaving too often.
    # ``address`` is a hash of the client address, never the address.
    Migration(
        14,
        "quick-play queue, seats, blocks and cool-downs",
        steps=(
            """CREATE TABLE quick_queue (
                player TEXT PRIMARY KEY,
                ticket TEXT NOT NULL,
                cred TEXT NOT NULL,
                players INTEGER,
                preset TEXT NOT NULL,
                rating DOUBLE PRECISION NOT NULL,
                name TEXT NOT NULL,
                address TEXT NOT NULL,
                joined_at DOUBLE PRECISION NOT NULL,
                table_id TEXT,
                token TEXT,
                seated_at DOUBLE PRECISION,
                seen_at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX quick_queue_waiting ON quick_queue (table_id, joined_at)",
            "CREATE INDEX quick_queue_by_address ON quick_queue (address)",
            """CREATE TABLE quick_seated (
                table_id TEXT NOT NULL,
                seat INTEGER NOT NULL,
                player TEXT NOT NULL,
                cred TEXT NOT NULL,
                address TEXT NOT NULL,
                name TEXT NOT NULL,
                token TEXT NOT NULL,
                seated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (table_id, seat))""",
            "CREATE INDEX quick_seated_by_player ON quick_seated (player, seated_at)",
            "CREATE INDEX quick_seated_by_time ON quick_seated (seated_at)",
            """CREATE TABLE quick_blocks (
                id TEXT PRIMARY KEY,
                player TEXT NOT NULL,
                blocked TEXT NOT NULL,
                name TEXT NOT NULL,
                since DOUBLE PRECISION NOT NULL,
                UNIQUE (player, blocked))""",
            "CREATE INDEX quick_blocks_by_blocked ON quick_blocks (blocked)",
            """CREATE TABLE quick_cooldowns (
                player TEXT PRIMARY KEY,
                until_at DOUBLE PRECISION NOT NULL)""",
        ),
    ),
    # Ratings (docs/rating.md; cardtable/server/rating/): one row per rated player, one per
    # player and rated match (the chart), one per rated match (rated once, whichever process
    # saved its end) and who left a rated match before its end (rated last).
    Migration(
        15,
        "ratings, their history, rated matches and leavers",
        steps=(
            """CREATE TABLE ratings (
                player TEXT PRIMARY KEY,
                mu DOUBLE PRECISION NOT NULL,
                sigma DOUBLE PRECISION NOT NULL,
                matches INTEGER NOT NULL,
                name TEXT,
                updated_at TEXT NOT NULL)""",
            "CREATE INDEX ratings_by_updated ON ratings (updated_at)",
            """CREATE TABLE rating_history (
                player TEXT NOT NULL,
                table_key TEXT NOT NULL,
                match_no INTEGER NOT NULL,
                place INTEGER NOT NULL,
                players INTEGER NOT NULL,
                mu DOUBLE PRECISION NOT NULL,
                sigma DOUBLE PRECISION NOT NULL,
                at TEXT NOT NULL,
                PRIMARY KEY (player, table_key, match_no))""",
            "CREATE INDEX rating_history_by_player ON rating_history (player, at)",
            """CREATE TABLE rated_matches (
                table_key TEXT NOT NULL,
                match_no INTEGER NOT NULL,
                rated_at TEXT NOT NULL,
                PRIMARY KEY (table_key, match_no))""",
            """CREATE TABLE rating_leavers (
                table_key TEXT NOT NULL,
                match_no INTEGER NOT NULL,
                seat INTEGER NOT NULL,
                player TEXT NOT NULL,
                name TEXT,
                PRIMARY KEY (table_key, match_no, seat))""",
        ),
    ),
    # Poker Squares tables (docs/ps-tables.md; cardtable/server/pstables/): one row per table
    # shaped like an online table's (the same store code keeps both), one row per placement
    # (``hint``: NULL for the player's own, else why the hint placed it: 'timer' or 'away'),
    # so players placing the same card never write the same row, and one presence row per
    # open live connection.
    Migration(
        16,
        "poker squares tables, placements and presence",
        steps=(
            """CREATE TABLE ps_tables (
                id TEXT PRIMARY KEY,
                code TEXT,
                code_until DOUBLE PRECISION,
                version INTEGER NOT NULL,
                state TEXT NOT NULL,
                due_at DOUBLE PRECISION,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                failures INTEGER NOT NULL DEFAULT 0,
                creator TEXT,
                stage TEXT NOT NULL DEFAULT 'lobby',
                saved_at DOUBLE PRECISION NOT NULL DEFAULT 0)""",
            "CREATE UNIQUE INDEX ps_tables_code ON ps_tables (code) WHERE code IS NOT NULL",
            "CREATE INDEX ps_tables_due ON ps_tables (due_at) WHERE due_at IS NOT NULL",
            "CREATE INDEX ps_tables_by_creator ON ps_tables (creator, stage, saved_at)",
            "CREATE INDEX ps_tables_by_stage ON ps_tables (stage, saved_at)",
            """CREATE TABLE ps_placements (
                table_id TEXT NOT NULL,
                deal INTEGER NOT NULL,
                seat INTEGER NOT NULL,
                card INTEGER NOT NULL,
                cell INTEGER NOT NULL,
                hint TEXT,
                at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (table_id, deal, seat, card))""",
            "CREATE UNIQUE INDEX ps_placements_cell ON ps_placements (table_id, deal, seat, cell)",
            """CREATE TABLE ps_presence (
                connection TEXT PRIMARY KEY,
                table_id TEXT NOT NULL,
                player TEXT NOT NULL,
                seated INTEGER NOT NULL,
                process TEXT NOT NULL,
                seen_at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX ps_presence_by_table ON ps_presence (table_id, player)",
            "CREATE INDEX ps_presence_by_age ON ps_presence (seen_at)",
        ),
    ),
    # The daily archive (docs/daily.md, "The archive"): a player's practice on a past date,
    # one row per player, table and date: the deal last dealt from the archive (until its
    # result is read) and the best total, for the calendar. Never on a board or in a streak.
    Migration(
        17,
        "daily archive practice",
        steps=(
            """CREATE TABLE daily_practice (
                player TEXT NOT NULL,
                variant TEXT NOT NULL,
                day TEXT NOT NULL,
                game_id TEXT,
                best INTEGER,
                plays INTEGER NOT NULL,
                played_at TEXT NOT NULL,
                PRIMARY KEY (player, variant, day))""",
        ),
    ),
)


def _backfill_credentials(tx: MigrationTx) -> None:
    """One credential per existing player: ``cred = player``, named "Browser", last used
    when the player was created."""
    players = tx.execute("SELECT id, created_at FROM players").fetchall()
    for player, created_at in players:
        tx.execute(
            "INSERT INTO credentials (cred, player, device, name, kind, created_at, "
            "last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (player, player, new_device_id(), "Browser", "device", created_at, created_at),
        )


DEVICE_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"


def new_device_id() -> str:
    """A device's public id: 12 random base32 characters (60 bits), never derived from the
    credential or the player key."""
    return "".join(secrets.choice(DEVICE_ALPHABET) for _ in range(12))


VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL)"""


def check(migrations: Sequence[Migration]) -> None:
    """Migrations are numbered 1, 2, 3, ... in order, with no gap."""
    numbers = [m.version for m in migrations]
    if numbers != list(range(1, len(numbers) + 1)):
        raise AssertionError(f"migrations must be numbered 1..N in order, not {numbers}")


check(MIGRATIONS)


def current_version(tx: MigrationTx) -> int:
    """The database's schema version (0 when ``schema_version`` is empty)."""
    row = tx.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()
    return int(row[0])


def migrate(
    transaction: Callable[[], AbstractContextManager[Tx]],
    dialect: Dialect,
    migrations: Sequence[Migration] | None = None,
) -> list[int]:
    """Bring the database to the latest version; return the migrations applied (none when it
    was up to date). ``transaction()`` must give a cursor in one transaction that no other
    opener can run beside (the write lock on SQLite, the advisory lock on PostgreSQL).
    Raises `SchemaTooNew` when the database is ahead of ``migrations``."""
    migrations = MIGRATIONS if migrations is None else migrations
    check(migrations)
    latest = len(migrations)
    applied: list[int] = []
    while True:
        with transaction() as cursor:
            tx = MigrationTx(cursor, dialect)
            tx.execute(VERSION_TABLE)
            version = current_version(tx)
            if version > latest:
                raise SchemaTooNew(
                    f"the database is at schema version {version}, newer than this code "
                    f"knows (it knows up to {latest}): upgrade cardtable, or point it at "
                    "another database"
                )
            if version == latest:
                return applied
            migration = migrations[version]  # the one numbered version + 1
            _run(tx, migration.steps_for(dialect))
            tx.execute(
                "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, datetime.now(UTC).isoformat()),
            )
        applied.append(migration.version)


def _run(tx: MigrationTx, steps: Iterable[Step]) -> None:
    for step in steps:
        if isinstance(step, str):
            tx.execute(step)
        else:
            step(tx)
