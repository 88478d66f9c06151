"""Fixtures for the online-table tests: an app on a temporary SQLite file with test seeds,
no per-player limit and quick timings (grace, computer steps)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardtable.server import Settings
from cardtable.server.core.online_config import OnlineSettings


@pytest.fixture
def online_settings() -> OnlineSettings:
    return OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0)


@pytest.fixture
def settings(tmp_path: Path, online_settings: OnlineSettings) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        online=online_settings,
    )
