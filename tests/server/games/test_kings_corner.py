"""Kings Corner through HTTP: whole matches against the computer and on one device, each
phase, undo, and every refusal (stale, illegal, malformed, wrong phase, not yours)."""

from __future__ import annotations

from typing import Any

import pytest

from cardtable.kings_corner import PRESETS
from tests.server.helpers import Api
from tests.server.kc_driver import PILES, play_match

GAMES = "/api/kings-corner/games"
HUMAN = {"kind": "human"}


def cpu(strength: str = "easy") -> dict[str, str]:
    return {"kind": "computer", "strength": strength}


def as_read(answer: dict[str, Any]) -> dict[str, Any]:
    """A request's answer as a later read shows it: no computer step, no events."""
    return {**answer, "step": None, "events": []}


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_whole_match_against_the_computer(api: Api) -> None:
    game = api.kc_new(seats=[HUMAN, cpu("normal")], rounds=3, rules={"preset": "draw-last"})
    assert game["version"] == 1 and game["seats"] == [HUMAN, cpu("normal")]
    assert game["view"]["rule_set"] == "draw-last" and game["match"]["rounds"] == 3
    assert game["viewer"] == 0 and len(game["view"]["hand"]) == game["view"]["hand_sizes"][0]
    assert api.get("/api/continue")["kings_corner"] == game
    phases: set[str] = set()
    end = play_match(api, game, on_answer=lambda g: phases.add(g["phase"]))
    assert phases == {"play", "computer", "round_over", "match_over"}
    m = end["match"]
    assert m["round"] == 3 and len(m["results"]) == 3
    assert m["totals"] == [sum(r["penalties"][i] for r in m["results"]) for i in range(2)]
    low = min(m["totals"])
    assert m["winners"] == [i for i, t in enumerate(m["totals"]) if t == low]
    assert api.get(f"{GAMES}/{end['id']}") == as_read(end)
    assert api.get("/api/continue")["kings_corner"] is None
    [result] = api.get("/api/kings-corner/results")["matches"]
    assert result["id"] == end["id"] and result["totals"] == m["totals"]
    assert result["winners"] == m["winners"] and result["rounds"] == 3
    assert result["players"] == [HUMAN, cpu("normal")]


@pytest.mark.parametrize("strength", ["easy", "normal", "strong"])
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_each_strength_finishes_a_four_seat_round(api: Api, strength: str) -> None:
    game = api.kc_new(seats=[HUMAN, cpu(strength), cpu(strength), cpu(strength)])
    end = play_match(api, game)
    assert end["phase"] == "match_over" and len(end["match"]["totals"]) == 4


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_one_device_hands_are_hidden_until_revealed(api: Api) -> None:
    game = api.kc_new(seats=[HUMAN, HUMAN, cpu()], rules={"preset": "simple"})
    seen_handoff = 0

    def check(g: dict[str, Any]) -> None:
        nonlocal seen_handoff
        v = g["view"]
        if g["phase"] == "handoff":
            seen_handoff += 1
            assert g["viewer"] is None and v["seat"] is None
            assert v["hand"] == [] and v["legal_moves"] == [] and v["last_draw"] is None
        elif g["phase"] == "play":
            assert g["viewer"] == v["to_play"] == v["seat"]
            assert len(v["hand"]) == v["hand_sizes"][v["to_play"]]
        elif g["phase"] == "computer":
            assert g["viewer"] is None and v["hand"] == []

    end = play_match(api, game, on_answer=check)
    assert seen_handoff >= 2 and end["phase"] == "match_over"


def person_to_play(api: Api) -> dict[str, Any]:
    """A fresh match against the computer, stepped on until the person is to play."""
    for _ in range(30):
        game = api.kc_new(seats=[HUMAN, cpu()])
        while game["phase"] == "computer":
            game = api.kc(game, "computer-step")
        if game["phase"] == "play":  # not when the computer went out in its first turn
            return dict(api.get(f"{GAMES}/{game['id']}"))
    raise AssertionError("the person never got to play")


