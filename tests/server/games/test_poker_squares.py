"""Poker Squares through HTTP: whole deals, undo, hint, replay, scores and every refusal."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.poker_squares import TARGETS
from tests.server.helpers import Api

GAMES = "/api/poker-squares/games"
CELLS = [(r, c) for r in range(5) for c in range(5)]


def play_out(api: Api, game: dict[str, Any], cells: list[tuple[int, int]] = CELLS) -> Any:
    cards = []
    for i, (row, col) in enumerate(cells):
        cards.append(game["view"]["card"])
        game = api.ps(game, "moves", row=row, col=col)
        assert game["view"]["placed"] == i + 1
        assert game["view"]["grid"][row][col] == cards[-1]
    return game, cards


def test_a_whole_deal_through_http(api: Api) -> None:
    game = api.ps_new(table="british", target="hard")
    v = game["view"]
    assert game["version"] == 1 and v["placed"] == 0 and v["cards_left"] == 25
    assert v["table"] == "british" and v["target"] == {"level": "hard", "points": 20}
    assert not v["practice"] and not v["replay"] and v["card"] is not None
    end, cards = play_out(api, game)
    v = end["view"]
    assert end["version"] == 26 and v["is_over"] and v["card"] is None and v["cards_left"] == 0
    assert len(set(cards)) == 25
    assert all(s is not None for s in v["line_scores"])
    assert v["total"] == sum(v["line_scores"])
    assert v["target_reached"] == (v["total"] >= TARGETS["british"][2])
    assert api.get(f"{GAMES}/{end['id']}") == end
    scores = api.get("/api/poker-squares/scores")
    assert scores["british"]["best"] == v["total"] and scores["british"]["best_practice"] is None
    [h] = scores["british"]["history"]
    assert h["id"] == end["id"] and h["total"] == v["total"] and not h["practice"]
    assert h["target"] == {"level": "hard", "points": 20}
    assert scores["american"] == {"best": None, "best_practice": None, "history": []}
    # A finished deal is not offered to continue, and further placements are refused.
    assert api.get("/api/continue")["poker_squares"] is None
    refused = api.ps(end, "moves", status=409, row=0, col=0)
    assert refused["code"] == "illegal_move"


def test_defaults_are_american_normal(api: Api) -> None:
    v = api.ps_new()["view"]
    assert v["table"] == "american" and v["target"] == {"level": "normal", "points": 28}


def test_undo_takes_back_and_makes_practice(api: Api) -> None:
    game = api.ps_new()
    first = game["view"]["card"]
    game = api.ps(game, "moves", row=2, col=3)
    game = api.ps(game, "undo")
    v = game["view"]
    assert v["placed"] == 0 and v["card"] == first and v["practice"] and not v["can_undo"]
    assert game["version"] == 3
    refused = api.ps(game, "undo", status=409)
    assert refused["code"] == "illegal_move" and "nothing to undo" in refused["message"]
    end, _ = play_out(api, game)
    scores = api.get("/api/poker-squares/scores")["american"]
    assert scores["best"] is None and scores["best_practice"] == end["view"]["total"]
    assert scores["history"][0]["practice"]


def test_hint_suggests_an_empty_cell_and_makes_practice(api: Api) -> None:
    game = api.ps_new()
    game = api.ps(game, "moves", row=0, col=0)
    answer = api.ps(game, "hint")
    row, col = answer["hint"]["row"], answer["hint"]["col"]
    assert (row, col) != (0, 0)
    g = answer["game"]
    assert g["version"] == game["version"] + 1 and g["view"]["practice"]
    assert g["view"]["card"] == game["view"]["card"] and g["view"]["placed"] == 1
    cells = {(e["row"], e["col"]) for e in answer["estimates"]}
    assert cells == set(CELLS) - {(0, 0)}
    assert all(isinstance(e["estimate"], float) for e in answer["estimates"])
    after = api.ps(g, "moves", row=row, col=col)
    assert after["view"]["grid"][row][col] == game["view"]["card"]


def test_no_hint_once_the_deal_is_over(api: Api) -> None:
    end, _ = play_out(api, api.ps_new())
    assert api.ps(end, "hint", status=409)["code"] == "wrong_phase"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_replay_deals_the_same_cards_as_practice(api: Api, other: Api) -> None:
    original, cards = play_out(api, api.ps_new(table="american"))
    replay = api.ps_new(table="british", target="easy", replay_of=original["id"])
    assert replay["id"] != original["id"]
    assert replay["view"]["replay"] and replay["view"]["practice"]
    assert replay["view"]["table"] == "british"
    _, again = play_out(api, replay, CELLS[::-1])
    assert again == cards
    assert other.ps_new(status=404, replay_of=original["id"])["code"] == "not_found"
    assert api.ps_new(status=404, replay_of="nope")["code"] == "not_found"


def test_a_new_deal_replaces_the_unfinished_one(api: Api) -> None:
    first = api.ps(api.ps_new(), "moves", row=1, col=1)
    assert api.get("/api/continue")["poker_squares"] == first
    second = api.ps_new()
    assert api.get("/api/continue")["poker_squares"] == second
    # The replaced deal can still be read (and replayed) but no longer played.
    assert api.get(f"{GAMES}/{first['id']}") == first
    refused = api.ps(first, "moves", status=409, row=0, col=0)
    assert refused["code"] == "wrong_phase"


def test_stale_version_changes_nothing(api: Api) -> None:
    game = api.ps_new()
    moved = api.ps(game, "moves", row=0, col=0)
    for action, body in (("moves", {"row": 4, "col": 4}), ("undo", {}), ("hint", {})):
        answer = api.ps(game, action, status=409, **body)
        assert answer["code"] == "stale_version" and answer["message"]
        assert answer["current"] == moved
    assert api.get(f"{GAMES}/{game['id']}") == moved
    # A version from the future is stale too.
    answer = api.ps(moved, "moves", status=409, version=99, row=4, col=4)
    assert answer["code"] == "stale_version"
    assert api.get(f"{GAMES}/{game['id']}") == moved


def test_illegal_placement_changes_nothing(api: Api) -> None:
    game = api.ps(api.ps_new(), "moves", row=3, col=2)
    answer = api.ps(game, "moves", status=409, row=3, col=2)
    assert answer == {
        "code": "illegal_move",
        "message": f"row 4, column 3 already holds {game['view']['grid'][3][2]}",
    }
    assert api.get(f"{GAMES}/{game['id']}") == game


@pytest.mark.parametrize(
    "body",
    [
        {"row": 0, "col": 0},
        {"version": "1", "row": 0, "col": 0},
        {"version": 1, "row": "0", "col": 0},
        {"version": 1, "row": True, "col": 0},
        {"version": 1, "row": 0.5, "col": 0},
        {"version": 1, "row": 5, "col": 0},
        {"version": 1, "row": 0, "col": -1},
        {"version": 0, "row": 0, "col": 0},
        {"version": 1, "row": 0, "col": 0, "extra": 1},
        [1, 0, 0],
        "text",
    ],
)
def test_malformed_move_bodies_are_422(api: Api, body: Any) -> None:
    game = api.ps_new()
    answer = api.post(f"{GAMES}/{game['id']}/moves", body, status=422)
    assert answer["code"] == "invalid_request" and answer["message"]
    assert api.get(f"{GAMES}/{game['id']}") == game


@pytest.mark.parametrize(
    "body",
    [{"table": "french"}, {"target": "insane"}, {"replay_of": 5}, {"colour": "red"}],
)
def test_malformed_new_game_bodies_are_422(api: Api, body: Any) -> None:
    assert api.post(GAMES, body, status=422)["code"] == "invalid_request"


def test_integral_json_numbers_are_integers(api: Api) -> None:
    game = api.ps_new()
    moved = api.post(f"{GAMES}/{game['id']}/moves", {"version": 1.0, "row": 2.0, "col": 0})
    assert moved["view"]["grid"][2][0] is not None


def test_broken_json_is_422(api: Api) -> None:
    game = api.ps_new()
    r = api.client.post(
        f"{GAMES}/{game['id']}/moves",
        content=b'{"version": 1, "row": ',
        headers={**api.headers, "content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["code"] == "invalid_request"


def test_another_players_game_is_not_found(api: Api, other: Api) -> None:
    game = api.ps_new()
    missing = other.get(f"{GAMES}/does-not-exist", status=404)
    assert other.get(f"{GAMES}/{game['id']}", status=404) == missing
    for action in ("moves", "undo", "hint"):
        answer = other.post(
            f"{GAMES}/{game['id']}/{action}", {"version": 1, "row": 0, "col": 0}
            if action == "moves" else {"version": 1}, status=404,
        )  # fmt: skip
        assert answer == missing == {"code": "not_found", "message": "no such game"}
    assert other.get("/api/continue")["poker_squares"] is None
    assert api.get(f"{GAMES}/{game['id']}") == game


def test_very_long_game_id_is_not_found(api: Api) -> None:
    assert api.get(f"{GAMES}/{'x' * 500}", status=404)["code"] == "not_found"


def test_undo_after_the_end_is_refused_and_the_result_kept(api: Api) -> None:
    end, _ = play_out(api, api.ps_new())
    first_total = end["view"]["total"]
    assert end["view"]["is_over"] and not end["view"]["can_undo"]
    # An accidental Z after the last card: refused, the deal and its result stay as they were.
    refused = api.ps(end, "undo", status=409)
    assert refused["code"] == "illegal_move" and "over" in refused["message"]
    assert api.get(f"{GAMES}/{end['id']}") == end
    scores = api.get("/api/poker-squares/scores")["american"]
    assert scores["best"] == first_total and scores["best_practice"] is None
    [only] = scores["history"]
    assert only["id"] == end["id"] and not only["practice"] and only["total"] == first_total
