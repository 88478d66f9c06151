"""Fixtures for the server tests: an app on a temporary SQLite file, a client, players, and
a PostgreSQL server for the store tests (see tests/support/postgres.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI

from cardtable.server import Settings, create_app
from tests.support.postgres import PostgresUnavailable, shared_postgres

from .helpers import Api

if TYPE_CHECKING:
    from starlette.testclient import TestClient


def pytest_configure(config: pytest.Config) -> None:
    # Starlette's test client says it prefers `httpx2`; httpx is the pinned dev dependency.
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # A small hint budget keeps the tests quick; the hint's quality is the hint engine's
    # business (its own tests and benchmark).
    return Settings(data_dir=tmp_path / "data", database_url=None, hint_budget=8)


@pytest.fixture
def app(settings: Settings) -> FastAPI:
    return create_app(settings)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    from starlette.testclient import TestClient

    with TestClient(app) as c:
        yield c


@pytest.fixture
def api(client: TestClient) -> Api:
    """A new player's view of the API."""
    return Api.new_player(client)


@pytest.fixture
def other(client: TestClient) -> Api:
    """A second player on the same server."""
    return Api.new_player(client)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for this test worker (DATABASE_URL's, or a private one)."""
    try:
        yield shared_postgres()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
