"""The online tables' abuse limits (docs/online.md "Abuse limits"): code lookups and joins
per address, tightened here so a test reaches them."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.core.online_config import OnlineSettings

from .helpers import BASE, Device, Recorder


@pytest.fixture
def recorder(app: FastAPI) -> Recorder:
    return Recorder(app)


@pytest.fixture
def online_settings() -> OnlineSettings:
    return OnlineSettings(
        computer_step_seconds=0.0, lookup_rate=1.0, lookup_burst=3, join_rate=1.0, join_burst=2
    )


def test_code_lookups_and_joins_are_rate_limited(client: TestClient, recorder: Recorder) -> None:
    ann, bob = Device(client, recorder), Device(client, recorder)
    created = ann.create()
    answers = [bob.http.get(f"{BASE}/codes/ZZZZZZ", headers={"X-Player-Id": bob.player_id})
               for _ in range(4)]  # fmt: skip
    assert [r.status_code for r in answers] == [404, 404, 404, 429]
    assert answers[-1].json()["code"] == "rate_limited" and answers[-1].headers["retry-after"]
    table = created["table"]
    assert bob.act(table, "join", name="", status=422)["code"] == "invalid_name"
    assert bob.act(table, "join", name="", status=422)["code"] == "invalid_name"
    assert bob.act(table, "join", name="Bob", status=429)["code"] == "rate_limited"
