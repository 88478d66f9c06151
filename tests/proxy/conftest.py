"""The shipped nginx site (deploy/nginx/, bench/proxy.py) in front of two real
`cardtable serve` processes that share nothing but a throwaway PostgreSQL schema: separate
data folders, separate search pools, each believing X-Forwarded-For from the proxy only
(``--forwarded-allow-ips 127.0.0.1``). Started once for this folder; a test that kills a
process starts it again on its port before it ends."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.proxy import Nginx
from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess

PROXY_ARGS = ("--forwarded-allow-ips", "127.0.0.1")


@dataclass
class Site:
    url: str
    """The PostgreSQL URL both processes use (its own schema)."""
    a: ServeProcess
    b: ServeProcess
    proxy: Nginx

    @property
    def base(self) -> str:
        return self.proxy.base

    def logs(self) -> str:
        return self.a.output() + self.b.output() + self.proxy.errors()


@pytest.fixture(scope="package")
def site(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root: Path = tmp_path_factory.mktemp("proxy")
    with fresh_schema(postgres_url) as url:
        a = ServeProcess(root / "a", root / "a.log", url, args=PROXY_ARGS)
        b = ServeProcess(root / "b", root / "b.log", url, args=PROXY_ARGS)
        proxy: Nginx | None = None
        try:
            # Side by side: each spends seconds importing the site.
            with ThreadPoolExecutor(2) as pool:
                for started in [pool.submit(p.start, 90) for p in (a, b)]:
                    started.result()
            proxy = Nginx(root / "nginx", [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"])
            proxy.start()
            yield Site(url, a, b, proxy)
        finally:
            if proxy is not None:
                proxy.stop()
            a.stop()
            b.stop()
