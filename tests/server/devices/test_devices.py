"""One record on several devices (docs/devices.md) over HTTP, on SQLite and PostgreSQL:
transfer codes (expiry on an injected clock, single use, one answer for every bad code, the
guessing and issuing limits), the devices list, rename, sign-out (seen at once by a second
app on the same store, as another server process), sign out everywhere else, recovery keys,
delete-my-data, last-use bookkeeping and retention, and the live channel's hello."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core import limits_store, retention
from cardtable.server.core.limits_store import StoredLimits
from cardtable.server.core.store import migrations
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices import players
from cardtable.server.devices import service as devices_service
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api, Clock, store_settings

T0 = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)
PHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"  # noqa: E501


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=0) as settings:
        yield settings


@pytest.fixture
def clock(app: FastAPI) -> Clock:
    c = Clock(T0)
    app.state.devices_clock = c
    return c


def store_of(app: FastAPI) -> SqlStore:
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    return store


def count(app: FastAPI, sql: str, *params: Any) -> int:
    store = store_of(app)
    with store.reading() as tx:
        tx.execute(store._sql(sql), params)
        return int(tx.fetchone()[0])


def snapshot(app: FastAPI) -> list[Any]:
    """Every credential and transfer code row, in a stable order."""
    store = store_of(app)
    rows: list[Any] = []
    with store.reading() as tx:
        for sql in (
            "SELECT * FROM credentials ORDER BY cred",
            "SELECT * FROM transfer_codes ORDER BY code",
        ):
            tx.execute(sql)
            rows.append([tuple(r) for r in tx.fetchall()])
    return rows


def code_for(api: Api) -> str:
    code: str = api.post("/api/devices/transfer", status=201)["code"]
    return code


def claim(client: TestClient, code: str, status: int = 201, **extra: Any) -> Any:
    r = client.post("/api/devices/claim", json={"code": code, **extra})
    assert r.status_code == status, r.text
    return r.json()


def device_of(client: TestClient, answer: Any) -> Api:
    return Api(client, answer["player_id"])


# -- transfer ------------------------------------------------------------------------------
def test_a_code_makes_another_browser_the_same_player(
    app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    game = api.ps_new()
    game = api.ps(game, "moves", row=0, col=0)
    shown = api.post("/api/devices/transfer", status=201)
    assert shown["expires_in"] == 600
    assert shown["expires_at"] == (T0 + timedelta(seconds=600)).isoformat(timespec="microseconds")
    code = shown["code"]
    assert len(code) == 9 and code[4] == "-"
    assert api.get("/api/devices")["transfer"] == {"expires_at": shown["expires_at"]}

    # Typed sloppily: lower case, full-width, spaces instead of the hyphen.
    typed = " ".join(code.replace("-", "")).lower().replace("a", "ａ")
    r = client.post("/api/devices/claim", json={"code": typed}, headers={"User-Agent": PHONE})
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["name"] == "Safari on iPhone" and len(made["device"]) == 12
    phone = device_of(client, made)
    assert made["player_id"] != api.player_id

    # The same record: the game in progress, and it plays on from the phone.
    assert phone.get("/api/continue")["poker_squares"]["id"] == game["id"]
    moved = phone.ps(game, "moves", row=0, col=1)
    # The first device's next move on the old version loses and sees the current game.
    stale = api.ps(game, "moves", status=409, row=1, col=1)
    assert stale["code"] == "stale_version" and stale["current"] == moved
    api.ps(moved, "moves", row=1, col=1)

    listed = api.get("/api/devices")
    assert listed["transfer"] is None  # the code is used
    assert [(d["current"], d["kind"]) for d in listed["devices"]] == [
        (True, "device"),
        (False, "device"),
    ]
    assert listed["devices"][1]["name"] == "Safari on iPhone"
    mine = phone.get("/api/devices")
    assert {d["device"] for d in mine["devices"]} == {d["device"] for d in listed["devices"]}
    assert [d["current"] for d in mine["devices"]] == [False, True]


def test_the_qr_draws_only_the_live_code(client: TestClient, api: Api, other: Api) -> None:
    code = code_for(api)
    body = {"code": code, "origin": "https://cards.example:8443"}
    r = client.post("/api/devices/transfer-qr", json=body, headers=api.headers)
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text.startswith("<svg") and "Transfer link" in r.text
    assert code not in r.text  # drawn, not written
    for who, sent in (
        (other, body),  # not the other player's code
        (api, {**body, "code": "2345-6789"}),  # not a live code of this player
        (api, {**body, "code": "nonsense"}),
    ):
        r = client.post("/api/devices/transfer-qr", json=sent, headers=who.headers)
        assert r.status_code == 404 and r.json()["code"] == "not_found", r.text
    for origin in ("javascript:alert(1)", "https://x.org/path", "https://a b", ""):
        r = client.post(
            "/api/devices/transfer-qr", json={**body, "origin": origin}, headers=api.headers
        )
        assert r.status_code == 422, origin
    # A new code replaces the old one: the old one neither draws nor claims.
    code_for(api)
    r = client.post("/api/devices/transfer-qr", json=body, headers=api.headers)
    assert r.status_code == 404
    assert claim(client, code, 404)["code"] == "bad_code"


def test_a_code_expires_after_ten_minutes(
    app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    first = code_for(api)
    clock.at = T0 + timedelta(seconds=599)
    claim(client, first)  # still live a second before the end
    second = code_for(api)
    clock.at += timedelta(seconds=600)
    before = snapshot(app)
    assert claim(client, second, 404)["code"] == "bad_code"
    assert snapshot(app) == before  # nothing changed
    assert api.get("/api/devices")["transfer"] is None


def test_wrong_used_expired_and_malformed_codes_answer_alike(
    app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    used = code_for(api)
    claim(client, used)
    expired = code_for(api)
    clock.at = T0 + timedelta(minutes=11)
    live = code_for(api)
    wrong = "2345-6789" if live != "2345-6789" else "2345-678A"
    before = snapshot(app)
    bodies = set()
    for code in (used, expired, wrong, "0000-0000", "ABC", "IIII-LLLL", "", "x" * 40):
        answer = claim(client, code, 404)
        bodies.add(json.dumps(answer, sort_keys=True))
    assert len(bodies) == 1 and json.loads(bodies.pop())["code"] == "bad_code"
    assert snapshot(app) == before
    claim(client, live)  # the live code still works after all that


def test_claims_are_rate_limited_per_address(client: TestClient, api: Api) -> None:
    code = code_for(api)
    for _ in range(10):  # the burst
        claim(client, "2345-6789", 404)
    r = client.post("/api/devices/claim", json={"code": code})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert 1 <= int(r.headers["Retry-After"]) <= 6  # one token back every 6 s
    # Restores draw on the same budget (one guess is one guess).
    r = client.post("/api/devices/restore", json={"recovery_key": "k" * 43})
    assert r.status_code == 429
    # The refused claim changed nothing: the code is still live for its owner.
    assert api.get("/api/devices")["transfer"] is not None


def test_codes_and_recovery_keys_are_limited_per_player(
    client: TestClient, api: Api, other: Api
) -> None:
    for _ in range(6):
        code_for(api)
    refused = api.post("/api/devices/transfer", status=429)
    assert refused["code"] == "rate_limited"
    code_for(other)  # another player is not affected
    for _ in range(6):
        api.post("/api/devices/recovery", status=201)
    api.post("/api/devices/recovery", status=429)


def test_the_limits_hold_across_server_processes(
    settings: Settings, app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    """The guessing and issuing limits are kept in the store: a second app on the same store
    (another server process) shares each budget, and a token comes back after its time on
    the shared clock."""
    with TestClient(create_app(settings)) as second:
        second.app.state.devices_clock = clock  # type: ignore[attr-defined]
        far = Api(second, api.player_id)
        for i in range(10):  # the burst of guesses, from one address through both processes
            claim(client if i % 2 else second, "2345-6789", 404)
        for server in (client, second):
            r = server.post("/api/devices/claim", json={"code": "2345-6789"})
            assert r.status_code == 429 and r.headers["Retry-After"] == "6", r.text
        clock.at += timedelta(seconds=6)  # 10 a minute: one guess back after 6 s
        claim(second, "2345-6789", 404)
        assert second.post("/api/devices/claim", json={"code": "x"}).status_code == 429
        # Codes issued per player: 6 an hour, across both processes.
        for i in range(6):
            (api if i % 2 else far).post("/api/devices/transfer", status=201)
        assert far.post("/api/devices/transfer", status=429)["code"] == "rate_limited"
        assert api.post("/api/devices/transfer", status=429)["code"] == "rate_limited"
    # An hour later every bucket is full again: a take deletes the idle rows and starts a
    # full bucket, so each limit holds one row with one token spent.
    clock.at += timedelta(hours=1)
    code_for(api)
    claim(client, "2345-6789", 404)
    store = store_of(app)
    with store.reading() as tx:
        tx.execute("SELECT name, key, tokens FROM rate_limits ORDER BY name")
        rows = [tuple(r) for r in tx.fetchall()]
    assert [(name, tokens) for name, _, tokens in rows] == [
        ("claim", 9.0),
        ("site-claims", 59.0),  # the site-wide ceiling on claims (tests/server/core)
        ("transfer", 5.0),
    ]
    # No address or player id is kept in the clear.
    keys = [key for _, key, _ in rows]
    assert all(len(k) == 64 and api.player_id not in k and "testclient" not in k for k in keys)


def test_a_take_that_keeps_losing_its_compare_and_set_is_refused(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored limit fails closed: a take that never wins its write is refused (with the
    time of one token as its wait), and it spent nothing."""
    limits = StoredLimits(store_of(app))
    assert limits.take("claim", "1.2.3.4", 0.5, 2, 1000.0) == 0.0
    monkeypatch.setattr(limits_store, "TRIES", 0)
    assert limits.take("claim", "1.2.3.4", 0.5, 2, 1000.0) == 2.0
    monkeypatch.undo()
    assert limits.take("claim", "1.2.3.4", 0.5, 2, 1000.0) == 0.0  # the second token
    assert limits.take("claim", "1.2.3.4", 0.5, 2, 1000.0) == 2.0  # none left: 1 / rate


