"""Fixtures for the reliability tests (issue 9): an app on a temporary SQLite file with
test seeds allowed, its client, players, and a PostgreSQL server (tests/support/postgres.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi import FastAPI

from cardtable.server import Settings, create_app
from tests.server.helpers import Api
from tests.support.postgres import PostgresUnavailable, shared_postgres

if TYPE_CHECKING:
    from starlette.testclient import TestClient


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # These tests play at machine speed, far above any person: the rate limits have their
    # own test (test_hostile_input.py) with tightened settings.
    return Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        hint_budget=4,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
    )


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
    return Api.new_player(client)


@pytest.fixture
def other(client: TestClient) -> Api:
    return Api.new_player(client)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        yield shared_postgres()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
