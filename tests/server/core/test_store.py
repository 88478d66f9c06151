"""The store against SQLite and a real PostgreSQL server: the same tests for both."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from cardtable.server import Settings
from cardtable.server.core.store import (
    Result,
    StaleVersion,
    Store,
    StoreBusy,
    StoreError,
    open_store,
)
from cardtable.server.core.store.postgres import PostgresStore
from cardtable.server.core.store.sqlite import SqliteStore
from tests.support.postgres import free_port, fresh_schema

KIND = "poker-squares"


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A factory of stores on one fresh database (two stores = two server processes)."""
    opened: list[Store] = []
    if request.param == "sqlite":
        path = tmp_path / "store.sqlite3"

        def make() -> Store:
            opened.append(SqliteStore(path))
            return opened[-1]

        yield make
    else:
        base = request.getfixturevalue("postgres_url")
        with fresh_schema(base) as url:

            def make() -> Store:
                opened.append(PostgresStore(url, pool_size=4))
                return opened[-1]

            yield make
            for s in opened:
                s.close()
            return
    for s in opened:
        s.close()


@pytest.fixture
def store(make_store: Any) -> Store:
    s: Store = make_store()
    s.create_player("alice")
    s.create_player("bob")
    return s


def test_players(store: Store) -> None:
    assert store.has_player("alice")
    assert not store.has_player("carol")
    store.create_player("carol")
    assert store.has_player("carol")


def test_a_game_is_found_only_by_its_owner(store: Store) -> None:
    g = store.create_game("alice", KIND, {"n": 1}, finished=False, log=[{"action": "deal"}])
    assert g.version == 1 and g.current and not g.finished
    loaded = store.load_game(g.id, "alice")
    assert loaded is not None and loaded.state == {"n": 1} and loaded.kind == KIND
    assert store.load_game(g.id, "bob") is None
    assert store.load_game("no-such-game", "alice") is None


def test_save_is_compare_and_set(store: Store) -> None:
    g = store.create_game("alice", KIND, {"n": 1}, finished=False)
    g2 = store.save_game(g, {"n": 2}, finished=False, log=[{"move": "a"}])
    assert g2.version == 2
    with pytest.raises(StaleVersion):
        store.save_game(g, {"n": 99}, finished=True, log=[{"move": "lost"}])
    now = store.load_game(g.id, "alice")
    assert now is not None and now.version == 2 and now.state == {"n": 2} and not now.finished
    assert store.move_log(g.id) == [{"move": "a"}]


def test_another_players_record_cannot_be_saved(store: Store) -> None:
    g = store.create_game("alice", KIND, {"n": 1}, finished=False)
    forged = type(g)(**{**g.__dict__, "player": "bob"})
    with pytest.raises(StaleVersion):
        store.save_game(forged, {"n": 2}, finished=False)


def test_concurrent_writers_from_two_processes_one_wins(make_store: Any) -> None:
    a, b = make_store(), make_store()
    a.create_player("alice")
    g = a.create_game("alice", KIND, {"n": 0}, finished=False)
    wins: list[int] = []
    stale: list[int] = []
    barrier = threading.Barrier(8)

    def writer(i: int) -> None:
        s = a if i % 2 else b
        barrier.wait()
        try:
            s.save_game(g, {"n": i}, finished=False, log=[{"writer": i}])
            wins.append(i)
        except StaleVersion:
            stale.append(i)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and len(stale) == 7
    final = b.load_game(g.id, "alice")
    assert final is not None and final.version == 2 and final.state == {"n": wins[0]}
    assert a.move_log(g.id) == [{"writer": wins[0]}]


def test_a_new_game_replaces_the_current_one(store: Store) -> None:
    g1 = store.create_game("alice", KIND, {"n": 1}, finished=False)
    assert store.current_game("alice", KIND) == g1
    g2 = store.create_game("alice", KIND, {"n": 2}, finished=False)
    current = store.current_game("alice", KIND)
    assert current is not None and current.id == g2.id
    old = store.load_game(g1.id, "alice")
    assert old is not None and not old.current
    assert store.current_game("alice", "kings-corner") is None
    assert store.current_game("bob", KIND) is None
    store.save_game(g2, {"n": 3}, finished=True)
    assert store.current_game("alice", KIND) is None


def test_results_best_scores_and_history(store: Store) -> None:
    def finish(table: str, total: int, practice: bool) -> str:
        g = store.create_game("alice", KIND, {}, finished=False)
        r = Result(variant=table, total=total, practice=practice, summary={"t": total})
        store.save_game(g, {}, finished=True, result=r)
        return g.id

    ids = [
        finish("american", 40, False),
        finish("american", 90, True),
        finish("american", 55, False),
        finish("british", 12, False),
    ]
    best = store.best_scores("alice", KIND)
    assert best == {("american", False): 55, ("american", True): 90, ("british", False): 12}
    assert store.best_scores("bob", KIND) == {}
    history = store.results("alice", KIND, variant="american", limit=2)
    assert [r.game_id for r in history] == [ids[2], ids[1]]
    assert history[0].summary == {"t": 55} and not history[0].practice
    assert [r.game_id for r in store.results("alice", KIND, limit=10)] == ids[::-1]


