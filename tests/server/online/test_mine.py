"""The tables a player sits at, "Your tables" (GET /api/kings-corner/online/mine,
docs/online.md), on both stores: tables made and played through the API are listed for each
player who sits there, the ones waiting for their move first, then by last change; with their
names, round, turn and pace, and never a card; a table the player left, or that retention
deleted, leaves the list; finished tables stay for a day; the list is bounded. The seats
index rows follow every save (migration 12, online/mine.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online import mine
from cardtable.server.online.codes import table_key
from cardtable.server.online.tables import OnlineTables, load_room
from tests.server.helpers import store_settings

from .helpers import BASE, Device

MINE = f"{BASE}/mine"
CARD = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[A2-9TJQK])[SHDC](?![A-Za-z0-9_-])")
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.fixture(params=["sqlite", "postgres"])
def mine_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(
        request,
        tmp_path,
        allow_seed_for_tests=True,
        player_rate=None,
        signup_rate=None,
        search_processes=0,
        online=OnlineSettings(computer_step_seconds=0.0, grace_seconds=60.0),
    ) as settings:
        yield settings


@pytest.fixture
def app(mine_settings: Settings) -> Iterator[FastAPI]:
    app = create_app(mine_settings)
    try:
        yield app
    finally:
        app.state.runtime.close()


def listed(device: Device) -> dict[str, Any]:
    r = device.http.get(MINE, headers={"X-Player-Id": device.player_id})
    assert r.status_code == 200, r.text
    assert not CARD.findall(r.text), r.text  # SPEC C-8: no card in any form
    data: dict[str, Any] = r.json()
    return data


def tokens(device: Device) -> list[str]:
    return [t["token"] for t in listed(device)["tables"]]


def started(ann: Device, bob: Device, seed: int, **body: Any) -> dict[str, Any]:
    """A table of Ann and Bob, dealt from ``seed``."""
    made = ann.create(**body)
    joined = bob.act(made["table"], "join", name="Bob", seat=None)
    r = ann.http.post(
        f"{BASE}/{made['token']}/start",
        json={"version": joined["version"]},
        headers={"X-Player-Id": ann.player_id, "X-Test-Seed": str(seed)},
    )
    assert r.status_code == 200, r.text
    table: dict[str, Any] = r.json()
    return table


def test_lists_waiting_tables_first_with_their_fields(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob, cy = Device(client), Device(client), Device(client)
    assert listed(ann)["tables"] == []
    lobby = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "computer"}])
    games = [started(ann, bob, seed, turn_timer=60, rounds=3) for seed in range(1, 9)]
    turns = [g["turn"]["seat"] for g in games]
    assert 0 in turns and 1 in turns, turns  # some wait for Ann, some for Bob
    answer = listed(ann)
    assert ISO.fullmatch(answer["now"])
    rows = answer["tables"]
    assert len(rows) == 9
    waiting = [t["token"] for t in rows if t["your_turn"]]
    assert waiting == [g["token"] for g in reversed(games) if g["turn"]["seat"] == 0]
    others = [t["token"] for t in rows if not t["your_turn"]]
    assert others == [g["token"] for g in reversed(games) if g["turn"]["seat"] == 1] + [
        lobby["token"]
    ]
    assert [t["your_turn"] for t in rows] == sorted((t["your_turn"] for t in rows), reverse=True)
    first = rows[0]
    assert first["phase"] == "play" and not first["finished"]
    assert first["round"] == 1 and first["rounds"] == 3
    assert first["turn_seat"] == 0 and first["pace"] == "live" and first["turn_seconds"] == 60
    assert ISO.fullmatch(first["deadline"]) and ISO.fullmatch(first["updated"])
    assert [(s["name"], s["you"]) for s in first["seats"]] == [("Ann", True), ("Bob", False)]
    last = rows[-1]
    assert last["token"] == lobby["token"] and last["phase"] == "lobby"
    assert last["round"] is None and last["turn_seat"] is None and last["deadline"] is None
    assert [s["kind"] for s in last["seats"]] == ["person", "open", "computer"]
    # Bob sees the same tables from his seat; Cy, who sits nowhere, sees none.
    bobs = listed(bob)["tables"]
    assert {t["token"] for t in bobs} == {g["token"] for g in games}
    assert [t["your_turn"] for t in bobs] == [t == 1 for t in sorted(turns, key=lambda t: t != 1)]
    assert all(s["you"] == (s["seat"] == 1) for t in bobs for s in t["seats"])
    assert listed(cy)["tables"] == []


def test_a_move_that_ends_a_turn_reorders_the_lists(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    table = started(ann, bob, 1)
    mover, waiter = (ann, bob) if table["turn"]["seat"] == 0 else (bob, ann)
    assert [t["your_turn"] for t in listed(mover)["tables"]] == [True]
    now = mover.get(table["token"])
    while now["turn"] is not None and now["turn"]["seat"] == (0 if mover is ann else 1):
        moves = now["view"]["legal_moves"]
        move = "end" if "end" in moves else moves[0]
        now = mover.act(now, "moves", move=move)
    assert [t["your_turn"] for t in listed(mover)["tables"]] == [False]
    assert [t["your_turn"] for t in listed(waiter)["tables"]] == [True]


def test_a_table_left_leaves_only_that_players_list(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    playing = started(ann, bob, 2)
    lobby = ann.create()
    joined = bob.act(lobby["table"], "join", name="Bob", seat=None)
    assert set(tokens(bob)) == {playing["token"], lobby["token"]}
    bob.act(joined, "leave")  # in the lobby: the seat is open again
    bob.act(bob.get(playing["token"]), "leave")  # in play: away at once, the computer stands in
    assert tokens(bob) == []
    assert set(tokens(ann)) == {playing["token"], lobby["token"]}
    # Later changes of the table do not bring it back to Bob's list.
    ann.act(ann.get(lobby["token"]), "seats/1", kind="computer", strength="easy")
    assert tokens(bob) == []


def test_a_deleted_table_leaves_the_list_and_the_index(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    kept = started(ann, bob, 3)
    lobby = ann.create()
    online: OnlineTables = app.state.online
    gone = online.store.expire(
        lobby_before="9999", finished_before=0.0, idle_before=0.0, limit=10
    )  # retention's rule for lobbies, with every lobby old enough
    assert gone == 1
    assert tokens(ann) == [kept["token"]]
    left = online.store._rows(
        "SELECT COUNT(*) FROM online_seats WHERE table_id = ?", (table_key(lobby["token"]),)
    )
    assert int(left[0][0]) == 0


def test_the_list_is_bounded_newest_first(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mine, "MOST", 3)
    client = TestClient(app)
    ann = Device(client)
    made = [ann.create()["token"] for _ in range(5)]
    assert tokens(ann) == list(reversed(made))[:3]


def test_needs_a_player(app: FastAPI) -> None:
    r = TestClient(app).get(MINE)
    assert r.status_code == 401, r.text


def test_finished_tables_stay_until_retention(app: FastAPI) -> None:
    """A finished table stays listed for `finished_hours` after its last change (the retention
    rule, docs/reliability.md), even before the sweep deletes it."""
    client = TestClient(app)
    ann = Device(client)
    recent, old = ann.create()["token"], ann.create()["token"]
    online: OnlineTables = app.state.online
    hours = online.settings.finished_hours
    with online.store.sql.transaction() as tx:
        for token, ago in ((recent, hours - 1), (old, hours + 1)):
            online.store._exec(
                tx,
                "UPDATE online_tables SET stage = 'over', saved_at = saved_at - ? WHERE id = ?",
                (ago * 3600, table_key(token)),
            )
    assert tokens(ann) == [recent]


def test_a_turn_based_table_shows_its_pace_and_deadline(app: FastAPI) -> None:
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    day = 86400.0
    table = started(ann, bob, 5, pace="turn", turn_seconds=day)
    assert table["turn"]["seat"] == 1
    (row,) = listed(bob)["tables"]
    assert row["pace"] == "turn" and row["turn_seconds"] == day and row["your_turn"]
    assert row["deadline"] is not None and ISO.fullmatch(row["deadline"])
    assert table["turn"]["deadline"] is not None
    assert mine.iso(table["turn"]["deadline"]) == row["deadline"]


def test_a_save_that_changes_no_row_writes_none(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is written only when a row changes: saving a table again as it is (as a
    play within a turn leaves every row) reads its rows and writes nothing."""
    client = TestClient(app)
    ann, bob = Device(client), Device(client)
    table = started(ann, bob, 1)
    online: OnlineTables = app.state.online
    record = online.store.load(table_key(table["token"]))
    assert record is not None
    writes: list[str] = []
    monkeypatch.setattr(online.store, "put_seat", lambda *a, **k: writes.append("put"))
    monkeypatch.setattr(online.store, "drop_seat", lambda *a, **k: writes.append("drop"))
    with online.store.sql.transaction() as tx:
        mine.index(online.store, tx, record.key, record.version, load_room(record))
    assert writes == []
