"""The fan-out between processes (cardtable/server/online/fanout.py) on a real PostgreSQL: a
notification sent in a save's transaction reaches a listening hub when it commits (and never
when it rolls back); after its listener connection is killed it reconnects and catches up on
the change it missed; SQLite gets the local fan-out that does nothing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from cardtable.server import Settings
from cardtable.server.core.store.postgres import PostgresStore
from cardtable.server.online.fanout import LocalFanout, PgFanout, make_fanout
from cardtable.server.online.hub import Hub
from cardtable.server.online.store import OnlineStore
from tests.support.aio import run
from tests.support.postgres import fresh_schema

WAIT = 5.0


@pytest.fixture
def pg(postgres_url: str) -> Iterator[tuple[str, OnlineStore]]:
    with fresh_schema(postgres_url) as url:
        store = PostgresStore(url, pool_size=2)
        try:
            yield url, OnlineStore(store)
        finally:
            store.close()


def _create(store: OnlineStore, key: str) -> None:
    now = time.time()
    store.create(key, {"n": 0}, at=now, code_until=now + 60, due_at=None)


def test_make_fanout_follows_the_store(tmp_path: Path) -> None:
    sqlite = Settings(data_dir=tmp_path, database_url=None)
    assert isinstance(make_fanout(sqlite), LocalFanout)
    pg = Settings(data_dir=tmp_path, database_url="postgresql://u@127.0.0.1:1/db")
    fanout = make_fanout(pg)
    assert isinstance(fanout, PgFanout) and fanout.url == pg.database_url


def test_the_local_fanout_sends_nothing_and_waits() -> None:
    async def main() -> None:
        fanout = LocalFanout()
        fanout.published(None, "t", 1)
        task = asyncio.create_task(fanout.run(Hub()))
        await asyncio.sleep(0.05)
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())


def test_a_committed_save_is_heard_and_a_rolled_back_one_is_not(
    pg: tuple[str, OnlineStore],
) -> None:
    url, store = pg
    _create(store, "k1")

    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        fanout = PgFanout(url)
        task = asyncio.create_task(fanout.run(hub))
        try:
            with hub.watch("k1") as watch:
                await asyncio.wait_for(fanout.listening.wait(), WAIT)
                # The catch-up on connecting told the hub the stored version.
                assert await watch.wait(WAIT) and hub.watched() == {"k1": 1}

                def rolled_back() -> None:
                    with pytest.raises(RuntimeError), store.sql.transaction() as tx:
                        fanout.published(tx, "k1", 9)
                        raise RuntimeError("the save failed")

                await asyncio.to_thread(rolled_back)
                record = store.load("k1")
                assert record is not None
                started = time.monotonic()
                saved = await asyncio.to_thread(
                    store.save, record, {"n": 1}, due_at=None, keep_code=True,
                    published=fanout.published,
                )  # fmt: skip
                assert await watch.wait(WAIT)
                assert time.monotonic() - started < 1.0
                assert saved.version == 2 and hub.watched() == {"k1": 2}  # never 9
                # Notes of unwatched tables and malformed ones change nothing.
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute("SELECT pg_notify('cardtable_online', 'other:4')")
                    conn.execute("SELECT pg_notify('cardtable_online', 'k1:x')")
                    conn.execute("SELECT pg_notify('cardtable_online', 'k1:3')")
                assert await watch.wait(WAIT) and hub.watched() == {"k1": 3}
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(main())


def test_the_listener_reconnects_and_catches_up(pg: tuple[str, OnlineStore]) -> None:
    url, store = pg
    _create(store, "k2")

    async def main() -> None:
        hub = Hub()
        hub.bind(asyncio.get_running_loop())
        fanout = PgFanout(url, retry_first=0.5, check_seconds=0.1)
        task = asyncio.create_task(fanout.run(hub))
        try:
            with hub.watch("k2") as watch:
                await asyncio.wait_for(fanout.listening.wait(), WAIT)
                assert await watch.wait(WAIT) and hub.watched() == {"k2": 1}
                pid = fanout.backend_pid
                with psycopg.connect(url, autocommit=True) as conn:
                    killed = conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()
                    assert killed == (True,)
                    # Saved while the listener is gone, without a notification: only the
                    # catch-up on reconnecting can tell the hub.
                    end = time.monotonic() + WAIT
                    while fanout.listening.is_set():
                        assert time.monotonic() < end, "the listener never noticed"
                        await asyncio.sleep(0.01)
                record = store.load("k2")
                assert record is not None
                await asyncio.to_thread(store.save, record, {"n": 1}, due_at=None, keep_code=True)
                assert await watch.wait(WAIT) and hub.watched() == {"k2": 2}
                await asyncio.wait_for(fanout.listening.wait(), WAIT)
                assert fanout.connects == 2 and fanout.backend_pid != pid
                # And the new connection hears the next save at once.
                record = store.load("k2")
                assert record is not None
                await asyncio.to_thread(
                    store.save, record, {"n": 2}, due_at=None, keep_code=True,
                    published=fanout.published,
                )  # fmt: skip
                assert await watch.wait(WAIT) and hub.watched() == {"k2": 3}
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(main())


def test_an_unreachable_database_is_retried_quietly(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        fanout = PgFanout("postgresql://nobody@127.0.0.1:1/none", retry_first=0.01, retry_most=0.02)
        task = asyncio.create_task(fanout.run(Hub()))
        await asyncio.sleep(0.3)
        assert not task.done() and not fanout.listening.is_set()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with caplog.at_level("DEBUG", logger="cardtable.server.online"):
        run(main())
    warnings = [r for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "cannot connect" in warnings[0].getMessage()
    assert sum(r.levelname == "DEBUG" for r in caplog.records) >= 2
