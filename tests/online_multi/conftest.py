"""Two real `cardtable serve` processes on 127.0.0.1 sharing one throwaway PostgreSQL schema
(tests/support: `postgres_url`, `fresh_schema`, `ServeProcess`), started once for this folder
and stopped after it; each answers /healthz before a test runs. The browser tests here use
the system Chromium as tests/web does."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess
from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS


@dataclass
class Cluster:
    url: str
    """The PostgreSQL URL both processes use (its own schema)."""
    a: ServeProcess
    b: ServeProcess

    def http(self, process: ServeProcess) -> httpx.Client:
        return httpx.Client(base_url=process.base, timeout=10)

    def logs(self) -> str:
        return self.a.output() + (self.b.output() if self.b is not self.a else "")


@pytest.fixture(
    scope="package", params=["processes", pytest.param("workers", marks=pytest.mark.deep)]
)
def cluster(
    request: pytest.FixtureRequest, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """``processes``: two `cardtable serve` processes, A and B. ``workers``: one
    `cardtable serve --workers 2`, A and B both being its one address (each connection
    lands on whichever worker accepts it, so the devices' sockets and moves cross workers
    as they would in production)."""
    root: Path = tmp_path_factory.mktemp("online-multi")
    if request.param == "workers":
        with fresh_schema(postgres_url) as url:
            one = ServeProcess(root / "w", root / "w.log", url, workers=2)
            try:
                one.start(90)
                yield Cluster(url, one, one)
            finally:
                one.stop()
        return
    with fresh_schema(postgres_url) as url:
        a = ServeProcess(root / "a", root / "a.log", url)
        b = ServeProcess(root / "b", root / "b.log", url)
        try:
            # Side by side: each spends seconds importing the site.
            with ThreadPoolExecutor(2) as pool:
                for started in [pool.submit(p.start, 90) for p in (a, b)]:
                    started.result()
            yield Cluster(url, a, b)
        finally:
            a.stop()
            b.stop()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
