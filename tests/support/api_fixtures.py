"""Fixtures shared by the API test folders (tests/server, tests/reliability): an app built from
the folder's own `settings` fixture, its in-process client, two players, and a PostgreSQL
server (tests/support/postgres.py). Registered for the whole suite by tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI

from cardtable.server import Settings, create_app
from tests.server.helpers import Api
from tests.support.postgres import PostgresUnavailable, shared_postgres

if TYPE_CHECKING:
    from starlette.testclient import TestClient


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