# -- signing out -----------------------------------------------------------------------------
def test_a_signed_out_device_is_refused_at_once_by_another_process(
    settings: Settings, client: TestClient, api: Api
) -> None:
    phone = device_of(client, claim(client, code_for(api)))
    game = phone.ps_new()
    # A second app on the same store stands for another server process.
    with TestClient(create_app(settings)) as second:
        far = Api(second, phone.player_id)
        assert far.get("/api/continue")["poker_squares"]["id"] == game["id"]
        target = next(d for d in api.get("/api/devices")["devices"] if not d["current"])
        r = client.delete(f"/api/devices/{target['device']}", headers=api.headers)
        assert r.status_code == 204
        refused = far.get("/api/continue", status=401)
        assert refused["code"] == "revoked" and "signed out" in refused["message"]
        assert phone.get(f"/api/poker-squares/games/{game['id']}", status=401)["code"] == (
            "revoked"
        )
        assert (
            Api(second, api.player_id).get("/api/continue")["poker_squares"]["id"] == (game["id"])
        )
    # Unknown ids stay `no_player`; signing a device out twice, or another record's, is 404.
    assert Api(client, "u" * 32).get("/api/continue", status=401)["code"] == "no_player"
    r = client.delete(f"/api/devices/{target['device']}", headers=api.headers)
    assert r.status_code == 404
    for bad in ("nope", "A" * 12, "abcdefghijkl"):
        assert client.delete(f"/api/devices/{bad}", headers=api.headers).status_code == 404
    # A device may sign itself out.
    mine = api.get("/api/devices")["devices"][0]
    assert client.delete(f"/api/devices/{mine['device']}", headers=api.headers).status_code == 204
    assert api.get("/api/devices", status=401)["code"] == "revoked"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_deleted_and_signed_out_ids_are_refused_at_once_by_another_process(
    settings: Settings, client: TestClient, api: Api
) -> None:
    """Sign out everywhere else, then delete my data, each through one app: a second app on
    the same store (another server process, which has just served those ids) refuses them on
    their very next request."""
    tablet = device_of(client, claim(client, code_for(api)))
    phone = device_of(client, claim(client, code_for(api)))
    with TestClient(create_app(settings)) as second:
        far_tablet, far_phone = Api(second, tablet.player_id), Api(second, phone.player_id)
        for far in (far_tablet, far_phone, Api(second, api.player_id)):
            assert far.get("/api/stats")  # each id just worked in the other process
        assert phone.post("/api/devices/sign-out-others") == {"revoked": 2}
        assert far_tablet.get("/api/stats", status=401)["code"] == "revoked"
        assert Api(second, api.player_id).get("/api/stats", status=401)["code"] == "revoked"
        assert far_phone.get("/api/stats")
        r = client.delete("/api/stats/data", headers=phone.headers)
        assert r.status_code == 204
        assert far_phone.get("/api/stats", status=401)["code"] == "no_player"
        assert far_phone.get("/api/devices", status=401)["code"] == "no_player"


