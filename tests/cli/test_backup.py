"""`cardtable backup` and `cardtable restore` in this process, on stores made here: the copy
gets its name only once it is checked, a restore refuses a store in use and files that are not
a store it can run (changing nothing), keeps the current store aside with its -wal and
removes its -shm; with DATABASE_URL both print the PostgreSQL command instead.

Backups taken while a real `cardtable serve` plays, restored and served again:
tests/reliability/test_backup.py."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cardtable.cli.main import main
from cardtable.server.core.store import backup as backup_mod
from cardtable.server.core.store.lockfile import StoreInUse, exclusive
from cardtable.server.core.store.migrations import MIGRATIONS
from cardtable.server.core.store.sqlite import SqliteStore

KIND = "poker-squares"


def make_store(data: Path, games: int) -> Path:
    """A store under ``data`` with one player and ``games`` games (closed: nothing serves it)."""
    path = data / "cardtable.sqlite3"
    store = SqliteStore(path)
    try:
        store.create_player("alice")
        for n in range(games):
            store.create_game("alice", KIND, {"n": n}, finished=False)
    finally:
        store.close()
    return path


def games(path: Path) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT state FROM games ORDER BY created_at").fetchall()
    finally:
        conn.close()
    return [json.loads(state)["n"] for (state,) in rows]


def test_backup_is_written_under_a_temporary_name_checked_then_renamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_store(tmp_path / "data", games=3)
    out = tmp_path / "backups" / "b.sqlite3"
    out.parent.mkdir()
    checked: list[tuple[Path, bool]] = []
    real_inspect = backup_mod.inspect

    def inspect(path: Path, **kw: object) -> backup_mod.StoreFile:
        checked.append((path, out.exists()))
        return real_inspect(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(backup_mod, "inspect", inspect)
    assert main(["backup", "--data", str(tmp_path / "data"), str(out)]) == 0
    [(verified, out_existed)] = checked
    # Checked under another name, in the same folder, before OUT existed.
    assert verified != out and verified.parent == out.parent and not out_existed
    assert verified.name.startswith("b.sqlite3.incomplete-")
    assert sorted(p.name for p in out.parent.iterdir()) == ["b.sqlite3"]
    text = capsys.readouterr().out
    assert f"written to {out}" in text and f"schema version {len(MIGRATIONS)}" in text
    assert "integrity ok, 3 games of 1 players" in text
    # One file (no WAL mode), readable by others only if the operator says so.
    assert out.stat().st_mode & 0o077 == 0
    conn = sqlite3.connect(out)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    assert games(out) == [0, 1, 2]

    # An existing OUT is kept unless --force; a folder gets a timestamped name.
    assert main(["backup", "--data", str(tmp_path / "data"), str(out)]) == 2
    assert "exists (--force replaces it)" in capsys.readouterr().err
    assert main(["backup", "--data", str(tmp_path / "data"), "--force", str(out)]) == 0
    assert main(["backup", "--data", str(tmp_path / "data"), str(out.parent)]) == 0
    named = [p.name for p in out.parent.iterdir() if p.name != "b.sqlite3"]
    assert len(named) == 1 and named[0].startswith("cardtable-") and named[0].endswith(".sqlite3")


def test_a_backup_that_fails_its_check_never_gets_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_store(tmp_path / "data", games=1)
    out = tmp_path / "b.sqlite3"

    def damaged(path: Path, **kw: object) -> backup_mod.StoreFile:
        raise backup_mod.BackupError(f"{path} fails SQLite's integrity check: (made up)")

    monkeypatch.setattr(backup_mod, "inspect", damaged)
    assert main(["backup", "--data", str(tmp_path / "data"), str(out)]) == 1
    assert "backup failed" in capsys.readouterr().err
    assert not any(p.name.startswith("b.sqlite3") for p in tmp_path.iterdir())
    assert main(["backup", "--data", str(tmp_path / "nothing"), str(out)]) == 1
    assert "there is no store at" in capsys.readouterr().err


def not_a_store(tmp_path: Path, which: str) -> tuple[Path, str]:
    """A file `cardtable restore` must refuse, and the reason it gives."""
    bad = tmp_path / f"{which}.sqlite3"
    if which == "text":
        bad.write_text("not a database\n" * 100)
        return bad, "is not a SQLite database"
    if which == "other-sqlite":
        conn = sqlite3.connect(bad)
        conn.execute("CREATE TABLE notes (x TEXT)")
        conn.commit()
        conn.close()
        return bad, "is not a cardtable store"
    shutil.copyfile(make_store(tmp_path / which, games=40), bad)
    conn = sqlite3.connect(bad)
    if which == "newer":
        conn.execute(
            "INSERT INTO schema_version VALUES (?, 'from the future', 'now')",
            (len(MIGRATIONS) + 1,),
        )
        conn.commit()
        conn.close()
        return bad, f"schema version {len(MIGRATIONS) + 1}, newer than this code knows"
    # damaged: the games' table overwritten (reading it fails), or a row's player changed
    # behind its indexes' back (only the integrity check sees it)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    [root] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()
    conn.close()
    with bad.open("r+b") as f:
        f.seek((root - 1) * page)
        if which == "damaged-table":
            f.write(b"\xff" * page)
        else:  # the root is an interior page: the bytes of a row are in a later page
            data = bad.read_bytes()
            at = data.index(b"alice", root * page)
            f.seek(at)
            f.write(b"alicf")
    return bad, "is damaged"


@pytest.mark.parametrize(
    "which", ["text", "other-sqlite", "newer", "damaged-table", "damaged-index"]
)
def test_restore_refuses_what_is_not_a_store_it_can_run_and_changes_nothing(
    tmp_path: Path, which: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = make_store(tmp_path / "data", games=2)
    before = store.read_bytes()
    bad, reason = not_a_store(tmp_path, which)
    assert main(["restore", "--data", str(tmp_path / "data"), str(bad)]) == 1
    err = capsys.readouterr().err
    assert "restore refused" in err and reason in err and str(bad) in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in store.parent.iterdir()) == [
        "cardtable.sqlite3",
        "cardtable.sqlite3.lock",
    ]


def test_restore_refuses_a_store_in_use_and_a_backup_can_still_be_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    make_store(data, games=2)
    backup = tmp_path / "b.sqlite3"
    store = SqliteStore(data / "cardtable.sqlite3")  # what a serving process holds
    try:
        store.create_game("alice", KIND, {"n": 2}, finished=False)
        assert main(["backup", "--data", str(data), str(backup)]) == 0
        assert main(["restore", "--data", str(data), str(backup)]) == 1
        err = capsys.readouterr().err
        assert "is using" in err and "Stop it first" in err and "process " in err
        assert not any("before-restore" in p.name for p in data.iterdir())
    finally:
        store.close()
    assert games(backup) == [0, 1, 2]
    # Stopped: the restore goes through.
    assert main(["restore", "--data", str(data), str(backup)]) == 0


def test_a_store_opening_during_a_restore_waits_then_gives_up(tmp_path: Path) -> None:
    """A server starting while a restore runs waits for it (its busy timeout), then fails
    plainly (and opens the store on the first request after, as on any failed start)."""
    path = make_store(tmp_path / "data", games=1)
    # exclusive: what a restore holds
    with exclusive(path), pytest.raises(StoreInUse, match="is being restored"):
        SqliteStore(path, busy_ms=100)
    SqliteStore(path, busy_ms=100).close()


def test_restore_keeps_the_current_store_aside_with_its_wal_and_removes_its_shm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The store as a crashed server leaves it (its last moves only in its -wal, a stale
    -shm) is kept whole under the new name; the backup is served under the old one."""
    data = tmp_path / "data"
    make_store(data, games=1)
    backup = tmp_path / "b.sqlite3"
    assert main(["backup", "--data", str(data), str(backup)]) == 0
    live = SqliteStore(data / "cardtable.sqlite3")
    live.create_game("alice", KIND, {"n": 1}, finished=False)
    # A crash: the files as they are while the store is open (the -wal holds game 1).
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(data / f"cardtable.sqlite3{suffix}", crashed / f"cardtable.sqlite3{suffix}")
    live.close()
    shutil.rmtree(data)
    shutil.copytree(crashed, data)

    capsys.readouterr()
    assert main(["restore", "--data", str(data), str(backup)]) == 0
    out = capsys.readouterr().out
    names = sorted(p.name for p in data.iterdir())
    [aside] = [n for n in names if n.startswith("cardtable.sqlite3.before-") and "-wal" not in n]
    assert names == sorted(["cardtable.sqlite3", "cardtable.sqlite3.lock", aside, aside + "-wal"])
    assert f"kept as {data / aside}, {data / aside}-wal" in out
    assert "1 games of 1 players" in out
    assert games(data / "cardtable.sqlite3") == [0]
    assert games(data / aside) == [0, 1]  # the kept store, its -wal included

    # The kept store can itself be restored (undoing the restore), -wal and all.
    assert main(["restore", "--data", str(data), str(data / aside)]) == 0
    assert games(data / "cardtable.sqlite3") == [0, 1]