def test_a_person_never_moves_a_computer(api: Api) -> None:
    game = person_to_play(api)
    v = game["view"]
    ended = api.kc(game, "moves", move="end")
    assert ended["phase"] == "computer" and ended["view"]["to_play"] == 1
    assert ended["log"][-1] == {"seat": 0, "move": "end", "turn": v["turn"], "round": 1}
    # Nothing else happened: the computer waits for computer-step.
    assert api.get(f"{GAMES}/{game['id']}") == as_read(ended)
    step = api.kc(ended, "computer-step")
    assert step["step"]["seat"] == 1 and step["log"][-1]["seat"] == 1
    assert step["log"][-1]["move"].startswith(step["step"]["move"])
    # A page reloading mid-turn gets the same board and steps.
    reloaded = api.get(f"{GAMES}/{game['id']}")
    assert reloaded == as_read(step)


def first_play(game: dict[str, Any]) -> str | None:
    for m in game["view"]["legal_moves"]:
        if m != "end" and m.split(">")[0] not in PILES:
            return str(m)
    return None


def a_play_position(api: Api) -> dict[str, Any]:
    """A fresh match where the person is to play and has a card that fits."""
    for _ in range(30):
        game = person_to_play(api)
        if first_play(game):
            return game
    raise AssertionError("no playable position found")


def test_undo_takes_back_a_play(api: Api) -> None:
    game = a_play_position(api)
    move = first_play(game)
    assert move is not None
    played = api.kc(game, "moves", move=move)
    card = move.split(">")[0]
    assert card not in played["view"]["hand"] and played["view"]["can_undo"]
    assert played["log"][-1]["move"] == move
    back = api.kc(played, "undo")
    assert back["version"] == played["version"] + 1
    assert back["view"] == game["view"] and back["log"] == game["log"]
    refused = api.kc(back, "undo", status=409)
    assert (
        refused["code"] == "illegal_move" and refused["message"] == "nothing to undo in this turn"
    )


def test_illegal_move_changes_nothing(api: Api) -> None:
    game = a_play_position(api)
    v = game["view"]
    bad = next(
        f"{c}>{p}"
        for c in v["hand"]
        for p in ("N", "E", "S", "W")
        if f"{c}>{p}" not in v["legal_moves"]
    )
    answer = api.kc(game, "moves", status=409, move=bad)
    assert answer["code"] == "illegal_move" and answer["message"]
    assert "current" not in answer
    not_mine = next(
        c for c in (f"{r}{s}" for r in "A23456789TJQK" for s in "SHDC") if c not in v["hand"]
    )
    answer = api.kc(game, "moves", status=409, move=f"{not_mine}>N")
    assert answer == {"code": "illegal_move", "message": f"{not_mine} is not in your hand"}
    assert api.get(f"{GAMES}/{game['id']}") == game


def test_stale_version_changes_nothing(api: Api) -> None:
    game = a_play_position(api)
    move = first_play(game)
    played = api.kc(game, "moves", move=move)
    for action, body in (("moves", {"move": "end"}), ("undo", {}), ("computer-step", {}),
                         ("reveal", {}), ("next-round", {})):  # fmt: skip
        answer = api.kc(game, action, status=409, **body)
        assert answer["code"] == "stale_version" and answer["current"] == as_read(played)
    assert api.get(f"{GAMES}/{game['id']}") == as_read(played)


def test_wrong_phase(api: Api) -> None:
    game = person_to_play(api)
    for action in ("computer-step", "reveal", "next-round"):
        answer = api.kc(game, action, status=409)
        assert answer["code"] == "wrong_phase" and answer["message"]
    ended = api.kc(game, "moves", move="end")
    assert ended["phase"] == "computer"
    for action, body in (("moves", {"move": "end"}), ("undo", {}), ("reveal", {})):
        answer = api.kc(ended, action, status=409, **body)
        assert answer["code"] == "wrong_phase" and "computer-step" in answer["message"]
    assert api.get(f"{GAMES}/{game['id']}") == as_read(ended)


