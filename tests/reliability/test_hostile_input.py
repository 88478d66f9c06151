"""Hostile input, written by hand: oversized and deeply nested bodies, wrong types, huge
numbers, unicode in every field, forged and replayed ids, stale versions and a tampered saved
state. Each gets a clear 4xx (or a clear refusal on load) and changes nothing; never a 500.
Also the request-size limit and the rate limits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.ratelimit import TokenBuckets
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api

NO_GAMES = {"poker_squares": None, "kings_corner": None, "poker_squares_counted": None}

PS = "/api/poker-squares/games"
KC = "/api/kings-corner/games"
MOVE_FIELDS = {"version", "row", "col"}


def snapshot(api: Api, game: dict[str, Any]) -> tuple[Any, list[Any]]:
    """What a refused request must leave as it was: the saved row and the move log."""
    store = api.client.app.state.runtime.store  # type: ignore[attr-defined]
    assert api.player_id is not None
    record = store.load_game(game["id"], player_key(api.player_id))
    return (record.version, record.state), store.move_log(game["id"])


def send(api: Api, method: str, path: str, content: bytes | str, **headers: Any) -> Any:
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    r = api.client.request(
        method,
        path,
        content=raw,
        headers={**api.headers, "content-type": "application/json", **headers},
    )
    assert 400 <= r.status_code < 500, f"{path} {raw[:80]!r} -> {r.status_code} {r.text[:200]}"
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) >= {"code", "message"} and body["message"], body
    return r.status_code, body


WRONG_VALUES: list[Any] = [
    None, True, False, "1", "", "１", [], [1], {}, {"$gt": 0}, 1.5, -1, 5, 2**31, -(2**63),
    10**40, 1e308, float("inf"), "NaN", "\u0000", "💥", "A" * 5000,
]  # fmt: skip
HUGE_TEXT = [
    '{"version": ' + "9" * 5000 + ', "row": 0, "col": 0}',  # beyond int's digit limit
    '{"version": 1e99999, "row": 0, "col": 0}',
    '{"version": -Infinity, "row": 0, "col": 0}',
    '{"version": NaN, "row": 0, "col": 0}',
    "[" * 8000 + "]" * 8000,  # deeply nested, under the size limit
    '{"a":' * 2500 + "1" + "}" * 2500,
    '{"version": 1, "row": 0, "col": 0',  # cut short
    "\ud800",  # a lone surrogate, not UTF-8
    "\u0000",
    "",
    "null",
    "[]",
    '"version"',
]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_wrong_types_huge_numbers_and_nesting_change_nothing(api: Api) -> None:
    game = api.ps(api.ps_new(), "moves", row=0, col=0)
    kc_game = api.kc_new()
    before, kc_before = snapshot(api, game), snapshot(api, kc_game)
    good = {"version": game["version"], "row": 1, "col": 1}
    for field in MOVE_FIELDS:
        for value in WRONG_VALUES:
            body = json.dumps({**good, field: value}, allow_nan=True)
            status, answer = send(api, "POST", f"{PS}/{game['id']}/moves", body)
            assert status in (409, 422), (field, value, answer)
    for text in HUGE_TEXT:
        for path in (f"{PS}/{game['id']}/moves", f"{KC}/{kc_game['id']}/moves", PS, KC):
            status, answer = send(api, "POST", path, text)
            assert (status, answer["code"]) in {(422, "invalid_request"), (413, "too_large")}
    for value in WRONG_VALUES:
        body = json.dumps({"version": kc_game["version"], "move": value}, allow_nan=True)
        send(api, "POST", f"{KC}/{kc_game['id']}/moves", body)
        send(api, "POST", KC, json.dumps({"seats": value}, allow_nan=True))
        send(api, "POST", KC, json.dumps({"seats": [{"kind": "human"}], "rounds": value}))
        send(api, "POST", PS, json.dumps({"table": value, "target": "easy"}, allow_nan=True))
    assert snapshot(api, game) == before and snapshot(api, kc_game) == kc_before


UNICODE = [
    "américain",
    "ＡＭＥＲＩＣＡＮ",
    "american\u200b",
    "𝖆𝖒𝖊𝖗𝖎𝖈𝖆𝖓",
    "🂡",
    "\u202eecnarf",
    "ä" * 64,
]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_unicode_in_every_field_is_refused_cleanly(api: Api) -> None:
    game = api.ps_new()
    kc_game = api.kc_new()
    before, kc_before = snapshot(api, game), snapshot(api, kc_game)
    for text in UNICODE:
        for body in (
            {"table": text},
            {"target": text},
            {"replay_of": text},
            {text: "american"},
        ):
            send(api, "POST", PS, json.dumps(body, ensure_ascii=False))
        for body in (
            {"seats": [{"kind": text}, {"kind": "human"}]},
            {"seats": [{"kind": "human"}, {"kind": "computer", "strength": text}]},
            {"seats": [{"kind": "human"}] * 2, "rules": {"preset": text}},
            {"seats": [{"kind": "human"}] * 2, "rules": {"draw": text, "pile_moves": True,
                                                         "kings": "first", "dealt_kings": "stay"}},
        ):  # fmt: skip
            send(api, "POST", KC, json.dumps(body, ensure_ascii=False))
        for move in (text, f"9{text}>N", "９H>N", "9H>Ｎ", "ｅｎｄ", "end\u0000"):
            body = {"version": kc_game["version"], "move": move}
            send(api, "POST", f"{KC}/{kc_game['id']}/moves", json.dumps(body, ensure_ascii=False))
        # Unicode in the path and the player header.
        quoted = text.encode().hex()
        assert api.get(f"{PS}/{text}", status=404)["code"] == "not_found"
        assert api.get(f"{KC}/%{quoted[:2]}%{quoted[2:4]}", status=404)["code"] == "not_found"
        r = api.client.get(f"{PS}/{game['id']}", headers={"X-Player-Id": text.encode()})
        assert r.status_code == 401 and r.json()["code"] == "no_player"
    assert snapshot(api, game) == before and snapshot(api, kc_game) == kc_before


def test_oversized_bodies_are_refused_before_reading(api: Api) -> None:
    game = api.ps_new()
    before = snapshot(api, game)
    padding = {"version": 1, "row": 0, "col": 0, "pad": "x" * 20_000}
    status, body = send(api, "POST", f"{PS}/{game['id']}/moves", json.dumps(padding))
    assert (status, body["code"]) == (413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it streams
        yield b'{"version": 1, "row": 0, "col": 0, "pad": "'
        for _ in range(40):
            yield b"x" * 1024
        yield b'"}'

    r = api.client.post(
        f"{PS}/{game['id']}/moves",
        content=chunks(),
        headers={**api.headers, "content-type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    status, body = send(api, "POST", PS, b"{}", **{"content-length": str(10**12)})
    assert status == 413
    assert snapshot(api, game) == before


def test_forged_and_replayed_ids_and_stale_versions(api: Api, other: Api) -> None:
    game = api.ps_new()
    mine = snapshot(api, game)
    theirs = other.ps_new()
    # Another player's game id, in the path and as replay_of.
    assert api.ps(theirs, "moves", status=404, row=0, col=0)["code"] == "not_found"
    assert api.ps_new(status=404, replay_of=theirs["id"])["code"] == "not_found"
    # A made-up id that looks right.
    fake = {**game, "id": game["id"][:-1] + ("A" if game["id"][-1] != "A" else "B")}
    assert api.ps(fake, "moves", status=404, row=0, col=0)["code"] == "not_found"
    assert snapshot(api, game) == mine
    # A request sent twice (a double click, a replayed packet): the second is stale.
    moved = api.ps(game, "moves", row=2, col=2)
    replayed = api.ps(game, "moves", status=409, row=2, col=2)
    assert replayed["code"] == "stale_version" and replayed["current"] == moved
    for version in (0, moved["version"] - 1, moved["version"] + 1, 2**31 - 1):
        status = 422 if version == 0 else 409
        assert api.ps(moved, "undo", status=status, version=version)["code"] in (
            "stale_version",
            "invalid_request",
        )
    after = snapshot(api, moved)
    assert after[0][0] == moved["version"] and len(after[1]) == 2


# -- a tampered saved state --------------------------------------------------------------
def tamper(api: Api, game_id: str, text: str) -> None:
    store = api.client.app.state.runtime.store  # type: ignore[attr-defined]
    with store.transaction() as tx:
        tx.execute("UPDATE games SET state = ? WHERE id = ?", (text, game_id))


def _ps_tampers(state: dict[str, Any]) -> list[str]:
    deal = list(state["cards"])
    out = ["not json", "[]", "null", "{}", json.dumps({**state, "format": "other/9"})]
    out.append(json.dumps({**state, "table": "french"}))
    out.append(json.dumps({**state, "placements": "0,0"}))
    out.append(json.dumps({**state, "placements": [[9, 9]]}))
    out.append(json.dumps({**state, "cards": [deal[0]] * len(deal)}))
    out.append(json.dumps({**state, "cards": deal[:3]}))
    out.append(json.dumps({**state, "cards": [*deal[:-1], "ZZ"]}))
    out.append(json.dumps({**state, "seed": "1"}))
    out.append(json.dumps({**state, "replay": True, "practice": False}))
    return out


def test_a_tampered_poker_squares_state_is_refused_on_load(api: Api) -> None:
    game = api.ps(api.ps_new(), "moves", row=0, col=0)
    state = snapshot(api, game)[0][1]
    for text in _ps_tampers(state):
        tamper(api, game["id"], text)
        before = snapshot(api, game)
        for action, body in (("moves", {"row": 1, "col": 1}), ("undo", {}), ("hint", {})):
            refused = api.ps(game, action, status=409, **body)
            assert refused["code"] == "damaged_game", (text[:60], refused)
        assert api.get(f"{PS}/{game['id']}", status=409)["code"] == "damaged_game"
        assert api.ps_new(status=409, replay_of=game["id"])["code"] == "damaged_game"
        # The page is offered a new game instead of the damaged one.
        assert api.get("/api/continue")["poker_squares"] is None
        assert snapshot(api, game) == before
    # A new deal replaces it as usual.
    assert api.ps_new()["view"]["placed"] == 0


def test_a_tampered_kings_corner_state_is_refused_on_load(api: Api) -> None:
    game = api.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}])
    state = snapshot(api, game)[0][1]
    seats = state["seats"]
    tampers = [
        "not json",
        "[1, 2]",
        json.dumps({**state, "format": "x"}),
        json.dumps({**state, "seats": seats[:1]}),
        json.dumps({**state, "seats": [{"kind": "robot", "strength": None}, seats[1]]}),
        json.dumps({**state, "seats": [seats[1], seats[1]]}),
        json.dumps({**state, "revealed": 7}),
        json.dumps({**state, "log": [{"seat": "x"}]}),
        json.dumps({**state, "steps": "many"}),
        json.dumps({**state, "match": {**state["match"], "players": 9}}),
        json.dumps({**state, "match": "x"}),
    ]
    for text in tampers:
        tamper(api, game["id"], text)
        before = snapshot(api, game)
        for action in ("moves", "undo", "reveal", "computer-step", "next-round"):
            body = {"move": "end"} if action == "moves" else {}
            refused = api.kc(game, action, status=409, **body)
            assert refused["code"] == "damaged_game", (text[:80], action, refused)
        assert api.get(f"{KC}/{game['id']}", status=409)["code"] == "damaged_game"
        assert api.get("/api/continue")["kings_corner"] is None
        assert snapshot(api, game) == before


# -- limits ------------------------------------------------------------------------------
@pytest.fixture
def strict_client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path / "strict",
        database_url=None,
        player_rate=0.01,
        player_burst=5,
        signup_rate=0.01,
        signup_burst=3,
    )
    with TestClient(create_app(settings)) as client:
        yield client


def test_rate_limits_answer_429_with_retry_after(strict_client: TestClient) -> None:
    a, b, c = (Api.new_player(strict_client) for _ in range(3))
    r = strict_client.post("/api/players")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert int(r.headers["retry-after"]) >= 1
    game = a.ps_new()
    for i in range(4):
        game = a.ps(game, "moves", row=0, col=i)
    refused = a.client.get(f"{PS}/{game['id']}", headers=a.headers)
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) >= 1
    # The refused request changed nothing; other players are not affected.
    b_game = b.ps_new()
    assert b.get(f"{PS}/{b_game['id']}")["version"] == 1
    store = strict_client.app.state.runtime.store  # type: ignore[attr-defined]
    assert a.player_id is not None
    record = store.load_game(game["id"], player_key(a.player_id))
    assert record.version == game["version"] == 5
    # Made-up ids get 401, not a bucket.
    for i in range(10):
        r = strict_client.get("/api/continue", headers={"X-Player-Id": f"{'x' * 30}{i:02d}"})
        assert r.status_code == 401
    assert c.get("/api/continue") == NO_GAMES


def test_token_buckets_refill_and_stay_bounded() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate=2.0, burst=3, max_keys=100, clock=lambda: now[0])
    assert [buckets.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("k") == pytest.approx(0.5)
    now[0] += 0.5
    assert buckets.take("k") == 0.0
    now[0] += 100
    assert [buckets.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]  # capped at the burst
    for i in range(1000):
        buckets.take(f"flood{i}")
    assert len(buckets._buckets) == 100


def test_default_limits_are_generous() -> None:
    s = Settings()
    assert s.player_rate is not None and s.player_rate >= 20 and s.player_burst >= 100
    assert s.signup_rate is not None and s.signup_burst >= 20
    assert not s.allow_seed_for_tests


def test_the_test_seed_header_works_only_when_allowed(tmp_path: Path, client: TestClient) -> None:
    def two_deals(c: TestClient) -> list[Any]:
        api = Api.new_player(c)
        headers = {**api.headers, "X-Test-Seed": "12345"}
        return [c.post(PS, json={}, headers=headers).json()["view"]["card"] for _ in range(2)]

    first, second = two_deals(client)  # the fixture's settings allow it
    assert first == second
    for bad in ("-1", "0", "9" * 5000, "１２", "1e3"):
        headers = {**Api.new_player(client).headers, "X-Test-Seed": bad}
        r = client.post(PS, json={}, headers={k: v.encode() for k, v in headers.items()})
        assert r.status_code == 422, bad
    with TestClient(create_app(Settings(data_dir=tmp_path / "off", database_url=None))) as off:
        cards = [two_deals(off)[0] for _ in range(4)]
        assert len(set(cards)) > 1  # ignored: four random deals do not all start alike
        r = off.post(PS, json={}, headers={**Api.new_player(off).headers, "X-Test-Seed": "x"})
        assert r.status_code == 201
        assert "X-Test-Seed" not in json.dumps(off.get("/openapi.json").json())