def test_a_code_dies_with_the_device_that_issued_it(
    app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    """B claims A's code and issues its own; A signs B out: B's code is dead (404
    `bad_code`). The same when A signs out everywhere else; A's own live code survives that.
    A code whose issuing device is signed out is refused at claim time even if its row was
    left behind (a code issued in the same instant as the sign-out)."""
    b = device_of(client, claim(client, code_for(api), name="B"))
    b_code = code_for(b)
    target = next(d["device"] for d in api.get("/api/devices")["devices"] if d["name"] == "B")
    assert client.delete(f"/api/devices/{target}", headers=api.headers).status_code == 204
    assert api.get("/api/devices")["transfer"] is None
    assert claim(client, b_code, 404)["code"] == "bad_code"

    c = device_of(client, claim(client, code_for(api), name="C"))
    c_code = code_for(c)
    assert api.post("/api/devices/sign-out-others") == {"revoked": 1}
    assert api.get("/api/devices")["transfer"] is None
    assert claim(client, c_code, 404)["code"] == "bad_code"
    player = player_key(str(api.player_id))
    assert count(app, "SELECT COUNT(*) FROM transfer_codes WHERE player = ? AND used_at IS NULL",
                 player) == 0  # fmt: skip

    mine = code_for(api)  # this device's own code is not "elsewhere"
    assert api.post("/api/devices/sign-out-others") == {"revoked": 0}
    d = device_of(client, claim(client, mine, name="D"))
    assert d.get("/api/devices")["devices"][0]["current"] is False

    # A code row left behind by a device already signed out (its issuing request raced the
    # sign-out) is refused by the claim itself, and not shown as the record's live code.
    d_device = next(x["device"] for x in api.get("/api/devices")["devices"] if x["name"] == "D")
    assert client.delete(f"/api/devices/{d_device}", headers=api.headers).status_code == 204
    raced = "ABCD-EFGH"
    store = store_of(app)
    with store.transaction() as tx:
        tx.execute(
            store._sql(
                "INSERT INTO transfer_codes (code, player, created_by, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?)"
            ),
            (player_key("ABCDEFGH"), player, d_device, T0.isoformat(timespec="microseconds"),
             (T0 + timedelta(minutes=10)).isoformat(timespec="microseconds")),
        )  # fmt: skip
    assert api.get("/api/devices")["transfer"] is None
    assert claim(client, raced, 404)["code"] == "bad_code"
    assert count(app, "SELECT COUNT(*) FROM credentials WHERE player = ?", player) == 4


def test_another_players_device_cannot_be_signed_out(
    client: TestClient, api: Api, other: Api
) -> None:
    theirs = other.get("/api/devices")["devices"][0]["device"]
    r = client.delete(f"/api/devices/{theirs}", headers=api.headers)
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    other.get("/api/continue")


def test_sign_out_everywhere_else(client: TestClient, api: Api) -> None:
    tablet = device_of(client, claim(client, code_for(api)))
    phone = device_of(client, claim(client, code_for(api)))
    key = api.post("/api/devices/recovery", status=201)["recovery_key"]
    assert len(api.get("/api/devices")["devices"]) == 4
    assert phone.post("/api/devices/sign-out-others") == {"revoked": 3}
    for gone in (api, tablet):
        assert gone.get("/api/continue", status=401)["code"] == "revoked"
    r = client.post("/api/devices/restore", json={"recovery_key": key})
    assert r.status_code == 404 and r.json()["code"] == "bad_code"
    listed = phone.get("/api/devices")["devices"]
    assert [(d["current"], d["kind"]) for d in listed] == [(True, "device")]
    assert phone.post("/api/devices/sign-out-others") == {"revoked": 0}


# -- recovery ------------------------------------------------------------------------------
def test_a_recovery_key_restores_the_record(client: TestClient, api: Api, clock: Clock) -> None:
    game = api.kc_new()
    made = api.post("/api/devices/recovery", status=201)
    assert made["format"] == "cardtable-recovery" and made["version"] == 1
    assert "Anyone holding this file" in made["warning"]
    key = made["recovery_key"]
    assert len(key) == 43
    entry = next(d for d in api.get("/api/devices")["devices"] if d["kind"] == "recovery")
    assert entry["device"] == made["device"]
    # The key is no X-Player-Id: only `restore` takes it.
    assert Api(client, key).get("/api/continue", status=401)["code"] == "no_player"

    r = client.post(
        "/api/devices/restore", json={"recovery_key": key, "name": "Laptop"},
        headers={"X-Player-Id": "ignored" * 4},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    third = device_of(client, r.json())
    assert r.json()["name"] == "Laptop"
    assert third.get("/api/continue")["kings_corner"]["id"] == game["id"]
    # Reusable until signed out.
    again = client.post("/api/devices/restore", json={"recovery_key": key})
    assert again.status_code == 201
    for wrong in ("x" * 43, key[:-1], "", "ｋ" * 43):
        r = client.post("/api/devices/restore", json={"recovery_key": wrong})
        assert r.status_code == 404 and r.json()["code"] == "bad_code", wrong
    r = client.delete(f"/api/devices/{made['device']}", headers=third.headers)
    assert r.status_code == 204
    r = client.post("/api/devices/restore", json={"recovery_key": key})
    assert r.status_code == 404 and r.json()["code"] == "bad_code"
    third.get("/api/continue")  # the devices it made stay


# -- names and bookkeeping -----------------------------------------------------------------
def test_rename_this_device(client: TestClient, api: Api) -> None:
    renamed = client.patch(
        "/api/devices/current", json={"name": "  Ｋitchen\u0007  tablet\u200b "},
        headers=api.headers,
    )  # fmt: skip
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == "Kitchen tablet" and renamed.json()["current"]
    assert api.get("/api/devices")["devices"][0]["name"] == "Kitchen tablet"
    long = client.patch("/api/devices/current", json={"name": "あ" * 60}, headers=api.headers)
    assert long.json()["name"] == "あ" * 40
    blank = client.patch(
        "/api/devices/current", json={"name": " \t "}, headers={**api.headers, "User-Agent": PHONE}
    )
    assert blank.json()["name"] == "Safari on iPhone"
    too_long = client.patch("/api/devices/current", json={"name": "x" * 257}, headers=api.headers)
    assert too_long.status_code == 422
    extra = client.patch("/api/devices/current", json={"name": "a", "x": 1}, headers=api.headers)
    assert extra.status_code == 422
    # The first device of a new player is named after its browser.
    r = client.post("/api/players", headers={"User-Agent": PHONE})
    first = Api(client, r.json()["player_id"]).get("/api/devices")["devices"]
    assert [d["name"] for d in first] == ["Safari on iPhone"]


def test_a_second_browser_of_one_kind_gets_a_name_of_its_own(
    client: TestClient, api: Api, clock: Clock
) -> None:
    """Two browsers of one kind ("Chrome on Linux" twice) are told apart in the list (issue
    44): a new device whose name another device of the record has gets the first free number,
    by code or by recovery file, as given or from the User-Agent; each entry says when it was
    added. A rename keeps the name as typed; recovery files keep theirs (the page names them)."""
    first = api.get("/api/devices")["devices"][0]["name"]
    assert first == "Browser"  # the test client's User-Agent
    second = claim(client, code_for(api))
    clock.at += timedelta(seconds=90)
    third = claim(client, code_for(api))
    assert (second["name"], third["name"]) == ("Browser (2)", "Browser (3)")
    listed = api.get("/api/devices")["devices"]
    assert [d["name"] for d in listed] == ["Browser", "Browser (2)", "Browser (3)"]
    assert [d["created_at"] for d in listed[1:]] == [
        T0.isoformat(timespec="microseconds"),
        (T0 + timedelta(seconds=90)).isoformat(timespec="microseconds"),
    ]
    # A number freed by a sign-out is given again; a name as given is numbered too.
    assert client.delete(f"/api/devices/{second['device']}", headers=api.headers).status_code == 204
    assert claim(client, code_for(api))["name"] == "Browser (2)"
    assert claim(client, code_for(api), name=" Laptop ")["name"] == "Laptop"
    assert claim(client, code_for(api), name="Laptop")["name"] == "Laptop (2)"
    # A recovery file: its entries keep their name; a restore is numbered like a claim.
    files = [api.post("/api/devices/recovery", status=201) for _ in range(2)]
    names = {d["device"]: d["name"] for d in api.get("/api/devices")["devices"]}
    assert [names[f["device"]] for f in files] == ["Recovery file", "Recovery file"]
    key = files[0]["recovery_key"]
    r = client.post("/api/devices/restore", json={"recovery_key": key, "name": "Laptop"})
    assert r.status_code == 201 and r.json()["name"] == "Laptop (3)"
    # A rename is kept as typed, even when another device has the name.
    renamed = client.patch("/api/devices/current", json={"name": "Laptop"}, headers=api.headers)
    assert renamed.json()["name"] == "Laptop"
    # Numbered names stay within 40 characters.
    long = {"recovery_key": key, "name": "x" * 40}
    assert client.post("/api/devices/restore", json=long).json()["name"] == "x" * 40
    assert client.post("/api/devices/restore", json=long).json()["name"] == "x" * 36 + " (2)"


def test_distinct_names() -> None:
    assert devices_service.distinct_name("Chrome on Linux", []) == "Chrome on Linux"
    taken = ["Chrome on Linux", "Chrome on Linux (2)", "Chrome on Linux (4)"]
    assert devices_service.distinct_name("Chrome on Linux", taken) == "Chrome on Linux (3)"
    assert devices_service.distinct_name("Chrome on Linux (2)", taken) == "Chrome on Linux (2) (2)"
    tight = "y" * 39 + " "
    assert devices_service.distinct_name(tight.strip(), [tight.strip()]) == "y" * 36 + " (2)"
    many = ["z" * 40, *("z" * 36 + f" ({n})" for n in range(2, 10))]
    assert devices_service.distinct_name("z" * 40, many) == "z" * 35 + " (10)"


def test_last_use_is_written_at_most_every_five_minutes(
    app: FastAPI, client: TestClient, api: Api, clock: Clock
) -> None:
    cred = player_key(str(api.player_id))

    def last_used() -> str:
        store = store_of(app)
        with store.reading() as tx:
            tx.execute(store._sql("SELECT last_used_at FROM credentials WHERE cred = ?"), (cred,))
            return str(tx.fetchone()[0])

    assert last_used() < T0.isoformat()  # created with the real time, before the fake clock's
    api.get("/api/continue")
    assert last_used() == T0.isoformat(timespec="microseconds")
    clock.at = T0 + timedelta(minutes=4)
    api.get("/api/continue")
    assert last_used() == T0.isoformat(timespec="microseconds")  # a read stays a read
    clock.at = T0 + timedelta(minutes=6)
    api.get("/api/continue")
    assert last_used() == clock.at.isoformat(timespec="microseconds")


def test_a_recently_used_device_keeps_an_old_player(
    app: FastAPI, client: TestClient, api: Api, other: Api
) -> None:
    """The sweep deletes players idle for `idle_player_days`: no game saved and no
    credential used since; deleting one deletes its credentials and codes."""
    store = store_of(app)
    old = "2000-01-01T00:00:00.000000+00:00"
    code_for(other)
    with store.transaction() as tx:
        for who in (api, other):
            tx.execute(
                store._sql("UPDATE players SET created_at = ? WHERE id = ?"),
                (old, player_key(str(who.player_id))),
            )
        tx.execute(
            store._sql("UPDATE credentials SET created_at = ?, last_used_at = ? WHERE player = ?"),
            (old, old, player_key(str(other.player_id))),
        )
    assert retention.sweep(app.state.runtime) == 1
    api.get("/api/continue")  # its device was used lately: kept
    assert other.get("/api/continue", status=401)["code"] == "no_player"
    gone = player_key(str(other.player_id))
    assert count(app, "SELECT COUNT(*) FROM credentials WHERE player = ?", gone) == 0
    assert count(app, "SELECT COUNT(*) FROM transfer_codes WHERE player = ?", gone) == 0


def test_deleting_the_data_removes_every_credential(
    app: FastAPI, client: TestClient, api: Api, other: Api
) -> None:
    phone = device_of(client, claim(client, code_for(api)))
    key = api.post("/api/devices/recovery", status=201)["recovery_key"]
    live = code_for(api)
    player = player_key(str(api.player_id))
    assert count(app, "SELECT COUNT(*) FROM credentials WHERE player = ?", player) == 3
    r = client.delete("/api/stats/data", headers=phone.headers)
    assert r.status_code == 204
    for sql in (
        "SELECT COUNT(*) FROM credentials WHERE player = ?",
        "SELECT COUNT(*) FROM transfer_codes WHERE player = ?",
        "SELECT COUNT(*) FROM players WHERE id = ?",
    ):
        assert count(app, sql, player) == 0, sql
    for gone in (api, phone):
        assert gone.get("/api/continue", status=401)["code"] == "no_player"
    assert claim(client, live, 404)["code"] == "bad_code"
    r = client.post("/api/devices/restore", json={"recovery_key": key})
    assert r.status_code == 404
    other.get("/api/devices")  # another record is untouched


# -- players from before migration 8 -------------------------------------------------------
def test_a_player_without_a_credential_row_is_adopted(
    app: FastAPI, client: TestClient, api: Api
) -> None:
    """A player made by a process still running the code before migration 8 (rolling
    upgrade) has no credential row: its first request makes the one it would have had."""
    legacy = "L" * 32
    store = store_of(app)
    with store.transaction() as tx:
        tx.execute(
            store._sql("INSERT INTO players (id, created_at) VALUES (?, ?)"),
            (player_key(legacy), T0.isoformat()),
        )
    old = Api(client, legacy)
    game = old.ps_new()
    listed = old.get("/api/devices")["devices"]
    assert [(d["name"], d["current"]) for d in listed] == [("Browser", True)]
    phone = device_of(client, claim(client, code_for(old)))
    assert phone.get("/api/continue")["poker_squares"]["id"] == game["id"]


# -- the live channel ------------------------------------------------------------------------
def test_the_live_hello_refuses_a_signed_out_device(client: TestClient, api: Api) -> None:
    phone = device_of(client, claim(client, code_for(api)))
    path = f"/api/kings-corner/online/{'q' * 24}/live"  # no such table: checked after hello

    def hello(player_id: str | None) -> tuple[list[Any], int, str]:
        messages: list[Any] = []
        with client.websocket_connect(path) as ws:
            ws.send_text(json.dumps({"type": "hello", "player": player_id, "version": None}))
            for _ in range(3):
                msg = ws.receive()
                if msg["type"] == "websocket.close":
                    return messages, msg["code"], msg.get("reason", "")
                messages.append(json.loads(msg["text"]))
        raise AssertionError("not closed")

    assert hello(phone.player_id)[1] == 4404  # a valid device gets as far as the table
    target = next(d for d in api.get("/api/devices")["devices"] if not d["current"])
    assert client.delete(f"/api/devices/{target['device']}", headers=api.headers).status_code == 204
    messages, code, reason = hello(phone.player_id)
    assert code == 4401 and reason == "revoked"
    assert (
        messages == [{"type": "error", "code": "revoked", "message": messages[0]["message"]}]
        and "signed out" in messages[0]["message"]
    )
    assert hello("z" * 32)[1:] == (4401, "unknown player")


def test_players_from_before_migration_8_keep_working(settings: Settings) -> None:
    """A store at schema version 7 with a player: opening it runs migration 8, which gives
    the player its first credential (its own id), so it plays on and can add devices."""
    legacy = "P" * 32
    if settings.uses_postgres:
        import psycopg

        assert settings.database_url is not None
        conn: Any = psycopg.connect(settings.database_url, autocommit=True)

        @contextmanager
        def transaction() -> Iterator[Any]:
            with conn.transaction(), conn.cursor() as cur:
                yield cur

        dialect = "postgresql"
    else:
        settings.data_dir.mkdir(parents=True)
        conn = sqlite3.connect(settings.sqlite_path, isolation_level=None)

        @contextmanager
        def transaction() -> Iterator[Any]:
            cur = conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            yield cur
            conn.commit()

        dialect = "sqlite"
    try:
        assert migrations.migrate(transaction, dialect, migrations.MIGRATIONS[:7]) == [*range(1, 8)]
        with transaction() as cur:
            mark = "%s" if dialect == "postgresql" else "?"
            cur.execute(
                f"INSERT INTO players (id, created_at) VALUES ({mark}, {mark})",
                (player_key(legacy), T0.isoformat()),
            )
    finally:
        conn.close()
    with TestClient(create_app(settings)) as client:
        old = Api(client, legacy)
        listed = old.get("/api/devices")["devices"]
        assert [(d["name"], d["kind"], d["current"]) for d in listed] == [
            ("Browser", "device", True)
        ]
        assert listed[0]["last_used_at"] == listed[0]["created_at"] == T0.isoformat()
        game = old.ps_new()
        phone = device_of(client, claim(client, code_for(old)))
        assert phone.get("/api/continue")["poker_squares"]["id"] == game["id"]


def test_a_player_over_its_rate_is_refused_before_the_store_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 45: once a player's request bucket is empty, its next request is answered 429
    without authenticating it from the store again."""
    settings = Settings(
        data_dir=tmp_path / "data", database_url=None, player_rate=0.001, player_burst=2
    )
    with TestClient(create_app(settings)) as client:
        api = Api.new_player(client)
        api.get("/api/continue")
        api.get("/api/continue")
        assert api.get("/api/continue", status=429)["code"] == "rate_limited"

        def unread(*_: object) -> None:
            raise AssertionError("the store was read for a request over the rate")

        monkeypatch.setattr(players, "authenticate", unread)
        refused = api.client.get("/api/continue", headers=api.headers)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
