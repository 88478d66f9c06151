"""The Poker Squares table's browser tests (docs/ps-tables.md): one real server per worker
with the online tables' per-address limits off (every test device comes from 127.0.0.1) and
a short grace period, and a device maker (each device its own browser context, so its own
player id)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from fastapi import FastAPI
from playwright.sync_api import Browser, Page

from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import devices
from tests.web.pstable.helpers import pst_app as make_app
from tests.web.pstable.helpers import pst_server

Device = Callable[..., Page]


@pytest.fixture(scope="session")
def pst_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return make_app(tmp_path_factory.mktemp("pst-web"))


@pytest.fixture(scope="session")
def pst_url(pst_app: FastAPI) -> Iterator[str]:
    with pst_server(pst_app) as url:
        yield url


@pytest.fixture
def device(browser: Browser, pst_url: str, console_guard: ConsoleGuard) -> Iterator[Device]:
    """Opens a device (`phone=True`, `locale="ja-JP"`) on the server; closed after the test."""
    with devices(browser, pst_url, console_guard) as make:
        yield make
