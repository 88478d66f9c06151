"""A thin client for the API tests: one player, JSON in and out, status checked, and every
response kept so a test can inspect all of them (e.g. for hidden cards)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cardtable.server import Settings
from tests.support.postgres import fresh_schema

if TYPE_CHECKING:
    from starlette.testclient import TestClient

JSON = Any


@contextmanager
def store_settings(
    request: pytest.FixtureRequest, tmp_path: Path, **options: Any
) -> Iterator[Settings]:
    """Settings on the store named by a fixture's param ("sqlite" or "postgres", a fresh
    schema of the session's PostgreSQL), for the API tests that run on both."""
    data_dir = tmp_path / "data"
    if request.param == "sqlite":
        yield Settings(data_dir=data_dir, database_url=None, **options)
        return
    with fresh_schema(request.getfixturevalue("postgres_url")) as url:
        yield Settings(data_dir=data_dir, database_url=url, **options)


class Clock:
    """An injectable clock a test moves by hand (``app.state.<feature>_clock``)."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


class Api:
    def __init__(self, client: TestClient, player_id: str | None) -> None:
        self.client = client
        self.player_id = player_id
        self.responses: list[JSON] = []

    @classmethod
    def new_player(cls, client: TestClient) -> Api:
        r = client.post("/api/players")
        assert r.status_code == 201, r.text
        return cls(client, r.json()["player_id"])

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.player_id is None else {"X-Player-Id": self.player_id}

    def call(self, method: str, path: str, body: JSON = None, status: int = 200) -> JSON:
        kwargs: dict[str, Any] = {"headers": self.headers}
        if body is not None:
            kwargs["json"] = body
        r = self.client.request(method, path, **kwargs)
        assert r.status_code == status, f"{method} {path} -> {r.status_code}: {r.text}"
        assert r.headers["content-type"].startswith("application/json"), r.headers
        data = r.json()
        self.responses.append(data)
        return data

    def get(self, path: str, status: int = 200) -> JSON:
        return self.call("GET", path, status=status)

    def post(self, path: str, body: JSON = None, status: int = 200) -> JSON:
        return self.call("POST", path, body, status=status)

    # -- Poker Squares -------------------------------------------------------------------
    def ps_new(self, status: int = 201, **options: Any) -> JSON:
        return self.post("/api/poker-squares/games", options, status=status)

    def ps(self, game: JSON, action: str, status: int = 200, **body: Any) -> JSON:
        body.setdefault("version", game["version"])
        return self.post(f"/api/poker-squares/games/{game['id']}/{action}", body, status=status)

    # -- Kings Corner --------------------------------------------------------------------
    def kc_new(self, status: int = 201, **options: Any) -> JSON:
        options.setdefault("seats", [{"kind": "human"}, {"kind": "computer", "strength": "easy"}])
        return self.post("/api/kings-corner/games", options, status=status)

    def kc(self, game: JSON, action: str, status: int = 200, **body: Any) -> JSON:
        body.setdefault("version", game["version"])
        return self.post(f"/api/kings-corner/games/{game['id']}/{action}", body, status=status)