@pytest.mark.parametrize("move", ["pass", "9H", "9H>X", "N>", ">N", "XX>N", "end end"])
def test_malformed_move_text_is_422(api: Api, move: str) -> None:
    game = a_play_position(api)
    answer = api.kc(game, "moves", status=422, move=move)
    assert answer["code"] == "invalid_request" and "move" in answer["message"]
    assert api.get(f"{GAMES}/{game['id']}") == game


@pytest.mark.parametrize(
    "body",
    [
        {"seats": [HUMAN]},
        {"seats": [HUMAN] * 5},
        {"seats": [cpu(), HUMAN]},
        {"seats": [HUMAN, {"kind": "computer", "strength": "genius"}]},
        {"seats": [HUMAN, {"kind": "robot"}]},
        {"seats": [HUMAN, HUMAN], "rounds": 2},
        {"seats": [HUMAN, HUMAN], "rounds": "3"},
        {"seats": [HUMAN, HUMAN], "rules": {"preset": "fast"}},
        {"seats": [HUMAN, HUMAN], "rules": {"draw": "first", "pile_moves": True}},
        {"seats": [HUMAN, HUMAN], "rules": {"draw": "first", "pile_moves": "yes",
                                            "kings": "first", "dealt_kings": "stay"}},
        {"seats": [HUMAN, HUMAN], "colour": "red"},
        {"seats": "two"},
    ],
)  # fmt: skip
def test_malformed_new_match_is_422(api: Api, body: Any) -> None:
    answer = api.post(GAMES, body, status=422)
    assert answer["code"] == "invalid_request" and answer["message"]


@pytest.mark.parametrize(
    ("rules", "name"),
    [({"preset": p}, p) for p in PRESETS]
    + [
        (
            {"draw": "last", "pile_moves": True, "kings": "first", "dealt_kings": "stay"},
            "draw-last",
        ),
        (
            {"draw": "last", "pile_moves": False, "kings": "first", "dealt_kings": "corner"},
            "custom",
        ),
    ],
)
def test_rule_sets(api: Api, rules: dict[str, Any], name: str) -> None:
    game = api.kc_new(seats=[HUMAN, HUMAN], rules=rules)
    assert game["view"]["rule_set"] == name
    if "preset" not in rules:
        assert game["view"]["rules"] == rules


def test_defaults_are_standard_single_round(api: Api) -> None:
    game = api.post(GAMES, {"seats": [HUMAN, cpu()]}, status=201)
    assert game["view"]["rule_set"] == "standard" and game["match"]["rounds"] == 1


def test_a_new_match_replaces_the_unfinished_one(api: Api) -> None:
    first = api.kc_new(seats=[HUMAN, HUMAN])
    second = api.kc_new(seats=[HUMAN, HUMAN])
    assert api.get("/api/continue")["kings_corner"] == second
    assert api.kc(first, "reveal", status=409)["code"] == "wrong_phase"


def test_another_players_match_is_not_found(api: Api, other: Api) -> None:
    game = api.kc_new()
    missing = other.get(f"{GAMES}/nope", status=404)
    assert other.get(f"{GAMES}/{game['id']}", status=404) == missing
    for action, body in (("moves", {"move": "end"}), ("undo", {}), ("reveal", {}),
                         ("computer-step", {}), ("next-round", {})):  # fmt: skip
        answer = other.kc(game, action, status=404, **body)
        assert answer == missing == {"code": "not_found", "message": "no such game"}
    assert api.get(f"{GAMES}/{game['id']}") == game
    # A Poker Squares id is not a Kings Corner game either.
    deal = api.ps_new()
    assert api.get(f"{GAMES}/{deal['id']}", status=404) == missing


