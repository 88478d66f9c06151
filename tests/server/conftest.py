"""Fixtures for the server tests: the settings of an app on a temporary SQLite file (the app,
client, players and PostgreSQL fixtures come from tests/support/api_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.server import Settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # A small hint budget keeps the tests quick; the hint's quality is the hint engine's
    # business (its own tests and benchmark).
    return Settings(data_dir=tmp_path / "data", database_url=None, hint_budget=8)
