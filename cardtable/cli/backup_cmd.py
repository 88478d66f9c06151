"""`cardtable backup` and `cardtable restore`: the SQLite store copied while it serves, and a
copy put back on a stopped server (cardtable/server/core/store/backup.py; docs/operating.md,
"Back up" and "Restore").

With ``DATABASE_URL`` set both refuse (exit status 2) and print the PostgreSQL command to run
instead: PostgreSQL's own tools back it up (pg_dump, or the base backups and WAL archiving an
operator of PostgreSQL may already run), with a pg_dump as new as the server, which cardtable
cannot choose for the operator, and the connection's password kept out of the command lines
of processes that cardtable would start.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardtable.cli.errors import UsageError

if TYPE_CHECKING:
    from cardtable.server.core.settings import Settings

EXIT_FAILED = 1
EXIT_POSTGRES = 2


def register(sub: Any) -> None:
    backup = sub.add_parser(
        "backup",
        help="copy the SQLite store while the server runs, and check the copy",
        description="Write a consistent copy of the SQLite store under --data while servers "
        "use it (SQLite's online backup API), check it (integrity, schema version) and only "
        "then give it its name. With DATABASE_URL set, print the pg_dump command instead.",
    )
    backup.add_argument("out", type=Path, metavar="OUT",
                        help="the file to write, or a folder to write "
                        "cardtable-<UTC time>.sqlite3 in")  # fmt: skip
    backup.add_argument("--data", type=Path, default=Path("data"), help="data folder (./data)")
    backup.add_argument("--force", action="store_true", help="replace OUT if it exists")
    backup.set_defaults(func=run_backup)

    restore = sub.add_parser(
        "restore",
        help="put a backup in place of the SQLite store (the server stopped)",
        description="Replace the SQLite store under --data by BACKUP, once it is checked "
        "(integrity, schema version). Refused while a server uses the store. The store it "
        "replaces is kept beside it as cardtable.sqlite3.before-restore-<UTC time>. With "
        "DATABASE_URL set, print the pg_restore commands instead.",
    )
    restore.add_argument("backup", type=Path, metavar="BACKUP", help="the backup file")
    restore.add_argument("--data", type=Path, default=Path("data"), help="data folder (./data)")
    restore.set_defaults(func=run_restore)


def _settings(data: Path) -> Settings:
    from cardtable.server.core.settings import Settings

    return Settings(data_dir=data)


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def _counts(version: int, games: int, players: int) -> str:
    return f"schema version {version}, integrity ok, {games:,} games of {players:,} players"


def run_backup(args: argparse.Namespace) -> int:
    out: Path = args.out
    settings = _settings(args.data)
    if out.is_dir():
        suffix = "dump" if settings.uses_postgres else "sqlite3"
        out = out / f"cardtable-{_stamp()}.{suffix}"
    if settings.uses_postgres:
        return _pg_backup(settings.database_url or "", out)
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists (--force replaces it)")
    from cardtable.server.core.store.backup import backup_sqlite
    from cardtable.server.core.store.base import StoreError

    try:
        copy = backup_sqlite(settings.sqlite_path, out, busy_ms=settings.sqlite_busy_ms)
    except (StoreError, OSError) as exc:
        print(f"cardtable: backup failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"cardtable: backup of {settings.sqlite_path} written to {copy.path}")
    print(f"  {copy.size:,} bytes, {_counts(copy.version, copy.games, copy.players)}")
    return 0


def _pg_backup(url: str, out: Path) -> int:
    from cardtable.server.core.store.backup import pg_dump_command

    command, schema, version = pg_dump_command(url, str(out))
    where = (
        f"schema {schema}, version {version}"
        if version is not None
        else "not reachable now; the command dumps the whole database"
    )
    print(
        "cardtable: backup: the store is in PostgreSQL (DATABASE_URL is set), which "
        "`cardtable backup` does not copy; back it up with PostgreSQL's pg_dump "
        f'(docs/operating.md, "Back up"; the store: {where}):\n'
        f"    {command}",
        file=sys.stderr,
    )
    return EXIT_POSTGRES


def run_restore(args: argparse.Namespace) -> int:
    settings = _settings(args.data)
    if settings.uses_postgres:
        print(
            "cardtable: restore: the store is in PostgreSQL (DATABASE_URL is set); restore a "
            "pg_dump archive with pg_restore into an empty database, every server stopped, "
            'then point DATABASE_URL at it (docs/operating.md, "Restore"):\n'
            "    createdb --template=template0 NEWDB\n"
            f"    pg_restore --exit-on-error --no-owner --dbname=NEWDB {args.backup}",
            file=sys.stderr,
        )
        return EXIT_POSTGRES
    from cardtable.server.core.store.backup import restore_sqlite
    from cardtable.server.core.store.base import StoreError
    from cardtable.server.core.store.migrations import MIGRATIONS

    try:
        done = restore_sqlite(args.backup, settings.sqlite_path)
    except StoreError as exc:  # in use, not a store, too new: nothing was changed
        print(f"cardtable: restore refused: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"cardtable: restore failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    store = done.store
    print(f"cardtable: restored {args.backup} into {store.path}")
    print(f"  {store.size:,} bytes, {_counts(store.version, store.games, store.players)}")
    if store.version < len(MIGRATIONS):
        print(f"  the server migrates it to schema version {len(MIGRATIONS)} when it starts")
    if done.kept:
        print(f"  the store it replaced is kept as {', '.join(map(str, done.kept))}")
    else:
        print("  there was no store before it")
    return 0
