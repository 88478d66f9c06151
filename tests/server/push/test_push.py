"""Web Push end to end (docs/online.md, "Notifications"): real table saves write the outbox,
the app's sender signs (VAPID) and encrypts (aes128gcm) each notification, and the test push
service on loopback (tests/support/push_service.py) checks the signature, decrypts the body
with the subscription's own keys and records it."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.online.codes import table_key
from tests.server.online.helpers import JSON, Device
from tests.support.push_service import PushService, Sub

CARD = re.compile(r"\b(10|[2-9AJQK])[SHDC]\b")
CARD_NAMES = re.compile(r"\b(Ace|King|Queen|Jack|spades|hearts|diamonds|clubs)\b", re.I)


def subscribe(device: Device, sub: Sub, token: str | None, lang: str, **body: object) -> JSON:
    return device.call(
        "POST",
        "/api/push/subscriptions",
        {**sub.as_json(), "lang": lang, "table": token, **body},
        status=201,
    )


def table_of_two(ann: Device, bob: Device) -> JSON:
    created = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}])
    table = bob.act(created["table"], "join", name="Bob")
    return ann.act(table, "start")


def end_turn(ann: Device, bob: Device, token: str) -> JSON:
    table = ann.get(token)
    mover = ann if table["turn"]["seat"] in table["me"]["seats"] else bob
    return mover.act(mover.get(token), "moves", move="end")


def eventually(test: Callable[[], bool], timeout: float = 20.0) -> None:
    """Until ``test()`` holds (a row the sender deletes right after the push service answered)."""
    end = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < end, "never reached"
        time.sleep(0.02)


def no_card(payload: JSON) -> None:
    text = payload["title"] + " " + payload["body"]
    assert not CARD.search(text) and not CARD_NAMES.search(text), text


def test_one_turn_notification_per_turn_signed_encrypted_in_each_language(
    client: TestClient, app: FastAPI, push_service: PushService
) -> None:
    key = client.get("/api/push/key").json()["key"]
    push_service.server_key = key
    ann, bob = Device(client), Device(client)
    created = ann.create(seats=[{"kind": "me"}, {"kind": "invite"}])
    token = created["token"]
    ann_sub, bob_sub = push_service.new_subscription(), push_service.new_subscription()
    subscribe(ann, ann_sub, token, "en")
    table = bob.act(created["table"], "join", name="Bob")
    subscribe(bob, bob_sub, token, "ja")
    push_service.wait(lambda: len(push_service.of(ann_sub)) == 1)
    joined = push_service.of(ann_sub)[0]
    assert joined["body"] == "Bob joined your table" and joined["url"].endswith("#" + token)
    table = ann.act(table, "start")
    turns = 1
    for _ in range(5):
        table = end_turn(ann, bob, token)
        turns += 1
    # Every turn went to one of the two people; each is told once per turn of theirs.
    push_service.wait(lambda: len(push_service.received) == 1 + turns)
    ann_turns = [p for p in push_service.of(ann_sub) if p is not joined]
    bob_turns = push_service.of(bob_sub)
    assert len(ann_turns) + len(bob_turns) == turns and abs(len(ann_turns) - len(bob_turns)) <= 1
    assert all(p["body"] == "Your turn at the table you host" for p in ann_turns)
    assert all(p["body"] == "Annの卓であなたの番です" for p in bob_turns)
    assert all(p["title"] == "キングスコーナー" for p in bob_turns)
    for p in push_service.of(ann_sub) + bob_turns:
        no_card(p)
        assert set(p) == {"title", "body", "url", "tag"}
    assert {r.signer for r in push_service.received} == {key}
    assert push_service.refused == []
    eventually(lambda: app.state.push.store.waiting() == 0)
    assert len(push_service.received) == 1 + turns  # nothing more once the outbox is empty


def test_a_410_removes_the_subscription(
    client: TestClient, app: FastAPI, push_service: PushService
) -> None:
    ann, bob = Device(client), Device(client)
    table = table_of_two(ann, bob)
    token = table["token"]
    sub = push_service.new_subscription()
    sub.answer = 410
    subscribe(bob, sub, token, "en")
    subscribe(ann, push_service.new_subscription(), token, "en")
    assert app.state.push.store.subscription(bob.key)["tables"]
    end_turn(ann, bob, token)
    end_turn(ann, bob, token)
    push_service.wait(lambda: any(r[0] == sub.id and r[1] == 410 for r in push_service.refused))
    eventually(lambda: app.state.push.store.subscription(bob.key) is None)


def test_a_signed_out_device_gets_nothing_more(
    client: TestClient, app: FastAPI, push_service: PushService
) -> None:
    ann, bob = Device(client), Device(client)
    table = table_of_two(ann, bob)
    token = table["token"]
    sub = push_service.new_subscription()
    subscribe(bob, sub, token, "en", all_tables=True)
    watcher = push_service.new_subscription()
    subscribe(ann, watcher, token, "en")
    for _ in range(2):  # bob's turn comes within two turns: he is told of it
        table = end_turn(ann, bob, token)
    push_service.wait(lambda: len(push_service.of(sub)) >= 1)
    before = len(push_service.of(sub))
    devices = bob.call("GET", "/api/devices")["devices"]
    r = client.delete(
        f"/api/devices/{devices[0]['device']}", headers={"X-Player-Id": bob.player_id}
    )
    assert r.status_code == 204, r.text
    assert app.state.push.store.subscription(bob.key) is None
    # The match goes on: bob's seat is the record's, played from a device still signed in
    # (here the host hands it to the computer); ann is told of her turns, bob's signed-out
    # device of nothing.
    seen = len(push_service.of(watcher))
    table = ann.get(token)
    if table["turn"]["seat"] in table["me"]["seats"]:
        table = ann.act(table, "moves", move="end")
    bob_seat = 1 - table["me"]["seats"][0]
    ann.act(ann.get(token), f"seats/{bob_seat}/stand-in")
    push_service.wait(lambda: len(push_service.of(watcher)) > seen)
    assert len(push_service.of(sub)) == before


def test_quiet_while_the_player_is_at_the_table(
    client: TestClient, app: FastAPI, push_service: PushService
) -> None:
    """A seat whose device has a live connection (stored presence "online") is not told of
    its turn; the other seat, away, is."""
    ann, bob = Device(client), Device(client)
    table = table_of_two(ann, bob)
    token = table["token"]
    ann_sub, bob_sub = push_service.new_subscription(), push_service.new_subscription()
    subscribe(ann, ann_sub, token, "en")
    subscribe(bob, bob_sub, token, "en")
    online = app.state.online
    looking = online.change(table_key(token), lambda r: r.connected(bob.key, time.time()))
    assert looking is not None and looking.room.seats[1].connection == "online"
    for _ in range(4):  # two turns of each
        end_turn(ann, bob, token)
    push_service.wait(lambda: len(push_service.of(ann_sub)) == 2)
    eventually(lambda: app.state.push.store.waiting() == 0)
    assert push_service.of(bob_sub) == []


def test_deleting_the_record_removes_its_subscriptions(
    client: TestClient, app: FastAPI, push_service: PushService
) -> None:
    ann, bob = Device(client), Device(client)
    token = table_of_two(ann, bob)["token"]
    subscribe(bob, push_service.new_subscription(), token, "ja", all_tables=True)
    assert app.state.push.store.subscription(bob.key) is not None
    r = client.delete("/api/stats/data", headers={"X-Player-Id": bob.player_id})
    assert r.status_code == 204, r.text
    assert app.state.push.store.subscription(bob.key) is None
