"""Backups of the SQLite store while it serves, and their restore on a stopped server.

`backup_sqlite` copies the store with SQLite's online backup API, in steps, all read from one
read transaction: in WAL mode a reader never blocks the server's writers (nor they it), and
the one snapshot makes the copy consistent (every transaction committed before the copy
began, none that committed after). Without it, each step would see the server's newest
writes and restart the copy from the first page (measured: 19 restarts in 151 steps beside a
writer committing every 2 ms). The copy is written under a temporary name
(``OUT.incomplete-XXXX``), switched to a single file (``journal_mode=DELETE``), flushed to
disk and checked (`inspect`: SQLite's integrity check, a cardtable schema version) before it
is renamed to ``OUT``: a half-written backup never has the name of a complete one.

`restore_sqlite` puts a backup (or a stopped store's file, with its ``-wal`` if it has one)
in place of the store: refused while anyone holds the store's lock (`lockfile.py`: a server,
a backup), or if the file is not a cardtable store this code can run (integrity, schema
version not newer than `MIGRATIONS`; an older one is migrated when the server starts). The
current store is kept aside as ``cardtable.sqlite3.before-restore-<UTC time>`` (with its
``-wal``), its ``-shm`` (an index SQLite rebuilds) removed, and the checked copy renamed in.

PostgreSQL is backed up with its own tools (`pg_dump_command`; docs/operating.md).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from cardtable.server.core.store.base import StoreError
from cardtable.server.core.store.lockfile import SharedLock, exclusive
from cardtable.server.core.store.migrations import MIGRATIONS

STEP_PAGES = 1024
"""Pages one step of the backup copies (4 MiB at SQLite's default page size)."""
SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_FILES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database while it is open (or after a crash)."""


class BackupError(StoreError):
    """A backup could not be made, or a file is not a store that can be restored."""


@dataclass(frozen=True)
class StoreFile:
    """A checked store file: its size, schema version and how much it holds."""

    path: Path
    size: int
    version: int
    games: int
    players: int


@dataclass(frozen=True)
class Restored:
    store: StoreFile
    kept: list[Path]
    """The files of the store it replaced, kept aside (empty: there was none)."""


def side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def inspect(path: Path, *, shown: Path | None = None, newer_ok: bool = False) -> StoreFile:
    """Check ``path`` (read only): a SQLite database that passes ``PRAGMA integrity_check``,
    with cardtable's ``schema_version`` and ``games`` tables and a version this code knows
    (or any, with ``newer_ok``). ``shown`` is the name errors give (default ``path``)."""
    name = shown or path
    _check_header(path, name)
    latest = len(MIGRATIONS)
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise BackupError(f"{name} cannot be opened: {exc}") from exc
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            raise BackupError(
                f"{name} is damaged: SQLite's integrity check says {'; '.join(problems[:5])}"
            )
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        missing = [t for t in ("schema_version", "players", "games") if t not in tables]
        if missing:
            raise BackupError(
                f"{name} is not a cardtable store (it has no {' or '.join(missing)} table)"
            )
        version = int(
            conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0]
        )
        if version < 1:
            raise BackupError(f"{name} is not a cardtable store (no schema version recorded)")
        if version > latest and not newer_ok:
            raise BackupError(
                f"{name} is at schema version {version}, newer than this code knows (up to "
                f"{latest}): restore it with the cardtable that wrote it, or a newer one"
            )
        games = int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        players = int(conn.execute("SELECT COUNT(*) FROM players").fetchone()[0])
    except sqlite3.Error as exc:
        raise BackupError(f"{name} is damaged or not a SQLite database: {exc}") from exc
    finally:
        conn.close()
    return StoreFile(path, path.stat().st_size, version, games, players)


def _check_header(path: Path, name: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise BackupError(f"{name} cannot be read: {exc}") from exc
    if head != SQLITE_MAGIC:
        raise BackupError(f"{name} is not a SQLite database, so not a cardtable store")


def backup_sqlite(
    store: Path, out: Path, *, busy_ms: int = 10_000, step_pages: int = STEP_PAGES
) -> StoreFile:
    """Copy the store at ``store`` to ``out`` (replacing it if it exists) while servers use
    it; the checked copy."""
    if not store.is_file():
        raise BackupError(f"there is no store at {store}")
    users = SharedLock(store, wait_s=busy_ms / 1000)  # no restore while it copies
    try:
        fd, name = tempfile.mkstemp(dir=out.parent, prefix=f"{out.name}.incomplete-")
        os.close(fd)
        tmp = Path(name)
        try:
            _copy(store, tmp, busy_ms=busy_ms, step_pages=step_pages)
            _fsync(tmp)
            checked = inspect(tmp, shown=out, newer_ok=True)
            os.replace(tmp, out)
            _fsync(out.parent)
        except BaseException:
            _remove(tmp)
            raise
    finally:
        users.release()
    return replace(checked, path=out)


def _copy(store: Path, tmp: Path, *, busy_ms: int, step_pages: int) -> None:
    try:
        src = sqlite3.connect(store, isolation_level=None, timeout=busy_ms / 1000)
        try:
            dst = sqlite3.connect(tmp, isolation_level=None)
            try:
                src.execute("BEGIN")  # one read transaction: the snapshot every step reads
                src.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                src.backup(dst, pages=step_pages, sleep=0)
                src.execute("COMMIT")
                # The pages carry the store's WAL mode: a backup is one file.
                dst.execute("PRAGMA journal_mode = DELETE")
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy {store}: {exc}") from exc


def restore_sqlite(backup: Path, store: Path, *, now: datetime | None = None) -> Restored:
    """Put ``backup`` in place of the store at ``store`` (see the module's docstring)."""
    if not backup.is_file():
        raise BackupError(f"there is no file {backup}")
    store.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(store):
        fd, name = tempfile.mkstemp(dir=store.parent, prefix=f"{store.name}.restoring-")
        os.close(fd)
        tmp = Path(name)
        try:
            shutil.copyfile(backup, tmp)
            wal = side(backup, "-wal")
            if wal.is_file() and wal.stat().st_size:  # a stopped store's last transactions
                shutil.copyfile(wal, side(tmp, "-wal"))
            _check_header(tmp, backup)
            _single_file(tmp, backup)
            checked = inspect(tmp, shown=backup)
            _fsync(tmp)
            kept = _set_aside(store, now or datetime.now(UTC))
            os.replace(tmp, store)
            _fsync(store.parent)
        except BaseException:
            _remove(tmp)
            raise
    return Restored(replace(checked, path=store), kept)


def _single_file(path: Path, shown: Path) -> None:
    """Fold a copied ``-wal`` into the file and leave it in rollback mode (one file)."""
    try:
        conn = sqlite3.connect(path, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BackupError(f"{shown} is damaged or not a SQLite database: {exc}") from exc


def _set_aside(store: Path, now: datetime) -> list[Path]:
    """Keep the current store (and its ``-wal``, ``-journal``) under a new name; remove its
    ``-shm``. The store's own name keeps the file until the restored one replaces it (a hard
    link), so no moment leaves the folder without a store for a server to create anew."""
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    aside = side(store, f".before-restore-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = side(store, f".before-restore-{stamp}-{n}")
    kept: list[Path] = []
    if store.exists():
        try:
            os.link(store, aside)
        except OSError:
            shutil.copy2(store, aside)
        kept.append(aside)
    for suffix in ("-wal", "-journal"):
        if side(store, suffix).exists():
            os.replace(side(store, suffix), side(aside, suffix))
            kept.append(side(aside, suffix))
    side(store, "-shm").unlink(missing_ok=True)
    _fsync(store.parent)
    return kept


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(tmp: Path) -> None:
    for path in (tmp, *(side(tmp, s) for s in SIDE_FILES)):
        path.unlink(missing_ok=True)


def pg_dump_command(url: str, out: str) -> tuple[str, str | None, int | None]:
    """The pg_dump command that backs up the store at ``url`` to ``out``, with the store's
    schema and version as read from the database (None when it cannot be reached): the
    schema alone when the store has one of its own, else the whole database (a dump of
    ``public`` alone restores into no new database: it re-creates ``public``)."""
    import psycopg

    schema: str | None = None
    version: int | None = None
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            row = conn.execute("SELECT current_schema()").fetchone()
            schema = row[0] if row else None
            row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            version = int(row[0]) if row and row[0] is not None else None
    except psycopg.Error:
        pass
    only = f"--schema={shlex.quote(schema)} " if schema and schema != "public" else ""
    command = f'pg_dump --format=custom {only}--file={shlex.quote(out)} --dbname="$DATABASE_URL"'
    return command, schema, version