def test_events_of_each_request_and_a_drawn_card_only_for_its_drawer(api: Api) -> None:
    """A move's answer carries its events as the viewer sees them; reads carry none. Under
    draw-first the computer's draw shows no face to the person, the person's own draw does."""
    game = a_play_position(api)
    move = first_play(game)
    assert move is not None
    card, pile = move.split(">")
    played = api.kc(game, "moves", move=move)
    assert played["events"] == [{"kind": "play", "seat": 0, "card": card, "pile": pile}]
    assert api.get(f"{GAMES}/{game['id']}")["events"] == []
    assert api.kc(played, "undo")["events"] == []
    stock = played["view"]["stock_count"]
    ended = api.kc(api.get(f"{GAMES}/{game['id']}"), "moves", move="end")
    assert [e["kind"] for e in ended["events"]][:2] == ["end_turn", "turn"]
    assert ended["events"][1] == {"kind": "turn", "seat": 1, "turn": played["view"]["turn"] + 1}
    if stock:
        assert ended["events"][2] == {"kind": "draw", "seat": 1}  # no face for seat 0
    step = ended
    while step["phase"] == "computer":
        step = api.kc(step, "computer-step")
        faces = [e for e in step["events"] if e["kind"] == "draw" and "card" in e]
        assert all(e["seat"] == 0 for e in faces)  # only the viewer's own draw shows its face
    if step["phase"] == "play" and step["view"]["last_draw"] is not None:
        draw = step["events"][-1]
        assert draw == {"kind": "draw", "seat": 0, "card": step["view"]["last_draw"]}
        assert draw["card"] in step["view"]["hand"]


def test_draw_last_the_enders_draw_is_shown_only_to_a_viewer_who_drew(api: Api) -> None:
    """Alone at the table, the person sees the card their "end" drew; with two people on
    one device the hand is hidden after "end", and so is the card."""
    for seats, shown in (([HUMAN, cpu()], True), ([HUMAN, HUMAN], False)):
        game = api.kc_new(seats=seats, rules={"preset": "draw-last"})
        while game["phase"] == "computer":
            game = api.kc(game, "computer-step")
        if game["phase"] == "handoff":
            game = api.kc(game, "reveal")
        seat = game["view"]["to_play"]
        while "end" not in game["view"]["legal_moves"]:  # kings first: place the King
            game = api.kc(game, "moves", move=game["view"]["legal_moves"][0])
        ended = api.kc(game, "moves", move="end")
        draws = [e for e in ended["events"] if e["kind"] == "draw"]
        assert [d["seat"] for d in draws] == [seat]
        kings = [e for e in ended["events"] if e["kind"] == "king_to_corner"]
        if kings:  # a drawn King is on the table: public
            assert draws[0]["card"] == kings[0]["card"]
        elif shown:
            assert draws[0]["card"] == ended["view"]["last_draw"] in ended["view"]["hand"]
        else:
            assert "card" not in draws[0] and ended["view"]["hand"] == []


def test_the_view_carries_what_the_page_needs(api: Api) -> None:
    """accepts, refusals and turn_start arrive as the engine gives them; hidden while no
    hand is shown."""
    game = a_play_position(api)
    v = game["view"]
    assert set(v["accepts"]) == PILES and set(v["refusals"]) == {"cards", "piles"}
    assert v["turn_start"]["hand"] and v["turn_start"]["piles"] == v["piles"]
    for card, row in v["refusals"]["cards"].items():
        for pile, reason in row.items():
            assert f"{card}>{pile}" not in v["legal_moves"] and reason["key"]
    two = api.kc_new(seats=[HUMAN, HUMAN])
    ended = api.kc(two, "moves", move="end") if two["phase"] == "play" else two
    if ended["phase"] == "handoff":
        assert ended["view"]["refusals"] == {} and "hand" not in ended["view"]["turn_start"]
