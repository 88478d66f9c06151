"""Render once, send many (render.py `Views`, tables.py `OnlineTables.newest`): a change is read
and decoded once per (table, version) in a process and rendered once per (version, seat),
shared by every live connection that sees it and by the change's HTTP answer; a seat's view
never reaches another seat's connection; the cache is bounded."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.devices.players import player_key
from cardtable.server.online import render
from cardtable.server.online.codes import table_key
from cardtable.server.online.models import OnlineTable
from cardtable.server.online.render import Views, device_view
from cardtable.server.online.room import Refused, Room
from cardtable.server.online.tables import OnlineTables, load_room
from tests.support.aio import run
from tests.support.live_server import live_server

from .helpers import BASE, JSON, Device, Live


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0),
    )


@contextmanager
def _server(tmp_path: Path) -> Iterator[tuple[OnlineTables, str, httpx.Client]]:
    app = create_app(_settings(tmp_path))
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        yield app.state.online, base, http


def _three_seats(http: httpx.Client) -> tuple[list[Device], JSON]:
    ann, bob, cy = Device(http), Device(http), Device(http)
    seats = [{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"}]
    table = ann.create(seats=seats)["table"]
    table = bob.act(table, "join", name="Bob")
    table = cy.act(table, "join", name="Cy")
    return [ann, bob, cy], table


def _without_now(table: JSON) -> JSON:
    return {k: v for k, v in table.items() if k != "now"}


def test_one_read_decode_and_render_per_version_and_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann's device has three live connections, Bob and Cy one each, a spectator one. A
    move: the table is decoded by nobody and read from the store by no connection (the save
    kept both), rendered once per seat (the mover's answer and her pushes share one), and every
    connection gets exactly its own seat's view."""
    renders: Counter[tuple[int, int | None, int | None]] = Counter()
    real_part = render.seat_part

    def counted(room: Room, player: str | None, since: int | None) -> dict[str, Any]:
        part = real_part(room, player, since)
        renders[(room.version, part["viewer"], since)] += 1
        return part

    monkeypatch.setattr(render, "seat_part", counted)
    shared: Counter[int] = Counter()
    real_table = render.table_part

    def table(room: Room, **kw: Any) -> dict[str, Any]:
        shared[room.version] += 1
        return real_table(room, **kw)

    monkeypatch.setattr(render, "table_part", table)
    decodes: Counter[int] = Counter()
    real_decode = Room.from_dict.__func__  # type: ignore[attr-defined]

    def decode(cls: type[Room], d: Any, version: int) -> Room:
        decodes[version] += 1
        room: Room = real_decode(cls, d, version)
        return room

    monkeypatch.setattr(Room, "from_dict", classmethod(decode))

    with _server(tmp_path) as (online, base, http), ExitStack() as stack:
        (ann, bob, cy), table = _three_seats(http)
        token = table["token"]
        watcher = Device(http)
        lives: list[tuple[int | None, Live]] = []
        for seat, device in [(0, ann), (0, ann), (0, ann), (1, bob), (2, cy), (None, watcher)]:
            lives.append((seat, stack.enter_context(device.live(base, token))))
        table = ann.get(token)
        online_now = lives[0][1].until(
            lambda t: all(s["connection"] == "online" for s in t["seats"]) and t["spectators"] == 1
        )
        table = ann.act(ann.get(token), "start")
        # Every connection has the newest version before the move (so all ask since it).
        settled = ann.get(token)["version"]
        assert settled >= max(table["version"], online_now["version"])
        for _, live in lives:
            live.until(lambda t, v=settled: t["version"] >= v)
        assert all(live.last["version"] == settled for _, live in lives)
        devices = [ann, bob, cy]
        mover = devices[table["turn"]["seat"]]
        current = mover.get(token)
        renders.clear()
        shared.clear()
        decodes.clear()
        reads = online.reads
        hits = online.views.hits

        answer = mover.act(current, "moves", move="end")
        version = answer["version"]
        assert version == settled + 1
        pushed = [(seat, live.until(lambda t: t["version"] >= version)) for seat, live in lives]

        assert all(t["version"] == version for _, t in pushed)
        # No decode of the new version at all: the save kept the room it stored.
        assert decodes[version] == 0
        # No connection read the table from the store: the save kept the record.
        assert online.reads == reads
        # One render per seat (and one for the spectators) of the new version, since the
        # version every connection had; the mover's answer was one of them.
        assert renders == Counter({(version, v, settled): 1 for v in (0, 1, 2, None)})
        # What every device sees alike (seats, log, ...): rendered once for all of them.
        assert shared == Counter({version: 1})
        # Ann's two other connections, the mover's answer or push: served from the cache.
        assert online.views.hits - hits >= 3
        mine = answer["viewer"]
        assert any(seat == mine and _without_now(t) == _without_now(answer) for seat, t in pushed)
        # Each connection got its own seat's view: its own hand, never another's.
        record = online.store.load(table_key(token))
        assert record is not None
        hands = [[str(c) for c in h] for h in load_room(record).game.match.state.hands]  # type: ignore[union-attr]
        for seat, t in pushed:
            assert t["viewer"] == seat
            if seat is None:
                assert t["me"] is None and t["view"]["hand"] == []
            else:
                assert t["me"]["seats"] == [seat]
                assert t["view"]["hand"] == hands[seat]
                others = {c for i, h in enumerate(hands) if i != seat for c in h}
                assert not others & set(json.dumps(t["view"]).replace('"', " ").split())
        texts = {seat: json.dumps(_without_now(t), sort_keys=True) for seat, t in pushed}
        assert len(set(texts.values())) == 4  # seats 0, 1, 2 and the spectator differ