def test_restore_into_an_empty_folder_and_an_older_schema_is_migrated_on_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = make_store(tmp_path / "old", games=1)
    conn = sqlite3.connect(old)
    conn.execute("DELETE FROM schema_version WHERE version = ?", (len(MIGRATIONS),))
    conn.commit()
    conn.close()
    data = tmp_path / "fresh"
    assert main(["restore", "--data", str(data), str(old)]) == 0
    out = capsys.readouterr().out
    assert f"schema version {len(MIGRATIONS) - 1}" in out
    assert f"migrates it to schema version {len(MIGRATIONS)}" in out
    assert "there was no store before it" in out


def test_with_database_url_both_print_the_postgresql_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing listens on port 1: the command dumps the whole database.
    monkeypatch.setenv("DATABASE_URL", "postgresql://cardtable@127.0.0.1:1/cardtable")
    assert main(["backup", str(tmp_path / "b.dump")]) == 2
    err = capsys.readouterr().err
    assert "not reachable now" in err
    assert f'pg_dump --format=custom --file={tmp_path / "b.dump"} --dbname="$DATABASE_URL"' in err
    assert main(["restore", str(tmp_path / "b.dump")]) == 2
    err = capsys.readouterr().err
    assert f"pg_restore --exit-on-error --no-owner --dbname=NEWDB {tmp_path / 'b.dump'}" in err
    assert not any(tmp_path.iterdir())
