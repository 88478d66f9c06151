"""Fixtures for the reliability tests (issue 9): the settings of an app on a temporary SQLite
file with test seeds allowed and no rate limits (the app, client, players and PostgreSQL
fixtures come from tests/support/api_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.server import Settings


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
