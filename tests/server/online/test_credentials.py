"""A device signed out or deleted while its live channel is open (docs/online.md "Signed out
while connected"), on a real server (uvicorn, real WebSockets), on SQLite and PostgreSQL: the
socket closes within a second with 4401 and the documented reason, and no table message (no
hand) reaches it after the sign-out, whether a table change comes next (the check before every
push) or nothing happens (the guard's sweep), and whichever server process holds the socket."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from websockets.exceptions import ConnectionClosed

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.hub import CredentialGuard
from tests.support.aio import run
from tests.support.live_server import live_server
from tests.support.postgres import fresh_schema

from .helpers import BASE, JSON, WAIT, Device, Live, Recorder

QUICK = OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0, hello_seconds=2.0)
WITHIN = 1.0
"""The promise: a signed-out device's socket closes within a second."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Settings]]:
    url: AbstractContextManager[str | None] = nullcontext(None)
    if request.param == "postgresql":
        url = fresh_schema(request.getfixturevalue("postgres_url"))
    with url as database_url:

        def settings() -> Settings:
            return Settings(
                data_dir=tmp_path / "data",
                database_url=database_url,
                allow_seed_for_tests=True,
                player_rate=None,
                signup_rate=None,
                online=replace(QUICK),
            )

        yield settings


class Server:
    def __init__(self, app: FastAPI, base: str, http: httpx.Client) -> None:
        self.app = app
        self.base = base
        self.http = http
        self.recorder = Recorder(app)

    @property
    def guard(self) -> CredentialGuard:
        guard: CredentialGuard = self.app.state.online.guard
        return guard


@contextmanager
def serve(settings: Settings) -> Iterator[Server]:
    app = create_app(settings)
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        yield Server(app, base, http)


def second_device(owner: Device, server: Server) -> Device:
    """Another browser of ``owner``'s record (a transfer code claimed), talking to
    ``server``; its hidden-card checks use the record's player key."""
    code = owner.call("POST", "/api/devices/transfer", status=201)["code"]
    r = server.http.post("/api/devices/claim", json={"code": code, "name": "Phone"})
    assert r.status_code == 201, r.text
    phone = Device.__new__(Device)
    phone.http, phone.recorder = server.http, server.recorder
    phone.player_id, phone.key = r.json()["player_id"], owner.key
    return phone


def device_id(owner: Device, name: str) -> str:
    listed = owner.call("GET", "/api/devices")["devices"]
    found: str = next(d["device"] for d in listed if d["name"] == name)
    return found


def settled(live: Live, owner: Device, token: str) -> JSON:
    """Wait until the socket has the table's stored version (nothing else is in flight)."""
    stored = owner.get(token)["version"]
    return live.until(lambda t: t["version"] >= stored and t["me"] is not None)


def drain(live: Live) -> tuple[list[JSON], int | None, str, float]:
    """Every message until the server closes the socket; the close code, reason and when."""
    messages: list[JSON] = []
    try:
        while True:
            messages.append(json.loads(live.ws.recv(timeout=WAIT)))
    except ConnectionClosed:
        pass
    closed_at = time.monotonic()
    return messages, live.ws.close_code, live.ws.close_reason or "", closed_at


def delete(owner: Device, path: str) -> None:
    r = owner.http.delete(path, headers={"X-Player-Id": owner.player_id})
    assert r.status_code == 204, r.text


def start(host: Device, token: str) -> None:
    """Deal the match (again on the newest version when the departing socket moved it)."""
    for _ in range(10):
        table = host.get(token)
        r = host.http.post(
            f"{BASE}/{token}/start",
            json={"version": table["version"]},
            headers={"X-Player-Id": host.player_id},
        )
        if r.status_code == 200:
            return
        assert r.status_code == 409 and r.json()["code"] == "stale_version", r.text
    raise AssertionError("the match never started")


def sign_out(how: str, laptop: Device) -> tuple[str, str]:
    """Sign the phone out from ``laptop`` (``how``); the close reason and the error code
    its socket should get."""
    if how == "device":
        delete(laptop, f"/api/devices/{device_id(laptop, 'Phone')}")
        return "revoked", "revoked"
    if how == "others":
        assert laptop.call("POST", "/api/devices/sign-out-others")["revoked"] == 1
        return "revoked", "revoked"
    delete(laptop, "/api/stats/data")
    return "deleted", "no_player"


