"""SPEC C-8 through the API: whole games in which no response ever names a card the caller
could not see at that moment: no opponent's hand, no stock card, no Poker Squares card still
to come. Every answer is checked against the true state the server saved."""

from __future__ import annotations

import re
from typing import Any

import pytest

from cardtable import poker_squares as ps
from cardtable.server.devices.players import player_key
from cardtable.server.games.saved_match import SavedMatch
from tests.server.helpers import Api
from tests.server.kc_driver import play_match

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")


def cards_named(data: Any) -> set[str]:
    """Every card token in a JSON value (keys included): "9H", and "9H" inside "9H>N"."""
    found: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            found |= cards_named(k) | cards_named(v)
    elif isinstance(data, list):
        for v in data:
            found |= cards_named(v)
    elif isinstance(data, str):
        # Ids are URL-safe base64: "-" and "_" do not split a word ("x-QH_y" is no card).
        found |= {t for t in re.split(r"[^A-Za-z0-9_-]+", data) if CARD.match(t)}
    return found


def saved_state(api: Api, game_id: str) -> dict[str, Any]:
    store = api.client.app.state.runtime.store  # type: ignore[attr-defined]
    assert api.player_id is not None
    record = store.load_game(game_id, player_key(api.player_id))
    assert record is not None
    state: dict[str, Any] = record.state
    return state


def check_poker_squares(api: Api, answer: dict[str, Any]) -> None:
    game = answer.get("game", answer.get("current", answer))
    truth = ps.Game.from_dict(saved_state(api, game["id"]))
    visible = {str(c) for c in truth.cells if c is not None}
    if truth.card is not None:
        visible.add(str(truth.card))
    leaked = cards_named(answer) - visible
    assert not leaked, f"cards still to come were sent: {sorted(leaked)}"


def check_kings_corner(api: Api, answer: dict[str, Any]) -> None:
    game = answer.get("current", answer)
    table = SavedMatch.from_dict(saved_state(api, game["id"]))
    state = table.match.state
    visible = {str(c) for pile in state.piles.values() for c in pile}
    if table.viewer is not None:
        visible |= {str(c) for c in state.hands[table.viewer]}
    assert game["viewer"] == table.viewer
    leaked = cards_named(answer) - visible
    hidden = {str(c) for c in state.stock} | {
        str(c) for i, h in enumerate(state.hands) if i != table.viewer for c in h
    }
    assert not leaked, f"hidden cards were sent: {sorted(leaked & hidden)} ({sorted(leaked)})"


@pytest.mark.parametrize("table", ["american", "british"])
def test_poker_squares_never_shows_coming_cards(api: Api, table: str) -> None:
    game = api.ps_new(table=table)
    check_poker_squares(api, game)
    cells = [(r, c) for c in range(5) for r in range(5)]
    for i, (row, col) in enumerate(cells):
        if i == 3:
            answer = api.ps(game, "hint")
            check_poker_squares(api, answer)
            game = answer["game"]
        if i == 7:
            game = api.ps(game, "moves", row=row, col=col)
            game = api.ps(game, "undo")
            check_poker_squares(api, game)
        stale = api.ps(game, "moves", status=409, version=game["version"] + 5, row=row, col=col)
        check_poker_squares(api, stale)
        game = api.ps(game, "moves", row=row, col=col)
        check_poker_squares(api, game)
        check_poker_squares(api, api.get("/api/continue")["poker_squares"] or game)
    assert game["view"]["is_over"]
    replay = api.ps_new(replay_of=game["id"])
    check_poker_squares(api, replay)


@pytest.mark.parametrize(
    ("seats", "rules", "rounds"),
    [
        (["human", "easy"], {"preset": "standard"}, 3),
        (["human", "human", "strong", "normal"], {"preset": "draw-last"}, 1),
        (["human", "human", "human"], {"preset": "simple"}, 1),
    ],
)
def test_kings_corner_never_shows_hidden_cards(
    api: Api, seats: list[str], rules: dict[str, Any], rounds: int
) -> None:
    body = [
        {"kind": "human"} if s == "human" else {"kind": "computer", "strength": s} for s in seats
    ]
    answers = 0

    def check(g: dict[str, Any]) -> None:
        nonlocal answers
        answers += 1
        check_kings_corner(api, g)
        if answers % 7 == 0:
            stale = api.kc(g, "undo", status=409, version=g["version"] + 1)
            check_kings_corner(api, stale)
            cont = api.get("/api/continue")["kings_corner"]
            if cont is not None:
                check_kings_corner(api, cont)

    # A strong player can go out in a few turns: play matches until enough answers are seen.
    for _ in range(10):
        end = play_match(api, api.kc_new(seats=body, rules=rules, rounds=rounds), on_answer=check)
        assert end["phase"] == "match_over"
        if answers >= 60:
            break
    assert not cards_named(api.get("/api/kings-corner/results"))