def test_every_finish_of_a_game_is_kept(store: Store) -> None:
    g = store.create_game("alice", KIND, {}, finished=False)
    g = store.save_game(g, {}, finished=True, result=Result("american", 30, False, {}))
    g = store.save_game(g, {}, finished=False)
    store.save_game(g, {}, finished=True, result=Result("american", 35, True, {}))
    later, first = store.results("alice", KIND, limit=5)
    assert (later.total, later.practice) == (35, True)
    assert (first.total, first.practice) == (30, False)
    assert store.best_scores("alice", KIND) == {("american", False): 30, ("american", True): 35}


def test_reopening_keeps_everything(make_store: Any) -> None:
    first = make_store()
    first.create_player("alice")
    g = first.create_game("alice", KIND, {"kept": True}, finished=False)
    first.close()
    again = make_store()
    loaded = again.load_game(g.id, "alice")
    assert loaded is not None and loaded.state == {"kept": True}


def test_sqlite_file_is_created_in_wal_mode(tmp_path: Path) -> None:
    store = open_store(Settings(data_dir=tmp_path / "fresh", database_url=None))
    try:
        assert (tmp_path / "fresh" / "cardtable.sqlite3").exists()
        assert isinstance(store, SqliteStore)
        with store.reading() as cur:
            assert cur.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()


def test_bad_urls_are_refused_plainly(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="postgresql://"):
        open_store(Settings(data_dir=tmp_path, database_url="mysql://x"))
    with pytest.raises(StoreError, match="PostgreSQL"):
        PostgresStore(f"postgresql://postgres@127.0.0.1:{free_port()}/x", connect_timeout=2)


def test_sqlite_connections_do_not_pile_up_as_threads_come_and_go(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.sqlite3")
    store.create_player("alice")

    def open_files() -> int:
        fds = Path("/proc/self/fd")
        names = []
        for fd in fds.iterdir():
            try:
                names.append(str(fd.readlink()))
            except OSError:
                continue
        return sum(1 for n in names if n.startswith(str(tmp_path / "s.sqlite3")))

    try:
        for _ in range(200):  # the threadpool's idle workers exit and new ones start
            t = threading.Thread(target=store.has_player, args=("alice",))
            t.start()
            t.join()
        # Each connection holds the database and its WAL file open: a few, never 200.
        assert open_files() <= 3 * 8
    finally:
        store.close()
    assert open_files() == 0


@pytest.fixture
def named_pg(postgres_url: str) -> Iterator[tuple[str, str]]:
    """A fresh schema's URL whose connections carry a name of their own, and that name."""
    name = f"cardtable_test_{secrets.token_hex(4)}"
    with fresh_schema(postgres_url) as url:
        yield f"{url}&application_name={name}", name


def backends(admin: psycopg.Connection, name: str) -> list[int]:
    rows = admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,)
    ).fetchall()
    return [r[0] for r in rows]


def test_postgres_pool_replaces_broken_connections(
    named_pg: tuple[str, str], postgres_url: str
) -> None:
    url, name = named_pg
    store = PostgresStore(url, pool_size=2)
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        try:
            store.create_player("alice")
            # Every idle connection is closed by the server (a restart, an administrator):
            # the store notices before using one, so no request fails, and none waits long.
            with store.reading(), store.reading():  # two connections, both idle afterwards
                pass
            pids = backends(admin, name)
            assert len(pids) == 2
            for pid in pids:  # the timeout makes it wait until the backend has gone
                admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
            started = time.monotonic()
            for _ in range(4):
                assert store.has_player("alice")
            assert time.monotonic() - started < 5
            assert not set(backends(admin, name)) & set(pids)
            # One that dies during a request fails that request only (StoreError: 503), and
            # is not reused.
            with pytest.raises(StoreError, match="lost"), store.reading() as cur:
                pid = cur.execute("SELECT pg_backend_pid()").fetchone()[0]
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                cur.execute("SELECT 1")
            store.create_player("bob")
            assert store.has_player("bob")
        finally:
            store.close()


def test_postgres_pool_is_bounded_and_closed(named_pg: tuple[str, str], postgres_url: str) -> None:
    url, name = named_pg
    store = PostgresStore(url, pool_size=2)
    store.create_player("alice")
    barrier = threading.Barrier(8)

    def reader() -> None:
        barrier.wait()
        for _ in range(20):
            assert store.has_player("alice")

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        most = 0
        while any(t.is_alive() for t in threads):
            most = max(most, len(backends(admin, name)))
        for t in threads:
            t.join()
        assert 1 <= max(most, len(backends(admin, name))) <= 2
        store.close()
        with pytest.raises(StoreError, match="closed"):
            store.has_player("alice")
        deadline = time.monotonic() + 10
        while backends(admin, name) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert backends(admin, name) == []


def test_postgres_pool_exhausted_is_store_busy(named_pg: tuple[str, str]) -> None:
    url, _ = named_pg
    store = PostgresStore(url, pool_size=1, pool_timeout=0.2)
    try:
        # The first holds the only connection, so the second waits out the timeout.
        with store.reading(), pytest.raises(StoreBusy, match="busy"), store.reading():
            pass
        assert not store.has_player("nobody")  # the pool works again afterwards
    finally:
        store.close()