def test_answer_is_the_stored_version_with_the_time_now(tmp_path: Path) -> None:
    """The cached text is the view of the stored row (as a fresh read renders it), and only
    ``now`` changes between two answers at one version."""
    with _server(tmp_path) as (online, _, http):
        (ann, _, _), table = _three_seats(http)
        token = table["token"]
        started = ann.act(table, "start")
        first = ann.get(token)
        time.sleep(0.02)
        again = ann.get(token)
        assert again["version"] == first["version"] == started["version"]
        assert again["now"] > first["now"]
        assert _without_now(again) == _without_now(first)
        record = online.store.load(table_key(token))
        assert record is not None
        fresh = Room.from_dict(json.loads(json.dumps(record.state)), record.version)
        expected = device_view(fresh, ann.key, token=token, code=record.code, now=0.0)
        assert _without_now(again) == _without_now(
            json.loads(OnlineTable.model_validate(expected).model_dump_json())
        )


def test_views_key_and_bound() -> None:
    """Views are shared only by devices that hold the same seats; the cache keeps at most
    ``size`` entries, the least recently used going first."""
    from cardtable import kings_corner as kc
    from cardtable.server.online.room import Config

    config = Config(players=3, rules=kc.Rules.preset("standard"), rounds=1, turn_timer=None,
                    grace=60.0, stand_in="normal", step=0.0)  # fmt: skip
    specs = [("me", None, None), ("local", None, "Ann's friend"), ("open", None, None)]
    room = Room.create(config, specs, "ann", "Ann", 0.0)
    room = room.join("bob", "Bob", None, 0.0) or room
    room = room.start("ann", 7, 0.0)
    views = Views(size=3)
    shared = views.get(room, "ann", token="t", code="C")  # Ann's device: seats 0 and 1
    assert views.get(room, "ann", token="t", code="C") is shared
    bob = views.get(room, "bob", token="t", code="C")
    nobody = views.get(room, "zed", token="t", code="C")
    assert views.get(room, "yan", token="t", code="C") is nobody  # every spectator alike
    assert views.renders == 3 and views.hits == 2
    assert json.loads(bob.table(1.0))["me"] == {"seats": [2], "host": False}
    assert json.loads(shared.table(1.0))["me"] == {"seats": [0, 1], "host": True}
    assert json.loads(nobody.table(1.0))["me"] is None
    assert len({shared.body, bob.body, nobody.body}) == 3
    message = json.loads(nobody.message(12.5))
    assert message["type"] == "table" and message["table"]["now"] == 12.5
    # A fourth key pushes out the least recently used (Ann's), which renders again.
    views.get(room, "bob", token="t", code="C", since=1)
    assert len(views) == 3
    views.get(room, "ann", token="t", code="C")
    assert views.renders == 5


