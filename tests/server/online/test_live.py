"""The live channel and the deadlines on a real server (uvicorn on loopback, real WebSockets),
on SQLite and on PostgreSQL: pushes after every change, presence, grace and stand-in, the
turn timer, races, and a restart. Every live message is checked for hidden cards."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.codes import table_key
from cardtable.server.online.tables import OnlineTables
from tests.support.live_server import live_server
from tests.support.postgres import fresh_schema

from .helpers import BASE, JSON, Device, Live, Recorder

QUICK = OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0)
"""A device says hello at once; the default hello time (10 s) leaves room for a busy
machine. The test of a socket that never says hello sets its own, shorter."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Settings]]:
    """Settings for one store (the same store for every app the test builds)."""
    url: AbstractContextManager[str | None] = nullcontext(None)
    if request.param == "postgresql":
        url = fresh_schema(request.getfixturevalue("postgres_url"))
    with url as database_url:

        def settings(**online: Any) -> Settings:
            return Settings(
                data_dir=tmp_path / "data",
                database_url=database_url,
                allow_seed_for_tests=True,
                player_rate=None,
                signup_rate=None,
                online=replace(QUICK, **online),
            )

        yield settings


class Server:
    def __init__(self, app: FastAPI, base: str, http: httpx.Client) -> None:
        self.app = app
        self.base = base
        self.http = http
        self.recorder = Recorder(app)

    def device(self) -> Device:
        return Device(self.http, self.recorder)

    @property
    def online(self) -> OnlineTables:
        online: OnlineTables = self.app.state.online
        return online


@contextmanager
def serve(settings: Settings) -> Iterator[Server]:
    app = create_app(settings)
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        yield Server(app, base, http)


def two_players(server: Server, **create: Any) -> tuple[Device, Device, JSON]:
    ann, bob = server.device(), server.device()
    created = ann.create(**create)
    table = bob.act(created["table"], "join", name="Bob")
    return ann, bob, table


def test_hello_pushes_and_errors(database: Callable[..., Settings]) -> None:
    with serve(database()) as server:
        ann, bob, table = two_players(server)
        token = table["token"]
        with ann.live(server.base, token) as live_a, bob.live(server.base, token) as live_b:
            first = live_a.receive()
            assert first["type"] == "table" and first["table"]["me"]["seats"] == [0]
            assert live_b.receive()["table"]["me"]["seats"] == [1]
            online = live_a.until(lambda t: all(s["connection"] == "online" for s in t["seats"]))
            assert online["events"] == []
            live_a.ws.send(json.dumps({"type": "ping"}))
            assert live_a.receive() == {"type": "pong"}
            live_a.ws.send("not json")
            error = live_a.receive()
            assert error["type"] == "error" and error["code"] == "invalid_message"
            live_a.ws.send(json.dumps({"type": "move", "move": "end"}))
            assert live_a.receive()["code"] == "invalid_message"
            # A change made over HTTP reaches both devices, each with its own hand only.
            started = ann.act(online, "start")
            pushed_a = live_a.until(lambda t: t["version"] >= started["version"])
            pushed_b = live_b.until(lambda t: t["version"] >= started["version"])
            assert pushed_a["viewer"] == 0 and pushed_b["viewer"] == 1
            assert pushed_a["view"]["hand"] != pushed_b["view"]["hand"]
            mover = ann if started["turn"]["seat"] == 0 else bob
            watcher = live_b if mover is ann else live_a
            # How soon it arrives is bench.online's measure; here, that it arrives.
            ended = mover.act(mover.get(token), "moves", move="end")
            seen = watcher.until(lambda t: t["version"] >= ended["version"])
            assert [e["kind"] for e in seen["events"]][:1] == ["end_turn"]
        assert server.recorder.checked >= 8


