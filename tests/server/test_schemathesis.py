"""Schemathesis over the whole OpenAPI document, in-process, with bounded examples: no input
gives a 500, and every answer matches its documented status, content type and schema.

Most generated requests carry a real player id, and path ids are swapped for real games of
the right kind (with their current version half of the time), so the fuzzing reaches the
engines rather than stopping at 401 and 404. A shorter run does the same on PostgreSQL."""

from __future__ import annotations

import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from tests.server.helpers import Api
from tests.support.fuzzing import REFUSED_BY_RULE
from tests.support.postgres import fresh_schema


class Target:
    """The app the schema's requests go to: each test points it at its own backend."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


# The schema is loaded when the module is imported (schemathesis parametrizes at
# collection), so the SQLite app gets its own temporary folder here; building it connects
# nothing.
_DATA = Path(tempfile.mkdtemp(prefix="cardtable-fuzz-"))
sqlite_app = create_app(Settings(data_dir=_DATA, database_url=None, hint_budget=4))
target = Target(sqlite_app)
schema = schemathesis.openapi.from_asgi("/openapi.json", target)


def seed(app: Any) -> dict[str, Any]:
    """A player with a game of each kind, for the fuzzed requests to aim at."""
    with TestClient(app) as client:
        api = Api.new_player(client)
        ps_game = api.ps_new()
        kc_game = api.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}])
        return {"app": app, "headers": api.headers, "ps": ps_game["id"], "kc": kc_game["id"]}


@pytest.fixture(scope="module")
def on_sqlite() -> Iterator[dict[str, Any]]:
    yield seed(sqlite_app)
    sqlite_app.state.runtime.close()
    shutil.rmtree(_DATA, ignore_errors=True)


@pytest.fixture(scope="module")
def on_postgres(postgres_url: str) -> Iterator[dict[str, Any]]:
    with fresh_schema(postgres_url) as url:
        app = create_app(Settings(data_dir=_DATA, database_url=url, hint_budget=4))
        yield seed(app)
        app.state.runtime.close()


def _current_version(client: TestClient, path: str, headers: dict[str, str]) -> int | None:
    r = client.get(path, headers=headers)
    return int(r.json()["version"]) if r.status_code == 200 else None


def fuzz(case: Any, world: dict[str, Any]) -> None:
    target.app = world["app"]
    salt = zlib.crc32(repr((case.path_parameters, case.body)).encode())
    headers = None if salt % 5 == 0 else world["headers"]
    params = case.path_parameters or {}
    negative = case.meta is not None and case.meta.generation.mode.is_negative
    if "game_id" in params and salt % 3:
        kind = "ps" if "/poker-squares/" in case.path else "kc"
        params["game_id"] = world[kind]
        # Only schema-valid requests are brought up to date: invalid ones must stay invalid.
        if isinstance(case.body, dict) and "version" in case.body and salt % 2 and not negative:
            game_path = case.path.split("/games/")[0] + "/games/" + world[kind]
            with TestClient(world["app"]) as client:
                version = _current_version(client, game_path, world["headers"])
            if version is not None:
                case.body["version"] = version
    excluded = [positive_data_acceptance] if case.path.startswith(REFUSED_BY_RULE) else []
    response = case.call_and_validate(headers=headers, excluded_checks=excluded)
    assert response.status_code < 500


@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck))
def test_no_input_breaks_the_api(case: Any, on_sqlite: dict[str, Any]) -> None:
    fuzz(case, on_sqlite)


@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck))
def test_no_input_breaks_the_api_on_postgresql(case: Any, on_postgres: dict[str, Any]) -> None:
    fuzz(case, on_postgres)
