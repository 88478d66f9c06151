"""The Poker Squares tables over HTTP (docs/ps-tables.md, contracts 1 and 2): create, the room
code, join, start, place and every refusal, a whole deal to its ranking, the rematch, a
spectator, leaving, the QR code."""

from __future__ import annotations

import json

from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.fairness import commitment, fair_deck
from cardtable.server.core.metrics import MOVES
from cardtable.server.devices.players import player_key
from cardtable.server.online.codes import table_key
from cardtable.server.pstables import service
from cardtable.server.pstables.lifecycle import tables_of
from cardtable.server.pstables.models import PSTable
from cardtable.server.pstables.render import device_view
from cardtable.server.pstables.tables import load

from .helpers import BASE, Device, cell, scan, table_of


def devices(client: TestClient, n: int) -> list[Device]:
    return [
        Device(client, name) for name in ("Ann", "Bea", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal")[:n]
    ]


def test_create_and_find_by_code(client: TestClient) -> None:
    ann, bea = devices(client, 2)
    made = ann.create(table="british", card_seconds=30, max_players=4)
    table = made["table"]
    assert made["code"] == table["code"] and len(made["code"]) == 6
    assert table["phase"] == "lobby" and table["version"] == 1 and table["deal"] == 1
    assert table["settings"] == {"table": "british", "card_seconds": 30, "max_players": 4}
    assert table["you"] == {"seat": 0, "host": True}
    assert [p["name"] for p in table["players"]] == ["Ann"]
    assert table["card"] is None and table["game"] is None and table["result"] is None
    assert table["fairness"]["commitment"] and table["fairness"]["seed"] is None
    found = bea.call("GET", f"{BASE}/codes/{made['code'].lower()}")
    assert found == {"token": made["token"]}
    assert bea.call("GET", f"{BASE}/codes/ZZZZZZ", status=404)["code"] == "not_found"
    assert bea.call("GET", f"{BASE}/codes/0", status=404)["code"] == "not_found"
    assert bea.get("x" * 24, status=404)["code"] == "not_found"
    for body in ({"card_seconds": 20}, {"max_players": 9}, {"max_players": 1}, {"table": "x"}):
        ann.create(status=422, **body)
    assert ann.call("POST", BASE, {"name": "\u0000"}, 422)["code"] == "invalid_name"
    assert ann.call("POST", BASE, {"name": "Ann", "extra": 1}, 422)["code"] == "invalid_request"


def test_join_start_and_their_refusals(client: TestClient) -> None:
    ann, bea, cy = devices(client, 3)
    token = ann.create(max_players=2)["token"]
    assert ann.act(token, "start", 409)["code"] == "wrong_phase"  # alone
    joined = bea.act(token, "join", name="Bea")
    assert joined["you"] == {"seat": 1, "host": False} and len(joined["players"]) == 2
    assert bea.act(token, "join", name="Bea again")["version"] == joined["version"]
    assert cy.act(token, "join", 409, name="Cy")["code"] == "table_full"
    assert bea.act(token, "start", 403)["code"] == "not_host"
    assert cy.act(token, "start", 409)["code"] == "not_seated"
    started = ann.act(token, "start")
    assert started["phase"] == "playing" and started["card"]["index"] == 0
    assert started["game"]["card"] == started["card"]["card"]
    assert ann.act(token, "start", 409)["code"] == "wrong_phase"
    other = devices(client, 1)[0]
    assert other.act(token, "join", 409, name="Late")["code"] in ("wrong_phase", "table_full")


def test_placing_and_its_refusals(client: TestClient) -> None:
    ann, bea, cy = devices(client, 3)
    token = table_of([ann, bea])
    assert ann.act(token, "place", 409, card=0, cell="a1")["code"] == "wrong_phase"
    ann.act(token, "start")
    assert ann.act(token, "place", 409, card=1, cell="a1")["code"] == "stale_card"
    assert ann.act(token, "place", 409, card=0, cell="f9")["code"] == "illegal_move"
    assert ann.act(token, "place", 422, card=25, cell="a1")["code"] == "invalid_request"
    assert cy.act(token, "place", 409, card=0, cell="a1")["code"] == "not_seated"
    before = MOVES.labels(game="poker_squares_table", by="person")._value.get()
    placed = ann.act(token, "place", card=0, cell="c4")
    assert MOVES.labels(game="poker_squares_table", by="person")._value.get() == before + 1
    assert placed["placed"] == 1 and placed["card"]["index"] == 0
    assert [p["placed"] for p in placed["players"]] == [True, False]
    assert placed["game"]["grid"][3][2] == placed["card"]["card"]
    assert placed["game"]["card"] is None and placed["game"]["legal_moves"] == []
    assert ann.act(token, "place", 409, card=0, cell="a1")["code"] == "already_placed"
    seen = bea.get(token)
    assert seen["placed"] == 1 and seen["game"]["grid"][3][2] is None  # not Ann's grid
    nxt = bea.act(token, "place", card=0, cell="c4")
    assert nxt["card"]["index"] == 1 and nxt["placed"] == 0
    assert ann.act(token, "place", 409, card=1, cell="c4")["code"] == "illegal_move"


def test_a_whole_deal_its_ranking_and_the_rematch(client: TestClient) -> None:
    ann, bea, cy = devices(client, 3)
    token = table_of([ann, bea, cy])
    committed = ann.act(token, "start")["fairness"]["commitment"]
    for k in range(25):
        for i, d in enumerate((ann, bea, cy)):
            d.act(token, "place", card=k, cell=cell(k if i < 2 else 24 - k))
    over = cy.get(token)
    assert over["phase"] == "over" and over["code"] is None and over["card"] is None
    fair = over["fairness"]
    assert fair["commitment"] == committed == commitment(fair["seed"], fair["salt"])
    result = over["result"]
    assert result["cards"] == [str(c) for c in fair_deck(fair["seed"])[:25]]
    ranking = result["ranking"]
    assert {r["seat"] for r in ranking} == {0, 1, 2}
    by_seat = {r["seat"]: r for r in ranking}
    assert by_seat[0]["place"] == by_seat[1]["place"]  # the same grid, the same place
    assert by_seat[0]["game"]["grid"] == by_seat[1]["game"]["grid"]
    assert by_seat[0]["total"] == by_seat[0]["game"]["total"]
    totals = sorted((r["total"] for r in ranking), reverse=True)
    assert [r["total"] for r in ranking] == totals
    assert over["game"]["is_over"] and over["game"]["grid"] == by_seat[2]["game"]["grid"]
    for seat, d in enumerate((ann, bea, cy)):
        assert scan(d.sent, seat, result, fair["seed"]) >= 25
    assert ann.act(token, "place", 409, card=0, cell="a1")["code"] == "wrong_phase"
    ready = ann.act(token, "rematch")
    assert ready["phase"] == "over" and [p["ready"] for p in ready["players"]] == [
        True,
        False,
        False,
    ]
    bea.act(token, "rematch")
    again = cy.act(token, "rematch")
    assert again["phase"] == "playing" and again["deal"] == 2 and again["card"]["index"] == 0
    assert again["fairness"]["commitment"] != committed and again["result"] is None
    assert all(row == [None] * 5 for row in again["game"]["grid"])
    assert again["log"] == [] and not any(p["ready"] for p in again["players"])


def test_a_spectator_sees_no_grid(client: TestClient) -> None:
    ann, bea, watcher = devices(client, 3)
    token = table_of([ann, bea])
    ann.act(token, "start")
    ann.act(token, "place", card=0, cell="a1")
    seen = watcher.get(token)
    assert seen["you"] == {"seat": None, "host": False} and seen["game"] is None
    assert seen["placed"] == 1 and seen["card"]["index"] == 0
    assert watcher.act(token, "rematch", 409)["code"] == "not_seated"


def test_leaving(client: TestClient) -> None:
    ann, bea, cy = devices(client, 3)
    token = table_of([ann, bea, cy])
    gone = ann.act(token, "leave")
    assert gone["you"]["seat"] is None and [p["seat"] for p in gone["players"]] == [1, 2]
    assert gone["players"][0]["host"]  # hosting passed on
    bea.act(token, "start")
    away = cy.act(token, "leave")
    assert [p["presence"] for p in away["players"]][1] == "away"
    assert cy.act(token, "place", 409, card=0, cell="a1")["code"] == "not_seated"


def test_the_invite_qr_code(client: TestClient) -> None:
    ann = devices(client, 1)[0]
    token = ann.create()["token"]
    r = client.get(f"{BASE}/{token}/qr.svg", params={"origin": "https://cards.example"})
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.text.startswith("<svg")
    bad = client.get(f"{BASE}/{token}/qr.svg", params={"origin": "javascript:alert(1)"})
    assert bad.status_code == 422
    assert (
        client.get(f"{BASE}/{'y' * 24}/qr.svg", params={"origin": "http://a.b"}).status_code == 404
    )


def test_the_views_rendered_once_are_the_device_views(client: TestClient, app: FastAPI) -> None:
    ann, bea, watcher = devices(client, 3)
    token = table_of([ann, bea])
    tables = tables_of(app)
    for step in range(4):
        if step == 1:
            ann.act(token, "start")
        if step >= 2:
            ann.act(token, "place", card=0 if step == 2 else 1, cell=cell(step))
        if step == 2:
            bea.act(token, "place", card=0, cell=cell(9))
        record = tables.read(table_key(token))
        assert record is not None
        for d in (ann, bea, watcher):
            key = player_key(d.player_id)
            sent = json.loads(service.view(tables, token, key))
            assert sent == device_view(load(record), record, token, key)
            PSTable.model_validate(sent)