def test_closing_codes(database: Callable[..., Settings]) -> None:
    with serve(database(max_spectators=1, hello_seconds=2.0)) as server:
        ann = server.device()
        token = ann.create()["token"]
        ws_url = server.base.replace("http://", "ws://") + f"{BASE}/{token}/live"

        def closed_with(url: str, hello: Any) -> int | None:
            code: int | None = None
            # The server closes it; under load, a slow closing handshake raises at the exit.
            with contextlib.suppress(ConnectionClosed), connect(url, open_timeout=5) as ws:
                if hello is not None:
                    ws.send(json.dumps(hello))
                with contextlib.suppress(ConnectionClosed):
                    for _ in range(5):
                        ws.recv(timeout=5)
                code = ws.close_code
            assert code is not None
            return code

        assert closed_with(ws_url, None) == 4408  # no hello in time
        unknown = {"type": "hello", "player": "x" * 32, "version": None}
        assert closed_with(ws_url, unknown) == 4401
        bad = {"type": "hello", "player": 42}
        with connect(ws_url, open_timeout=5) as ws:
            ws.send(json.dumps(bad))
            assert json.loads(ws.recv(timeout=5))["code"] == "invalid_message"
        nowhere = server.base.replace("http://", "ws://") + f"{BASE}/{'q' * 24}/live"
        hello = {"type": "hello", "player": ann.player_id, "version": None}
        assert closed_with(nowhere, hello) == 4404
        # One spectator may watch; the second is refused.
        watcher, crowd = server.device(), server.device()
        with watcher.live(server.base, token) as first:
            assert first.receive()["table"]["me"] is None
            first.until(lambda t: t["spectators"] == 1)
            hello = {"type": "hello", "player": crowd.player_id, "version": None}
            assert closed_with(ws_url, hello) == 4409
        table = ann.get(token)
        for _ in range(100):
            if table["spectators"] == 0:
                break
            time.sleep(0.05)
            table = ann.get(token)
        assert table["spectators"] == 0


def test_a_late_hello_never_hears_an_undone_play(database: Callable[..., Settings]) -> None:
    """Issue 45: a play and its undo, then devices saying hello with the version before the
    play, with 0 (a version the table never had) and with one from the future: none is told
    of the undone card; the first hears nothing older than its version, the others get the
    table alone."""
    with serve(database()) as server:
        ann, bob, table = two_players(server)
        token = table["token"]
        table = ann.act(table, "start")
        devices = {0: ann, 1: bob}
        for _ in range(20):  # to the first turn that can play a card
            mover = devices[table["turn"]["seat"]]
            mine = mover.get(token)
            plays = [m for m in mine["view"]["legal_moves"] if m != "end"]
            if plays:
                break
            table = mover.act(mine, "moves", move="end")
        assert plays, "no one could play a card in 20 turns"
        before = mine
        played = mover.act(mine, "moves", move=plays[0])
        assert [e["kind"] for e in played["events"]][:1] in (["play"], ["pile_move"])
        undone = mover.act(played, "undo")
        assert sorted(undone["view"]["hand"]) == sorted(before["view"]["hand"])
        for version in (before["version"], 0, -5, undone["version"] + 1000):
            with mover.live(server.base, token, version=version) as live:
                first = live.receive()["table"]
                assert first["version"] >= undone["version"]
                assert first["events"] == [], (version, first["events"])
                assert sorted(first["view"]["hand"]) == sorted(before["view"]["hand"])


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_grace_stand_in_and_return(database: Callable[..., Settings]) -> None:
    """Bob's device drops: reconnecting, then away after the grace period and a computer
    plays his turns; when he connects again he has his seat back at his next turn."""
    with serve(database(grace_seconds=0.4)) as server:
        ann, bob, table = two_players(server)
        token = table["token"]
        with ann.live(server.base, token) as live_a:
            with bob.live(server.base, token) as live_b:
                live_b.receive()
                table = live_a.until(lambda t: all(s["connection"] == "online" for s in t["seats"]))
                table = ann.act(table, "start")
            dropped = live_a.until(lambda t: t["seats"][1]["connection"] == "reconnecting")
            assert dropped["seats"][1]["deadline"] > dropped["now"]
            away = live_a.until(lambda t: t["seats"][1]["connection"] == "away")
            assert away["seats"][1]["stand_in"]
            # Ann plays her turns; the stand-in plays Bob's.
            bob_played = False
            for _ in range(40):
                t = live_a.last
                if t["phase"] != "play":
                    break
                if t["turn"]["seat"] == 0:
                    ann.act(ann.get(token), "moves", move="end")
                    live_a.until(lambda x: x["turn"] is None or x["turn"]["seat"] == 1)
                else:
                    live_a.until(lambda x: x["turn"] is None or x["turn"]["seat"] == 0)
                    bob_played = True
                if bob_played:
                    break
            assert bob_played and any(e["seat"] == 1 for e in live_a.last["log"])
            # Bob comes back (same browser): online, and his seat is his again.
            with bob.live(server.base, token) as live_b:
                back = live_b.until(lambda t: t["seats"][1]["connection"] == "online")
                assert back["me"]["seats"] == [1] and back["viewer"] == 1
                for _ in range(40):
                    t = live_b.last
                    if t["turn"] is None or (
                        t["turn"]["seat"] == 1 and not t["seats"][1]["stand_in"]
                    ):
                        break
                    if t["turn"]["seat"] == 0:
                        ann.act(ann.get(token), "moves", move="end")
                    live_b.receive()
                t = live_b.last
                if t["turn"] is not None:
                    assert t["turn"]["seat"] == 1 and not t["seats"][1]["stand_in"]
                    assert bob.act(bob.get(token), "moves", move="end")["version"] > t["version"]


