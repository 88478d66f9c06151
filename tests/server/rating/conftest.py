"""The rating tests run on both stores: an app on a fresh SQLite file or PostgreSQL schema
(no per-player limit, a long grace so no device is away unless it left), its rater
(`app.state.rater`) and a client without the app's background work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.rating.rate import Rater
from tests.server.helpers import store_settings


@pytest.fixture(params=["sqlite", "postgres"])
def rating_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        player_rate=None,
        signup_rate=None,
        search_processes=0,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=600.0),
    ) as settings:
        yield settings


@pytest.fixture
def app(rating_settings: Settings) -> Iterator[FastAPI]:
    app = create_app(rating_settings)
    try:
        yield app
    finally:
        app.state.runtime.close()


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app)


@pytest.fixture
def rater(app: FastAPI) -> Rater:
    rater: Rater = app.state.rater
    return rater