@pytest.mark.parametrize("how", ["device", "others", "data"])
def test_a_signed_out_device_stops_receiving_at_once(
    database: Callable[[], Settings], how: str
) -> None:
    """Bob's phone watches the table live; Bob's laptop signs the phone out (or signs out
    everywhere else, or deletes the record); Ann then deals the match, which gives Bob's seat
    a hand. The phone gets the refusal and the close, and no table."""
    with serve(database()) as server:
        ann, bob = Device(server.http, server.recorder), Device(server.http, server.recorder)
        token = ann.create()["token"]
        bob.act(ann.get(token), "join", name="Bob")
        phone = second_device(bob, server)
        with phone.live(server.base, token) as live:
            seen = settled(live, bob, token)
            assert seen["me"]["seats"] == [1] and seen["view"] is None
            assert len(server.guard._open) == 1  # the phone's credential
            reason, code = sign_out(how, bob)
            signed_out = time.monotonic()
            start(ann, token)  # deals: Bob's seat now has a hand
            messages, close_code, close_reason, closed_at = drain(live)
        assert [m["type"] for m in messages] == ["error"], messages
        assert messages[0]["code"] == code
        assert (close_code, close_reason) == (4401, reason)
        assert closed_at - signed_out < WITHIN, closed_at - signed_out
        print(f"{how}: closed {closed_at - signed_out:.3f} s after the sign-out, a change pushed")
        # The table moved on without the phone: its seat holds a hand the phone never saw.
        assert ann.get(token)["phase"] != "lobby"
        assert not server.guard._open
        # A new hello from the phone is refused as before (a deleted id is an unknown one).
        with phone.live(server.base, token) as again:
            messages, close_code, close_reason, _ = drain(again)
        assert close_code == 4401
        assert [m["code"] for m in messages] == ([] if how == "data" else ["revoked"])
        assert server.recorder.checked >= 2


@pytest.mark.parametrize("how", ["device", "data"])
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_another_process_closes_the_socket_with_nothing_pushed(
    database: Callable[[], Settings], how: str
) -> None:
    """The phone's socket is held by a second server process over the same store; the sign-
    out goes through the first, and the table does not change: the second process's sweep
    closes the socket within a second, and its HTTP refuses the phone's id at once."""
    settings = database()
    with serve(settings) as first, serve(settings) as second:
        second.recorder.rooms = first.recorder.rooms  # either process may save a version
        ann = Device(first.http, first.recorder)
        bob = Device(first.http, first.recorder)
        token = ann.create()["token"]
        bob.act(ann.get(token), "join", name="Bob")
        phone = second_device(bob, second)
        with phone.live(second.base, token) as live:
            settled(live, bob, token)
            assert second.guard.every <= 0.5
            reason, code = sign_out(how, bob)
            signed_out = time.monotonic()
            refused = second.http.get(
                "/api/continue", headers={"X-Player-Id": phone.player_id}
            ).json()
            assert refused["code"] == ("revoked" if how == "device" else "no_player")
            messages, close_code, close_reason, closed_at = drain(live)
        assert [m["type"] for m in messages] == ["error"] and messages[0]["code"] == code
        assert (close_code, close_reason) == (4401, reason)
        assert closed_at - signed_out < WITHIN, closed_at - signed_out
        print(f"{how}: closed {closed_at - signed_out:.3f} s after the sign-out (sweep)")


def test_the_guard_batches_checks_and_never_answers_from_an_older_read() -> None:
    """200 checks asked at once are one store read; a check asked while a read is running
    waits for the next read, which sees a sign-out saved in between; a sweep tells the
    refused connection only."""
    signed_out: set[str] = set()
    reads: list[list[str]] = []
    reading = threading.Event()
    go_on = threading.Event()

    def standing(creds: list[str]) -> dict[str, str]:
        reads.append(creds)
        found = {c: "revoked" if c in signed_out else "ok" for c in creds}  # read at once
        reading.set()
        go_on.wait(5)  # ... and answered later
        return found

    async def scenario() -> None:
        guard = CredentialGuard(standing)
        go_on.set()
        answers = await asyncio.gather(*(guard.standing(f"c{i}") for i in range(200)))
        assert set(answers) == {"ok"} and len(reads) == 1 and len(reads[0]) == 200

        go_on.clear()
        reading.clear()
        first = asyncio.ensure_future(guard.standing("c1"))
        await asyncio.to_thread(reading.wait, 5)  # the read for `first` has begun
        signed_out.add("c1")  # ... and a sign-out is saved while it runs
        second = asyncio.ensure_future(guard.standing("c1"))
        await asyncio.sleep(0.05)
        go_on.set()
        assert await first == "ok"  # read before the sign-out
        assert await second == "revoked"  # asked after it: answered by a later read
        assert len(reads) == 3

        told: list[tuple[str, str]] = []
        with (
            guard.guard("c1", lambda s: told.append(("c1", s))),
            guard.guard("c2", lambda s: told.append(("c2", s))),
        ):
            assert await guard.sweep() == 1
        assert told == [("c1", "revoked")] and len(reads) == 4
        assert await guard.sweep() == 0 and len(reads) == 4  # nothing open: no read

    run(scenario())
