"""Fixtures for the Poker Squares table tests: an app on a temporary SQLite file, the hint
in the request's own process with the learned evaluator alone (budget 0: quick; its quality
is the hint engine's business)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        player_rate=None,
        signup_rate=None,
        hint_budget=0,
        search_processes=0,
    )


@pytest.fixture
def quiet(app: FastAPI) -> Iterator[TestClient]:
    """A client of ``app`` without its lifespan: no driver looks at the tables by itself (the
    tests that move the clock call the driver's rounds themselves)."""
    yield TestClient(app)
