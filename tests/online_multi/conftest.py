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

from bench.proxy import Nginx
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
    scope="package",
    params=[
        "processes",
        pytest.param("workers", marks=pytest.mark.deep),
        pytest.param("proxied", marks=pytest.mark.deep),
    ],
)
def cluster(
    request: pytest.FixtureRequest, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    """``processes``: two `cardtable serve` processes, A and B. ``workers``: one
    `cardtable serve --workers 2`, A and B both being its one address (each connection
    lands on whichever worker accepts it, so the devices' sockets and moves cross workers
    as they would in production). ``proxied``: the two processes behind the shipped nginx
    site (deploy/nginx/, bench/proxy.py), A and B both being the proxy's address, so
    each request and socket goes to whichever process the proxy hands it to."""
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
    proxied = request.param == "proxied"
    args = ("--forwarded-allow-ips", "127.0.0.1") if proxied else ()
    with fresh_schema(postgres_url) as url:
        a = ServeProcess(root / "a", root / "a.log", url, args=args)
        b = ServeProcess(root / "b", root / "b.log", url, args=args)
        proxy: Nginx | None = None
        try:
            # Side by side: each spends seconds importing the site.
            with ThreadPoolExecutor(2) as pool:
                for started in [pool.submit(p.start, 90) for p in (a, b)]:
                    started.result()
            if proxied:
                proxy = Nginx(root / "nginx", [f"127.0.0.1:{p.port}" for p in (a, b)])
                a.base = b.base = proxy.start()
            yield Cluster(url, a, b)
        finally:
            if proxy is not None:
                proxy.stop()
            a.stop()
            b.stop()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
