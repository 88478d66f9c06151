"""Isolation: another player's game answers 404 on every endpoint, with the very body an
unknown id gets; no endpoint lists another player's games; player ids are long random tokens
(not guessable) and the store keeps only their hash."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable.server.devices.players import player_key
from tests.server.helpers import Api
from tests.server.kc_driver import play_match

NO_GAMES = {"poker_squares": None, "kings_corner": None, "poker_squares_counted": None}

PS = "/api/poker-squares/games"
KC = "/api/kings-corner/games"


def every_game_request(kind: str, game: dict[str, Any]) -> list[tuple[str, str, Any]]:
    v = game["version"]
    if kind == "ps":
        root = f"{PS}/{game['id']}"
        return [
            ("GET", root, None),
            ("POST", f"{root}/moves", {"version": v, "row": 0, "col": 0}),
            ("POST", f"{root}/undo", {"version": v}),
            ("POST", f"{root}/hint", {"version": v}),
            ("POST", PS, {"replay_of": game["id"]}),
        ]
    root = f"{KC}/{game['id']}"
    return [("GET", root, None), ("POST", f"{root}/moves", {"version": v, "move": "end"})] + [
        ("POST", f"{root}/{action}", {"version": v})
        for action in ("undo", "reveal", "computer-step", "next-round")
    ]


def test_another_players_game_is_not_found_everywhere(
    client: TestClient, api: Api, other: Api
) -> None:
    ps_game = api.ps_new()
    ps_game = api.ps(ps_game, "moves", row=0, col=0)
    kc_game = api.kc_new(seats=[{"kind": "human"}, {"kind": "human"}])
    before = {
        "ps": api.get(f"{PS}/{ps_game['id']}"),
        "kc": api.get(f"{KC}/{kc_game['id']}"),
    }
    for kind, game in (("ps", ps_game), ("kc", kc_game)):
        for method, path, body in every_game_request(kind, game):
            theirs = other.call(method, path, body, status=404)
            # The same answer as an id that does not exist: nothing to probe.
            unknown_path = path.replace(game["id"], "A" * len(game["id"]))
            unknown_body = (
                {"replay_of": "A" * len(game["id"])} if body and "replay_of" in body else body
            )
            nobody = other.call(method, unknown_path, unknown_body, status=404)
            assert theirs == nobody == {"code": "not_found", "message": "no such game"}
    # Nothing changed for the owner.
    assert api.get(f"{PS}/{ps_game['id']}") == before["ps"]
    assert api.get(f"{KC}/{kc_game['id']}") == before["kc"]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_no_endpoint_lists_another_players_games(client: TestClient, api: Api, other: Api) -> None:
    game = api.ps_new()
    for i in range(25):
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
    api.ps_new()
    play_match(api, api.kc_new(seats=[{"kind": "human"}, {"kind": "computer", "strength": "easy"}]))
    mine = api.get("/api/continue")
    assert mine["poker_squares"] is not None
    assert other.get("/api/continue") == NO_GAMES
    empty = {"best": None, "best_practice": None, "history": []}
    assert other.get("/api/poker-squares/scores") == {"american": empty, "british": empty}
    assert other.get("/api/kings-corner/results") == {"matches": []}
    assert api.get("/api/kings-corner/results")["matches"]
    # There is no listing of games at all: a collection GET is refused.
    for path in (PS, KC, "/api/players"):
        r = client.get(path, headers=other.headers)
        assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"


def test_player_ids_are_long_random_tokens_kept_only_hashed(client: TestClient) -> None:
    ids = [client.post("/api/players").json()["player_id"] for _ in range(50)]
    assert len(set(ids)) == len(ids)
    for pid in ids:
        # At least 128 random bits in URL-safe base64 (192 in practice).
        assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", pid), pid
    assert len({pid[:8] for pid in ids}) == len(ids)
    store = client.app.state.runtime.store  # type: ignore[attr-defined]
    rows = {r[0] for r in store._rows("SELECT id FROM players", ())}
    assert {player_key(pid) for pid in ids} <= rows
    assert not set(ids) & rows


def test_a_forged_or_truncated_id_is_no_player(client: TestClient, api: Api) -> None:
    game = api.ps_new()
    assert api.player_id is not None
    forged = [
        api.player_id[:-1],
        api.player_id[:-1] + ("A" if api.player_id[-1] != "A" else "B"),
        api.player_id.upper(),
        player_key(api.player_id),  # the stored hash is not an id
        api.player_id + " ",
        "",
    ]
    for pid in forged:
        r = client.get(f"{PS}/{game['id']}", headers={"X-Player-Id": pid})
        assert r.status_code == 401 and r.json()["code"] == "no_player", pid
