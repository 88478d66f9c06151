"""Preset reactions at an online table (cardtable/server/online/reactions.py, relay.py), on
real servers (uvicorn on loopback, real WebSockets) over SQLite and over PostgreSQL, where
the table's devices are spread over two apps sharing the store, as two server processes are:

- every other device at the table (a seated person's, a spectator's, on either process) gets
  the reaction on its live connection, with nothing but its four keys and no card; the
  sender's own device does not (it has the answer);
- the table's version and log stay as they were;
- a device past its rate is refused (429, Retry-After), on whichever process it asks, and
  counted; the rate is per device; the clock moved on, it may react again;
- only a seated person may react: a spectator is refused (403), and so are an unknown table,
  a key that is not a preset and a request without a player id.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client import REGISTRY

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.fanout import PgFanout
from cardtable.server.online.relay import sender_tag
from tests.support.live_server import live_server
from tests.support.postgres import fresh_schema

from .helpers import BASE, JSON, TOKEN, WAIT, Device, Live, Recorder

QUICK = OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0)
KEYS = {"type", "seat", "key", "at"}


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    """Settings for one store, shared by every app the test builds."""
    url: AbstractContextManager[str | None] = nullcontext(None)
    if request.param == "postgresql":
        url = fresh_schema(request.getfixturevalue("postgres_url"))
    with url as database_url:
        yield Settings(
            data_dir=tmp_path / "data",
            database_url=database_url,
            allow_seed_for_tests=True,
            player_rate=None,
            signup_rate=None,
            online=QUICK,
        )


@dataclass
class Server:
    app: FastAPI
    base: str
    http: httpx.Client
    recorder: Recorder

    def device(self) -> Device:
        return Device(self.http, self.recorder)


@contextmanager
def processes(settings: Settings) -> Iterator[tuple[Server, Server]]:
    """Two apps over the store (PostgreSQL: two processes' worth, each with its own fan-out
    listener, both listening before this returns); SQLite has one process: the same twice."""
    with ExitStack() as stack:
        servers = []
        for _ in range(2 if settings.uses_postgres else 1):
            app = create_app(settings)
            base = stack.enter_context(live_server(app))
            http = stack.enter_context(httpx.Client(base_url=base, timeout=10))
            recorder = Recorder(app)
            if servers:  # one record of every save, whichever process made it
                recorder.rooms = servers[0].recorder.rooms
            servers.append(Server(app, base, http, recorder))
        for server in servers:
            fanout = server.app.state.online.fanout
            if isinstance(fanout, PgFanout):
                end = time.monotonic() + WAIT
                while not fanout.listening.is_set():
                    assert time.monotonic() < end, "the fan-out never listened"
                    time.sleep(0.01)
        yield servers[0], servers[-1]


def react(
    device: Device, token: str, key: str, status: int = 201, via: Server | None = None
) -> httpx.Response:
    """``device`` reacts (through ``via``'s process when given, else its own)."""
    http = device.http if via is None else via.http
    r = http.post(
        f"{BASE}/{token}/reactions", json={"key": key}, headers={"X-Player-Id": device.player_id}
    )
    assert r.status_code == status, r.text
    return r


def ready(live: Live) -> None:
    """Past the connection's hello and first table: a ping answered means its tasks run, the
    reactions' among them (started with the pings' in one step)."""
    live.ws.send(json.dumps({"type": "ping"}))
    while live.receive().get("type") != "pong":
        pass


def next_reaction(live: Live) -> JSON:
    """The next reaction on ``live`` (tables pushed meanwhile are kept and scanned), checked:
    its four keys only, no card in its text."""
    end = time.monotonic() + WAIT
    while True:
        left = end - time.monotonic()
        assert left > 0, "no reaction in time"
        text = live.ws.recv(timeout=left)
        assert isinstance(text, str)
        msg = json.loads(text)
        if msg.get("type") == "table":
            live.tables.append(msg["table"])
            assert live.device.recorder is not None
            live.device.recorder.scan(text, msg["table"], live.device.key, "live")
            continue
        assert msg.get("type") == "reaction", msg
        assert set(msg) == KEYS, msg
        assert not TOKEN.findall(text), text
        datetime.fromisoformat(msg["at"].replace("Z", "+00:00"))
        return msg


def started_table(a: Server, b: Server) -> tuple[Device, Device, JSON]:
    """Ann (on A) hosts, Bob (on B) joins, the match is dealt."""
    ann, bob = a.device(), b.device()
    created = ann.create()
    joined = bob.act(created["table"], "join", name="Bob")
    started = ann.act(joined, "start")
    return ann, bob, started


def test_every_other_device_at_the_table_gets_the_reaction(database: Settings) -> None:
    with processes(database) as (a, b):
        ann, bob, table = started_table(a, b)
        token = table["token"]
        watcher = b.device()
        with (
            ann.live(a.base, token) as live_ann,
            bob.live(b.base, token) as live_bob,
            watcher.live(b.base, token) as live_watcher,
        ):
            for live in (live_ann, live_bob, live_watcher):
                ready(live)
            # Presence settled (both persons online, one spectator): no save is under way.
            live_ann.until(
                lambda t: (
                    t["spectators"] == 1
                    and all(
                        s["connection"] == "online" for s in t["seats"] if s["kind"] == "person"
                    )
                )
            )
            servers = list({id(a): a, id(b): b}.values())
            saves = len(a.recorder.rooms)
            before = ann.get(token)
            said = react(ann, token, "good_luck").json()
            assert said["type"] == "reaction" and said["seat"] == 0 and said["key"] == "good_luck"
            assert next_reaction(live_bob) == said
            assert next_reaction(live_watcher) == said
            # Bob answers from the other process: Ann gets his, never her own first.
            thanks = react(bob, token, "thanks").json()
            assert next_reaction(live_ann) == thanks and thanks["seat"] == 1
            assert next_reaction(live_watcher) == thanks
            # Nothing of the table changed: no save, the same version and log.
            assert len(a.recorder.rooms) == saves
            after = ann.get(token)
            assert after["version"] == before["version"]
            assert after["log"] == before["log"]
        for server in servers:
            assert server.recorder.checked > 0


def refusals() -> float:
    value = REGISTRY.get_sample_value("cardtable_refused_total", {"reason": "online_reaction_rate"})
    return value or 0.0


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at


def test_the_rate_per_device_and_who_may_react(database: Settings) -> None:
    with processes(database) as (a, b):
        clock = Clock()
        a.app.state.devices_clock = clock
        b.app.state.devices_clock = clock
        ann, bob, table = started_table(a, b)
        token = table["token"]
        # Three at once, from either process; the fourth is refused, in the other process.
        react(ann, token, "good_luck")
        react(ann, token, "thanks", via=b)
        react(ann, token, "oops")
        counted = refusals()
        refused = react(ann, token, "oops", status=429, via=b)
        assert refused.json()["code"] == "rate_limited"
        assert refused.headers["Retry-After"] == "4"
        assert refusals() == counted + 1
        # Per device: Bob may still react.
        react(bob, token, "well_played")
        # Four seconds on, one more for Ann, and then none again.
        clock.at += timedelta(seconds=4)
        react(ann, token, "your_turn")
        react(ann, token, "your_turn", status=429)

        # Only a seated person: a spectator, an unknown table, a made-up key, no player id.
        watcher = a.device()
        watcher.get(token)
        assert react(watcher, token, "good_luck", 403).json()["code"] == "not_seated"
        assert react(bob, "x" * 22, "good_luck", 404).json()["code"] == "not_found"
        assert react(bob, token, "hello", 422).json()["code"] == "invalid_request"
        bare = a.http.post(f"{BASE}/{token}/reactions", json={"key": "thanks"})
        assert bare.status_code == 401
        extra = bob.http.post(
            f"{BASE}/{token}/reactions",
            json={"key": "thanks", "text": "hi"},
            headers={"X-Player-Id": bob.player_id},
        )
        assert extra.status_code == 422  # no free text rides along


def test_a_reaction_names_no_device() -> None:
    """What crosses between processes names the sender by a digest, not its credential."""
    tag = sender_tag("c" * 64)
    assert len(tag) == 24 and "c" * 24 not in tag
    assert re.fullmatch(r"[0-9a-f]{24}", tag)
