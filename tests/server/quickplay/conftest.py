"""Fixtures for the quick-play tests: a site of one or more apps over one store (SQLite or
PostgreSQL), their people (each a player id at a client address of its own unless told),
and one clock the test moves by hand, which every app's quick play reads. The apps'
lifespans never start, so no background matcher runs: the test makes the matcher's rounds
(`Matcher.once()`) itself, at the clock it set."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.quick_config import QuickSettings
from cardtable.server.quickplay.service import QuickPlay
from tests.server.helpers import store_settings

QP = "/api/quick-play"
ONLINE = "/api/kings-corner/online"
CARD = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")
JSON = Any


@pytest.fixture
def quick_options() -> QuickSettings:
    return QuickSettings()


@pytest.fixture(params=["sqlite", "postgres"])
def database(
    request: pytest.FixtureRequest, tmp_path: Path, quick_options: QuickSettings
) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        player_rate=None,
        signup_rate=None,
        search_processes=0,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0),
        quick=quick_options,
    ) as settings:
        yield settings


class Person:
    """One browser: a player id and its requests to one app, from one client address."""

    def __init__(self, site: Site, app: FastAPI, address: str) -> None:
        self.site = site
        self.http = TestClient(app, client=(address, 50000))
        r = self.http.post("/api/players")
        assert r.status_code == 201, r.text
        self.player_id: str = r.json()["player_id"]

    def call(self, method: str, path: str, body: JSON = None, status: int = 200) -> JSON:
        r = self.http.request(method, path, json=body, headers={"X-Player-Id": self.player_id})
        assert r.status_code == status, f"{method} {path} -> {r.status_code}: {r.text}"
        if path.startswith(QP):
            assert not CARD.findall(r.text), r.text  # nothing of a hand in any answer
            self.site.answers += 1
        return None if r.status_code == 204 else r.json()

    def join(self, players: int | None = 2, name: str = "Ann", status: int = 201,
             preset: str = "standard") -> JSON:  # fmt: skip
        return self.call("POST", QP, {"players": players, "preset": preset, "name": name}, status)

    def status(self) -> JSON:
        return self.call("GET", QP)

    def leave(self) -> None:
        self.call("DELETE", QP, status=204)

    def token(self) -> str:
        s = self.status()
        assert s["state"] == "seated", s
        return str(s["token"])

    def table(self, token: str) -> JSON:
        return self.call("GET", f"{ONLINE}/{token}")

    def leave_table(self, token: str) -> None:
        table = self.table(token)
        self.call("POST", f"{ONLINE}/{token}/leave", {"version": table["version"]})


class Site:
    """Apps over one store, their people and the one clock."""

    def __init__(self, settings: Settings, apps: int = 1) -> None:
        self.now = time.time()
        self.apps = [create_app(settings) for _ in range(apps)]
        for app in self.apps:
            app.state.quick.clock = lambda: self.now
        self.addresses = 0
        self.answers = 0

    def quick(self, app: int = 0) -> QuickPlay:
        quick: QuickPlay = self.apps[app].state.quick
        return quick

    def person(self, app: int = 0, address: str | None = None) -> Person:
        if address is None:
            self.addresses += 1
            address = f"10.0.{self.addresses // 250}.{self.addresses % 250 + 1}"
        return Person(self, self.apps[app], address)

    def match(self, app: int = 0) -> int:
        return self.quick(app).matcher.once()

    def close(self) -> None:
        for app in self.apps:
            app.state.runtime.close()


@pytest.fixture
def site(database: Settings) -> Iterator[Site]:
    s = Site(database)
    try:
        yield s
    finally:
        s.close()