def test_turn_timer(database: Callable[..., Settings]) -> None:
    with serve(database(turn_timers=(0.5,))) as server:
        ann, bob, table = two_players(server, turn_timer=0.5)
        token = table["token"]
        with ann.live(server.base, token) as live_a, bob.live(server.base, token):
            table = live_a.until(lambda t: all(s["connection"] == "online" for s in t["seats"]))
            table = ann.act(table, "start")
            seat = table["turn"]["seat"]
            # Set when the match started, 0.5 s on: never later than that from the answer's
            # `now` (how much earlier depends on how busy the machine was meanwhile).
            assert table["turn"]["deadline"] <= table["now"] + 0.5 + 1e-6
            # Nobody moves: the timer runs out and a computer finishes the turn.
            passed = live_a.until(lambda t: t["turn"] is None or t["turn"]["seat"] != seat)
            assert any(e["seat"] == seat and e["move"] == "end" for e in passed["log"]) or (
                passed["turn"] is None  # the computer went out: the round is over
            )
            if passed["turn"] is not None:
                assert passed["turn"]["deadline"] is not None  # the next person's timer
            assert not any(s["stand_in"] for s in passed["seats"])


def test_two_devices_at_the_same_moment(database: Callable[..., Settings]) -> None:
    """Four devices take the one open seat at once: exactly one sits. Two tabs of the player
    to move send different moves on one version: exactly one is played."""
    with serve(database()) as server:
        ann = server.device()
        created = ann.create()
        rivals = [server.device() for _ in range(4)]
        statuses: list[int] = []
        barrier = threading.Barrier(len(rivals))

        def join(device: Device) -> None:
            with httpx.Client(base_url=server.base, timeout=10) as own:
                barrier.wait()
                r = own.post(
                    f"{BASE}/{created['token']}/join",
                    json={"version": 1, "name": "Rival"},
                    headers={"X-Player-Id": device.player_id},
                )
                statuses.append(r.status_code)

        threads = [threading.Thread(target=join, args=(d,)) for d in rivals]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        assert sorted(statuses) == [200, 409, 409, 409]
        table = ann.get(created["token"])
        assert sum(1 for s in table["seats"] if s["kind"] == "person") == 2
        table = ann.act(table, "start")
        seat = table["turn"]["seat"]
        mover = next(
            d
            for d in [ann, *rivals]
            if seat in (d.get(table["token"])["me"] or {}).get("seats", [])
        )
        mine = mover.get(table["token"])
        moves = [*[m for m in mine["view"]["legal_moves"] if m != "end"][:1], "end"]
        answers: list[int] = []
        gate = threading.Barrier(len(moves))

        def send(move: str) -> None:
            with httpx.Client(base_url=server.base, timeout=10) as own:
                gate.wait()
                r = own.post(
                    f"{BASE}/{mine['token']}/moves",
                    json={"version": mine["version"], "move": move},
                    headers={"X-Player-Id": mover.player_id},
                )
                answers.append(r.status_code)

        threads = [threading.Thread(target=send, args=(m,)) for m in moves]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        if len(moves) == 2:
            assert sorted(answers) == [200, 409]
        after = mover.get(mine["token"])
        assert after["version"] == mine["version"] + 1


