"""Quick play in the browser (docs/quickplay.md, "The pages"): a real server on a loopback
port with quick play's fill time set by the test, and two real `cardtable serve` processes
sharing one throwaway PostgreSQL schema (as tests/online_multi/ starts them) for the tests
that seat players across processes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.quick_config import QuickSettings
from tests.support.live_server import live_server
from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess

LONG_WAIT = 3600.0
"""A fill time no test reaches: a player who waits alone stays waiting."""


@contextlib.contextmanager
def quick_server(data_dir: Path, *, fill_seconds: float = LONG_WAIT) -> Iterator[str]:
    """A server (SQLite) with fast online timings, the per-address and per-player bounds
    opened (every test device is 127.0.0.1 and a test joins and leaves quickly) and quick
    play's fill time `fill_seconds`. Yields the base URL."""
    online = OnlineSettings(
        grace_seconds=3.0,
        computer_step_seconds=0.1,
        lookup_rate=None,
        join_rate=None,
        table_rate=None,
        qr_rate=None,
    )
    quick = QuickSettings(
        fill_seconds=fill_seconds,
        per_address=100,
        join_burst=100,
        address_burst=1000,
        leave_burst=100,
        read_burst=1000,
    )
    settings = Settings(
        data_dir=data_dir,
        database_url=None,
        online=online,
        quick=quick,
        allow_seed_for_tests=True,
    )
    with live_server(create_app(settings), traced=False) as url:
        yield url


@pytest.fixture(scope="module")
def quick_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with quick_server(tmp_path_factory.mktemp("quick-web")) as url:
        yield url


@dataclass
class Pair:
    """Two `cardtable serve` processes, A and B, over one PostgreSQL schema (`url`)."""

    url: str
    a: ServeProcess
    b: ServeProcess

    def logs(self) -> str:
        return self.a.output() + self.b.output()


@pytest.fixture(scope="module")
def processes(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    root = tmp_path_factory.mktemp("quick-multi")
    with fresh_schema(postgres_url) as url:
        a = ServeProcess(root / "a", root / "a.log", url)
        b = ServeProcess(root / "b", root / "b.log", url)
        try:
            # Side by side: each spends seconds importing the site.
            with ThreadPoolExecutor(2) as pool:
                for started in [pool.submit(p.start, 90) for p in (a, b)]:
                    started.result()
            yield Pair(url, a, b)
        finally:
            a.stop()
            b.stop()
