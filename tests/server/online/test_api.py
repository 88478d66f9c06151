"""The online tables over HTTP (docs/online.md): every endpoint and its errors, in-process.
Every answer is checked for hidden cards (helpers.Recorder)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.core.ratelimit import TokenBuckets
from cardtable.server.online import routes as online_routes

from .helpers import BASE, JSON, Device, Recorder


@pytest.fixture
def recorder(app: FastAPI) -> Recorder:
    return Recorder(app)


@pytest.fixture
def ann(client: TestClient, recorder: Recorder) -> Device:
    return Device(client, recorder)


@pytest.fixture
def bob(client: TestClient, recorder: Recorder) -> Device:
    return Device(client, recorder)


@pytest.fixture
def cy(client: TestClient, recorder: Recorder) -> Device:
    return Device(client, recorder)


def wait(device: Device, token: str, test: Callable[[JSON], bool], timeout: float = 10) -> JSON:
    end = time.monotonic() + timeout
    while True:
        table = device.get(token)
        if test(table):
            return table
        assert time.monotonic() < end, f"never reached: {table['phase']} {table['turn']}"
        time.sleep(0.02)


def my_turn(device: Device) -> Callable[[JSON], bool]:
    def test(t: JSON) -> bool:
        return bool(
            t["phase"] in ("play", "round_over", "match_over")
            and t["me"]
            and (t["turn"] is None or t["turn"]["seat"] in t["me"]["seats"])
        )

    return test


def test_create_read_and_find_by_code(ann: Device, bob: Device, recorder: Recorder) -> None:
    created = ann.create(
        seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "computer", "strength": "strong"}],
        rules={"preset": "draw-last"},
        rounds=3,
        turn_timer=60,
        stand_in="strong",
    )
    table = created["table"]
    assert created["token"] == table["token"] and len(created["token"]) == 24
    assert created["code"] == table["code"] and len(created["code"]) == 6
    assert table["phase"] == "lobby" and table["me"] == {"seats": [0], "host": True}
    assert table["settings"]["rules"]["draw"] == "last" and table["settings"]["rounds"] == 3
    assert table["settings"]["turn_timer"] == 60 and table["settings"]["stand_in"] == "strong"
    assert [s["kind"] for s in table["seats"]] == ["person", "open", "computer"]
    assert table["seats"][0]["name"] == "Ann" and table["view"] is None and table["events"] == []
    code = created["code"]
    messy = code[:3].lower() + "-" + code[3:]
    assert bob.call("GET", f"{BASE}/codes/{messy}") == {"token": created["token"]}
    assert bob.call("GET", f"{BASE}/codes/AAAAAA", status=404)["code"] == "not_found"
    assert bob.call("GET", f"{BASE}/codes/0O1IL!", status=404)["code"] == "not_found"
    spectator = bob.get(created["token"])
    assert spectator["me"] is None and spectator["code"] == code
    assert bob.get("x" * 24, status=404)["code"] == "not_found"
    assert bob.get("short", status=404)["code"] == "not_found"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "   "}, "invalid_name"),
        ({"name": "x" * 25}, "invalid_name"),
        ({"name": "a\u0007b"}, "invalid_name"),
        ({"name": "a\u202eb"}, "invalid_name"),
        ({"name": "\u0301\u0301"}, "invalid_name"),
        ({"name": "\ufdfd" * 10}, "invalid_name"),
        ({"name": "\u3164"}, "invalid_name"),
        ({"name": "Ann", "seats": [{"kind": "invite"}, {"kind": "me"}]}, "invalid_request"),
        ({"name": "Ann", "seats": [{"kind": "me"}, {"kind": "me"}]}, "invalid_request"),
        ({"name": "Ann", "seats": [{"kind": "me"}]}, "invalid_request"),
        ({"name": "Ann", "turn_timer": 45}, "invalid_request"),
        ({"name": "Ann", "turn_timer": "60"}, "invalid_request"),
        ({"name": "Ann", "rounds": 2}, "invalid_request"),
        ({"name": "Ann", "colour": "red"}, "invalid_request"),
        (
            {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "local", "name": "\n"}]},
            "invalid_name",
        ),
    ],
)
def test_create_refuses(ann: Device, body: dict[str, Any], code: str) -> None:
    body.setdefault("seats", [{"kind": "me"}, {"kind": "invite"}])
    assert ann.call("POST", BASE, body, status=422)["code"] == code


def test_names_are_normalised(ann: Device) -> None:
    table = ann.create(name="  ＡＮＮ  ", seats=[{"kind": "me"}, {"kind": "local", "name": "Kim"}])
    assert [s["name"] for s in table["table"]["seats"]] == ["ANN", "Kim"]
    assert table["table"]["seats"][1]["local"]


def test_join_leave_seats_and_start(ann: Device, bob: Device, cy: Device) -> None:
    table = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"}])["table"]
    assert bob.act(table, "join", name="", status=422)["code"] == "invalid_name"
    assert bob.act(table, "join", name="Bob", seat=0, status=409)["code"] == "seat_taken"
    assert bob.act(table, "join", name="Bob", seat=7, status=422)["code"] == "invalid_request"
    joined = bob.act(table, "join", name="Bob", seat=2)
    assert joined["me"] == {"seats": [2], "host": False} and joined["version"] == 2
    stale = cy.act(table, "join", name="Cy", status=409)
    assert stale["code"] == "stale_version" and stale["current"]["version"] == 2
    assert stale["current"]["me"] is None
    assert bob.act(joined, "join", name="Bob")["version"] == 2  # already seated: unchanged
    assert bob.act(joined, "start", status=403)["code"] == "not_host"
    assert ann.act(joined, "start", status=409)["code"] == "wrong_phase"  # seat 1 is open
    assert bob.act(joined, "seats/1", kind="computer", status=403)["code"] == "not_host"
    assert ann.act(joined, "seats/2", kind="computer", status=409)["code"] == "seat_taken"
    assert ann.act(joined, "seats/1", kind="human", status=422)["code"] == "invalid_request"
    left = bob.act(joined, "leave")
    assert left["me"] is None and left["seats"][2]["kind"] == "open"
    assert bob.act(left, "leave", status=409)["code"] == "not_your_turn"
    full = cy.act(left, "join", name="Cy")
    assert full["me"]["seats"] == [1]
    assert bob.act(full, "join", name="Bob")["me"]["seats"] == [2]
    full = ann.get(table["token"])
    assert cy.act(full, "join", name="Dee", status=200)["me"]["seats"] == [1]
    dee = Device(ann.http, ann.recorder)
    assert dee.act(full, "join", name="Dee", status=409)["code"] == "table_full"
    started = ann.act(full, "start")
    assert started["phase"] in ("play", "handoff") and started["view"] is not None
    assert ann.act(started, "start", status=409)["code"] == "wrong_phase"
    assert dee.act(started, "join", name="Dee", status=409)["code"] == "table_full"
    assert started["code"] is not None and started["match"]["round"] == 1


def test_moves_only_for_the_seat_to_play(ann: Device, bob: Device) -> None:
    created = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}])
    table = bob.act(created["table"], "join", name="Bob")
    table = ann.act(table, "start")
    seat = table["turn"]["seat"]
    mover, other = (ann, bob) if seat == 0 else (bob, ann)
    table = mover.get(table["token"])
    assert table["viewer"] == seat and len(table["view"]["hand"]) >= 7
    assert other.act(table, "moves", move="end", status=409)["code"] == "not_your_turn"
    assert mover.act(table, "moves", move="9Z>N", status=422)["code"] == "invalid_request"
    assert mover.act(table, "moves", move="end", version=99, status=409)["code"] == "stale_version"
    hand = set(table["view"]["hand"])
    refused = next(c for c in ("AS", "AH", "2C", "KD", "5H", "7S") if c not in hand)
    illegal = mover.act(table, "moves", move=f"{refused}>N", status=409)
    assert illegal["code"] == "illegal_move"
    assert mover.act(table, "undo", status=409)["code"] == "illegal_move"
    assert mover.act(table, "reveal", status=409)["code"] == "wrong_phase"
    assert mover.act(table, "next-round", status=409)["code"] == "wrong_phase"
    assert mover.act(table, "rematch", status=409)["code"] == "wrong_phase"
    legal = [m for m in table["view"]["legal_moves"] if m != "end"]
    if legal:
        played = mover.act(table, "moves", move=legal[0])
        assert played["events"] and played["events"][0]["kind"] in ("play", "pile_move")
        assert played["log"][-1]["move"] == legal[0] and played["log"][-1]["n"] == 1
        undone = mover.act(played, "undo")
        assert undone["view"]["hand"] == table["view"]["hand"] and undone["log"] == []
        table = undone
    ended = mover.act(table, "moves", move="end")
    assert ended["turn"]["seat"] != seat and ended["viewer"] == seat
    watched = other.get(table["token"])
    assert watched["turn"]["seat"] == 1 - seat and watched["viewer"] == 1 - seat


def test_a_moves_credential_and_rate_limit_in_its_fast_lane(
    ann: Device, bob: Device, client: TestClient
) -> None:
    """The move runs in `games.MoveRoute`'s one thread trip, its credential read there
    (`devices.player_of`): the same answers as any route for a missing, made-up, signed-out
    or over-limit caller, and a body FastAPI itself refuses."""
    assert [(type(r).__name__, r.path) for r in online_routes.moves.routes] == [
        ("MoveRoute", "/{token}/moves")
    ]
    table = bob.act(ann.create()["table"], "join", name="Bob")
    table = ann.act(table, "start")
    mover = ann if table["turn"]["seat"] == 0 else bob
    url = f"{BASE}/{table['token']}/moves"
    body = {"move": "end", "version": table["version"]}
    assert client.post(url, json=body).json()["code"] == "no_player"
    made_up = client.post(url, json=body, headers={"X-Player-Id": "z" * 32})
    assert (made_up.status_code, made_up.json()["code"]) == (401, "no_player")
    wrong = client.post(url, json={"move": 5}, headers={"X-Player-Id": mover.player_id})
    assert (wrong.status_code, wrong.json()["code"]) == (422, "invalid_request")
    runtime = client.app.state.runtime  # type: ignore[attr-defined]
    runtime.player_limit = TokenBuckets(0.001, 1)  # one request, then none for a while
    ended = mover.act(table, "moves", move="end")
    assert ended["version"] > table["version"]
    limited = client.post(url, json=body, headers={"X-Player-Id": mover.player_id})
    assert (limited.status_code, limited.json()["code"]) == (429, "rate_limited")
    assert int(limited.headers["Retry-After"]) >= 1
    runtime.player_limit = None
    code = mover.call("POST", "/api/devices/transfer", status=201)["code"]
    phone = client.post("/api/devices/claim", json={"code": code, "name": "Phone"}).json()
    assert mover.call("POST", "/api/devices/sign-out-others")["revoked"] == 1
    body["version"] = ended["version"]
    gone = client.post(url, json=body, headers={"X-Player-Id": phone["player_id"]})
    assert (gone.status_code, gone.json()["code"]) == (401, "revoked")


def test_a_local_seat_hands_off_and_reveals(ann: Device, bob: Device) -> None:
    created = ann.create(seats=[{"kind": "me"}, {"kind": "local", "name": "Kim"}])
    table = ann.act(created["table"], "start")
    assert table["phase"] == "handoff" and table["viewer"] is None
    assert table["view"]["hand"] == [] and table["me"]["seats"] == [0, 1]
    assert bob.act(table, "reveal", status=409)["code"] == "not_your_turn"
    shown = ann.act(table, "reveal")
    assert shown["phase"] == "play" and shown["viewer"] == table["turn"]["seat"]
    ended = ann.act(shown, "moves", move="end")
    assert ended["phase"] == "handoff" and ended["viewer"] is None
    assert [e for e in ended["events"] if e["kind"] == "draw" and "card" in e] == []


def test_qr_code(ann: Device, client: TestClient) -> None:
    token = ann.create()["token"]
    r = client.get(f"{BASE}/{token}/qr.svg", params={"origin": "https://cards.example:8443"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.startswith("<svg") and "<path" in r.text
    for origin in ("javascript:alert(1)", "https://a.example/path", "https://a b", ""):
        bad = client.get(f"{BASE}/{token}/qr.svg", params={"origin": origin})
        assert bad.status_code == 422, origin
    assert client.get(f"{BASE}/{token}/qr.svg").status_code == 422
    missing = client.get(f"{BASE}/{'y' * 24}/qr.svg", params={"origin": "http://localhost"})
    assert missing.status_code == 404


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_whole_match_and_rematch_over_http(ann: Device, bob: Device, cy: Device) -> None:
    """Three devices and a computer play a 3-round match through the API; only each
    device's own hand ever appears in its answers (the recorder checks every one)."""
    created = ann.create(
        seats=[{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"},
               {"kind": "computer", "strength": "easy"}],
        rounds=3, rules={"preset": "simple"},
    )  # fmt: skip
    token = created["token"]
    table = bob.act(created["table"], "join", name="Bob")
    table = cy.act(table, "join", name="Cy")
    table = ann.act(table, "start")
    devices = {0: ann, 1: bob, 2: cy}
    rounds_dealt = 1
    for _ in range(600):
        table = wait(ann, token, lambda t: t["turn"] is None or t["turn"]["seat"] != 3)
        if table["phase"] == "match_over":
            break
        if table["phase"] == "round_over":
            table = devices[rounds_dealt % 3].act(table, "next-round")
            rounds_dealt += 1
            continue
        device = devices[table["turn"]["seat"]]
        mine = device.get(token)
        if mine["turn"] is None or mine["turn"]["seat"] == 3:
            continue
        moves = mine["view"]["legal_moves"]
        move = next((m for m in moves if m != "end"), "end")
        device.act(mine, "moves", move=move, status=200)
    else:
        raise AssertionError("the match did not end")
    assert table["match"]["winners"] and len(table["match"]["results"]) == 3
    assert table["code"] is None and ann.call("GET", f"{BASE}/codes/{created['code']}", status=404)
    ready = bob.act(table, "rematch")
    assert ready["phase"] == "match_over" and ready["seats"][1]["rematch"]
    ready = ann.act(ready, "rematch")
    again = cy.act(ready, "rematch")
    assert again["phase"] in ("play", "handoff") and again["match"]["round"] == 1
    assert not any(s["rematch"] for s in again["seats"])
    assert ann.recorder is not None and ann.recorder.checked > 100