def test_two_drivers_race_for_one_computer_step(database: Callable[..., Settings]) -> None:
    """Two processes' drivers (two apps on one store, no background work) apply the same due
    computer step at once: exactly one move is saved."""
    settings = database(computer_step_seconds=0.0)
    first, second = create_app(settings), create_app(settings)
    client = TestClient(first)  # no lifespan: no driver runs by itself
    ann = Device(client)
    created = ann.create(seats=[{"kind": "me"}, {"kind": "computer", "strength": "normal"}])
    table = ann.act(created["table"], "start")
    key = table_key(table["token"])
    for _ in range(20):  # until the computer is to play
        if table["turn"]["seat"] == 1:
            break
        table = ann.act(table, "moves", move="end")
    assert table["turn"]["seat"] == 1
    onlines: list[OnlineTables] = [first.state.online, second.state.online]
    barrier = threading.Barrier(2)
    results: list[bool] = []
    for online in onlines:
        load = online.store.load

        def loaded(k: str, load: Any = load) -> Any:
            record = load(k)
            barrier.wait(10)  # both have read the same version before either saves
            return record

        online.store.load = loaded  # type: ignore[method-assign,assignment]

    def drive(online: OnlineTables) -> None:
        results.append(online.advance(key, time.time()))

    threads = [threading.Thread(target=drive, args=(o,)) for o in onlines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    for online in onlines:
        del online.store.load  # the class's own again
    assert sorted(results) == [False, True]
    after = ann.get(table["token"])
    assert after["version"] == table["version"] + 1
    assert len(after["log"]) == len(table["log"]) + 1 and after["log"][-1]["seat"] == 1
    for app in (first, second):
        app.state.runtime.close()


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_deadlines_survive_a_restart(database: Callable[..., Settings]) -> None:
    """A computer step due after the server stopped is made by the next server."""
    settings = database(computer_step_seconds=0.6)
    with TestClient(create_app(settings)) as client:
        ann = Device(client)
        created = ann.create(seats=[{"kind": "me"}, {"kind": "computer", "strength": "easy"}])
        table = ann.act(created["table"], "start")
        if table["turn"]["seat"] == 0:
            table = ann.act(table, "moves", move="end")
        assert table["turn"]["seat"] == 1
    # The first server is gone before the step was due; nothing moved.
    time.sleep(0.7)
    with TestClient(create_app(settings)) as client:
        again = Device(client)
        end = time.monotonic() + 10
        while True:
            seen = again.get(table["token"])
            if seen["version"] > table["version"]:
                break
            assert time.monotonic() < end, "the new server never made the computer's step"
            time.sleep(0.05)
        assert seen["log"][-1]["seat"] == 1


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_whole_round_with_three_devices_live(database: Callable[..., Settings]) -> None:
    """Three devices and a spectator, all live: every pushed table holds only that device's
    own hand (the spectator none), and every device ends on the same last version."""
    with serve(database()) as server:
        devices = [server.device() for _ in range(3)]
        watcher = server.device()
        created = devices[0].create(
            seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"}],
            rules={"preset": "draw-last"},
        )
        token = created["token"]
        table = created["table"]
        for d in devices[1:]:
            table = d.act(table, "join", name="Friend")
        with contextlib.ExitStack() as stack:
            lives: list[Live] = [stack.enter_context(d.live(server.base, token)) for d in devices]
            spectator = stack.enter_context(watcher.live(server.base, token))
            table = lives[0].until(
                lambda t: (
                    t["spectators"] == 1 and all(s["connection"] == "online" for s in t["seats"])
                )
            )
            table = devices[0].act(table, "start")
            moves = 0
            for _ in range(400):
                current = devices[0].get(token)
                if current["phase"] != "play":
                    break
                seat = current["turn"]["seat"]
                mine = devices[seat].get(token)
                move = next((m for m in mine["view"]["legal_moves"] if m != "end"), "end")
                devices[seat].act(mine, "moves", move=move)
                moves += 1
            final = devices[0].get(token)
            assert final["phase"] in ("round_over", "match_over")
            for live in [*lives, spectator]:
                live.until(lambda t: t["version"] == final["version"])
            assert all(t["view"] is None or t["view"]["hand"] == [] for t in spectator.tables)
            for seat, live in enumerate(lives):
                assert all(t["viewer"] in (None, seat) for t in live.tables)
            # Two reads and a move per turn, each answer scanned, and at least the last
            # version pushed to all four live connections (pushes may be coalesced).
            assert moves > 0
            assert server.recorder.checked >= 3 * moves + 4