def test_concurrent_readers_share_one_store_read(tmp_path: Path) -> None:
    """Connections woken for a version this process did not save (another process's change)
    read the table once between them; a reader woken for a newer version than a read under
    way reads again; nothing heard (-1) always reads."""
    app = create_app(_settings(tmp_path))
    with TestClient(app) as client:
        online: OnlineTables = app.state.online
        player = client.post("/api/players").json()["player_id"]
        made = client.post(
            BASE, json={"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}]},
            headers={"X-Player-Id": player},
        ).json()  # fmt: skip
        key = table_key(made["token"])
        version = made["table"]["version"]

        async def readers(heards: list[int]) -> list[Any]:
            online._latest.clear()
            return await asyncio.gather(*(online.newest(key, h) for h in heards))

        reads = online.reads
        got = run(readers([version] * 5))
        assert online.reads - reads == 1
        assert all(r is got[0] and r.version == version for r in got)
        reads = online.reads
        run(readers([version - 1, version - 1, version, version]))
        assert online.reads - reads == 2  # the later heard version does not join the earlier
        reads = online.reads
        run(readers([-1, -1]))
        assert online.reads - reads == 2
        # Kept after a read: the next reader of that version needs no store at all.
        reads = online.reads
        found = run(online.newest(key, version))
        assert found is not None and found.version == version and online.reads == reads
        assert player_key(player) in {s.player for s in load_room(found).seats}


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_saved_room_renders_as_its_stored_row() -> None:
    """The save keeps the room it saved as that version's decoded table (no decode of what
    it just wrote): over whole matches of people, a shared device, computers and
    reconnections, every device's view of that room is the view of the stored row decoded
    again, byte for byte, and the view's two parts, rendered apart, are exactly the whole
    `OnlineTable` of `device_view`."""
    from cardtable import kings_corner as kc
    from cardtable.server.online.room import Config

    a, b, c = "a" * 64, "b" * 64, "c" * 64
    config = Config(players=4, rules=kc.Rules.preset("standard"), rounds=3, turn_timer=30.0,
                    grace=5.0, stand_in="easy", step=0.5)  # fmt: skip
    specs = [("me", None, None), ("local", None, "Kim"), ("invite", None, None),
             ("computer", "easy", None)]  # fmt: skip
    rng = __import__("random").Random(5)
    compared = 0
    for seed in (1, 2):
        now = 1_000_000.0
        room = Room.create(config, specs, a, "Ann", now, invite="tok")
        room = room.join(b, "Bob", None, now) or room
        room = room.start(a, seed, now)
        for _ in range(600):
            if room.phase == "match_over":
                break
            now += 1.0
            before = room.version
            try:
                if room.phase == "round_over":
                    new = room.next_round(a, now)
                elif room.phase == "handoff":
                    new = room.reveal(a, now)
                elif rng.random() < 0.05:
                    new = room.disconnected(b, now) or room.connected(b, now)
                elif room.to_play is not None and not room.driven(room.to_play):
                    player = room.seats[room.to_play].player
                    assert player is not None
                    legal = kc.ENGINE.view(room.game.match.state, room.to_play)["legal_moves"]  # type: ignore[union-attr]
                    cards = [m for m in legal if m != "end"]
                    move = rng.choice(cards) if cards and rng.random() < 0.7 else "end"
                    new = room.move(player, move, now)
                else:
                    new = room.advance(now + 10)
            except Refused:
                new = None
            if new is None:
                continue
            stored = Room.from_dict(json.loads(json.dumps(new.to_dict())), new.version)
            for player in (a, b, c):
                kept = Views().get(new, player, token="tok", code="C", since=before)
                again = Views().get(stored, player, token="tok", code="C", since=before)
                assert kept.body == again.body
                # The parts, validated and encoded apart, make the whole OnlineTable.
                whole = device_view(new, player, token="tok", code="C", now=0.0, since=before)
                assert json.loads(kept.table(0.0)) == OnlineTable.model_validate(whole).model_dump(
                    mode="json"
                )
                compared += 1
            room = new
        assert room.phase == "match_over"
    assert compared > 300


def test_a_kept_table_never_hides_a_newer_stored_one(tmp_path: Path) -> None:
    """Two apps on one store: the one that saved version V keeps it and makes a change from
    it without reading, but when the other app has stored V+1 the compare-and-set refuses
    it and the caller is told its version is stale, exactly as from a read (no move is
    made twice, a turn refused at V is not reported as "not your turn")."""
    settings = _settings(tmp_path)
    first, second = create_app(settings), create_app(settings)
    with TestClient(first) as one, TestClient(second) as two:
        ann, bob = Device(one), Device(one)
        table = ann.create()["table"]
        table = bob.act(table, "join", name="Bob")
        table = ann.act(table, "start")
        token, version = table["token"], table["version"]
        devices = {0: ann, 1: bob}
        mover, other = devices[table["turn"]["seat"]], devices[1 - table["turn"]["seat"]]
        online: OnlineTables = first.state.online
        assert online.kept(table_key(token), version) is not None
        # The other app stores the move at V (version V+1); the first app never hears of it.
        moved = two.post(f"{BASE}/{token}/moves", json={"version": version, "move": "end"},
                         headers={"X-Player-Id": mover.player_id})  # fmt: skip
        assert moved.status_code == 200 and moved.json()["version"] == version + 1
        # The same move at V through the first app: stale, not made again.
        again = mover.act(table, "moves", status=409, move="end")
        assert again["code"] == "stale_version" and again["current"]["version"] == version + 1
        # The other person's move at V, refused at V: stale too, as a read would say.
        refused = other.act(table, "moves", status=409, move="end")
        assert refused["code"] == "stale_version"
        record = online.store.load(table_key(token))
        assert record is not None and record.version == version + 1
        assert [e["move"] for e in ann.get(token)["log"]] == ["end"]
