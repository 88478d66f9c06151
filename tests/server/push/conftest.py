"""Fixtures for the push tests: the test push service on loopback, and an app on a temporary
SQLite file or a fresh PostgreSQL schema that may send to it (http on 127.0.0.1), polling its
outbox often."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

import pytest

from cardtable.server import Settings
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.push_config import PushSettings
from tests.support.postgres import fresh_schema
from tests.support.push_service import PushService


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService().start()
    yield service
    service.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """Both stores: the table saves write the outbox in their own transaction on each."""
    url: AbstractContextManager[str | None] = nullcontext(None)
    if request.param == "postgresql":
        url = fresh_schema(request.getfixturevalue("postgres_url"))
    with url as database_url:
        yield _settings(tmp_path, database_url)


def _settings(tmp_path: Path, database_url: str | None) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=600.0),
        push=PushSettings(
            vapid_private_key=None,
            endpoint_hosts=("127.0.0.1",),
            allow_http=True,
            poll_seconds=0.05,
            retry_seconds=0.05,
        ),
    )
