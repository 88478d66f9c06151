"""Devices at once, over real HTTP (uvicorn on loopback), on SQLite and PostgreSQL: several
browsers claiming one transfer code at the same moment (exactly one wins, the others get
404 ``bad_code``, one credential is added), two devices of one record moving in the same
game on the same version (the version compare-and-set decides: one 200, one 409
``stale_version`` carrying the current game), and guesses at once against the stored
guessing limit (never more answered than its burst)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardtable.server import Settings, create_app
from tests.server.helpers import store_settings
from tests.support.live_server import live_server

CLAIMS = 8


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=0, claim_rate=None) as settings:
        yield settings


def at_once(base: str, calls: list[Callable[[httpx.Client], httpx.Response]]) -> list[Any]:
    """Run every call at the same moment, one client each; (status, body) in call order."""
    answers: list[Any] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            barrier.wait()
            r = calls[i](http)
            answers[i] = (r.status_code, r.json())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(a is not None for a in answers)
    return answers


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_racing_claims_and_moves(settings: Settings) -> None:
    with live_server(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as http:
        first = {"X-Player-Id": http.post("/api/players").json()["player_id"]}
        code = http.post("/api/devices/transfer", headers=first).json()["code"]

        def claimer(i: int) -> Callable[[httpx.Client], httpx.Response]:
            return lambda c: c.post("/api/devices/claim", json={"code": code, "name": f"d{i}"})

        answers = at_once(base, [claimer(i) for i in range(CLAIMS)])
        won = [body for status, body in answers if status == 201]
        assert len(won) == 1, [a[0] for a in answers]
        assert sorted((status, body["code"]) for status, body in answers if status != 201) == [
            (404, "bad_code")
        ] * (CLAIMS - 1)
        devices = http.get("/api/devices", headers=first).json()["devices"]
        assert len(devices) == 2 and devices[1]["name"] == won[0]["name"]
        second = {"X-Player-Id": won[0]["player_id"]}

        # Two devices, one game, one version: the compare-and-set picks one.
        game = http.post("/api/poker-squares/games", json={}, headers=first).json()
        path = f"/api/poker-squares/games/{game['id']}/moves"

        def mover(body: dict[str, int], who: dict[str, str]) -> Callable[[httpx.Client], Any]:
            return lambda c: c.post(path, json=body, headers=who)

        for turn in range(3):
            v = game["version"]
            answers = at_once(
                base,
                [
                    mover({"version": v, "row": turn, "col": 0}, first),
                    mover({"version": v, "row": turn, "col": 1}, second),
                ],
            )
            statuses = sorted(a[0] for a in answers)
            assert statuses == [200, 409], answers
            (_, win), (_, lose) = sorted(answers, key=lambda a: a[0])
            assert lose["code"] == "stale_version" and lose["current"] == win
            game = win
        final = http.get(f"/api/poker-squares/games/{game['id']}", headers=second).json()
        assert final == game and final["version"] == 4


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_guesses_at_once_never_pass_the_stored_limit(settings: Settings) -> None:
    """Twelve guesses at the same moment from one address, on two apps (two server
    processes) over one store, against a burst of 5: exactly 5 are looked at (404), the
    other 7 are refused (429); the buckets' compare-and-set never spends a token twice."""
    limited = dataclasses.replace(settings, claim_rate=1 / 60, claim_burst=5)
    with live_server(create_app(limited)) as one, live_server(create_app(limited)) as two:

        def guess(base: str) -> Callable[[httpx.Client], httpx.Response]:
            return lambda c: c.post(f"{base}/api/devices/claim", json={"code": "2345-6789"})

        answers = at_once(one, [guess(one if i % 2 else two) for i in range(12)])
    assert sorted(status for status, _ in answers) == [404] * 5 + [429] * 7, answers
