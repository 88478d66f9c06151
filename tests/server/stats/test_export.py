"""`GET /api/stats/export` gives views, never states (SPEC C-8, SE-1; issue 26), on SQLite
and PostgreSQL: the issue's reproduction (a player deals the daily and exports at once), a
Kings Corner match mid-round built card by card, and finished games in full with only the
seeds that are due."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from cardtable import kings_corner as kc
from cardtable import poker_squares as ps
from cardtable.fairness import new_seed, round_fair
from cardtable.server import Settings
from cardtable.server.core.store import Store
from cardtable.server.daily.store import DailyStore
from cardtable.server.devices.players import player_key
from cardtable.server.games.public import SavedMatch, shown
from cardtable.server.games.shown import cards_named
from tests.server.helpers import Api, store_settings


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=8) as settings:
        yield settings


def store_of(app: FastAPI) -> Store:
    store: Store = app.state.runtime.store
    return store


def saved_deal(app: FastAPI, api: Api, game_id: str) -> ps.Game:
    record = store_of(app).load_game(game_id, player_key(str(api.player_id)))
    assert record is not None
    return ps.Game.from_dict(record.state)


def exported(api: Api, game_id: str) -> tuple[dict[str, Any], str]:
    r = api.client.get("/api/stats/export", headers=api.headers)
    assert r.status_code == 200, r.text
    (game,) = [g for g in r.json()["games"] if g["id"] == game_id]
    return game, r.text


def test_the_issue_reproduction_exports_the_daily_as_its_view(app: FastAPI, api: Api) -> None:
    """Create a player, deal today's daily, export: the deal is the game route's view (one
    card on show), with none of the 24 cards to come and neither the game's nor the day's
    seed or salt (the reproduction read ``games[-1].state.cards`` and ``state.fair``)."""
    played = api.post("/api/daily/american/play", status=201)
    game, text = exported(api, played["game"]["id"])
    assert game["state"] is None and game["finished"] is False
    assert game["view"] == api.get(f"/api/poker-squares/games/{game['id']}")
    assert game["view"]["view"]["card"] == played["game"]["view"]["card"]
    truth = saved_deal(app, api, game["id"])
    coming = {str(c) for c in truth.cards[1:]}
    assert len(coming) == 24 and not cards_named(json.loads(text)) & coming
    deal = DailyStore(store_of(app)).stored(played["day"], "american")
    assert deal is not None and deal.fair is not None and truth.fair is not None
    for secret in (deal.fair.seed, deal.fair.salt, truth.fair.seed, truth.fair.salt):
        assert secret not in text
    assert deal.fair.commitment in text  # the commitment is public from the first card
    assert game["moves"] == [{"action": "deal", "daily": played["day"], "replay_of": None}]
    assert game["moves_complete"] is True


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_finished_daily_keeps_the_days_seed_and_a_finished_deal_shows_its_own(
    app: FastAPI, api: Api
) -> None:
    def finish(game: Any) -> Any:
        for i in range(25):
            game = api.ps(game, "moves", row=i // 5, col=i % 5)
        assert game["view"]["is_over"]
        return game

    played = finish(api.post("/api/daily/british/play", status=201)["game"])
    deal = finish(api.ps_new(table="american", target="easy"))
    daily, text = exported(api, played["id"])
    assert daily["view"] is None and len(daily["state"]["cards"]) == 25  # all seen: over
    fair = daily["state"]["fair"]
    assert fair["seed"] is None and fair["salt"] is None and fair["withheld"] is True
    day = DailyStore(store_of(app)).stored(api.get("/api/daily/british")["day"], "british")
    assert day is not None and day.fair is not None
    assert fair["commitment"] == day.fair.commitment
    assert day.fair.seed not in text and day.fair.salt not in text
    own, _ = exported(api, deal["id"])
    truth = saved_deal(app, api, deal["id"])
    assert truth.fair is not None
    assert (own["state"]["fair"]["seed"], own["state"]["fair"]["salt"]) == (
        truth.fair.seed,
        truth.fair.salt,
    )
    assert own["state"]["cards"] == [str(c) for c in truth.cards]


def kc_position() -> SavedMatch:
    """Two seats, the person's turn in round 1 of 3 (a fair match): North holds 8S."""
    table = SavedMatch.new(
        (("human", None), ("computer", "easy")),
        kc.Rules.from_options("standard"),
        3,
        7_391_026_554_112_233,
        new_seed(),
    )
    while table.match.state.to_play != 0:
        table, _, _ = table.played(table.match.state.to_play, "end", computer=True)
    assert table.phase == "play" and table.match.round == 1
    return table


def test_a_kings_corner_match_mid_round_shows_no_hidden_card_or_secret(
    app: FastAPI, api: Api
) -> None:
    table = kc_position()
    state = table.match.state
    computer_hand = [str(c) for c in state.hands[1]]
    log = [
        {
            "action": "deal",
            "seed": table.match.seed,
            "seats": [["human", None], ["computer", "easy"]],
        },
        # A move naming a card still in the computer's hand (as if taken back): left out.
        {"seat": 1, "move": f"{computer_hand[0]}>N", "turn": 1, "round": 1},
        {"seat": 1, "move": "end", "turn": 1, "round": 1},
    ]
    store = store_of(app)
    player = player_key(str(api.player_id))
    record = store.create_game(player, "kings-corner", table.to_dict(), finished=False, log=log)
    game, text = exported(api, record.id)
    assert game["state"] is None
    assert game["view"] == api.get(f"/api/kings-corner/games/{record.id}")
    assert game["view"]["view"]["hand"] == [str(c) for c in state.hands[0]]
    assert game["moves"] == [
        {"action": "deal", "seats": [["human", None], ["computer", "easy"]]},
        {"seat": 1, "move": "end", "turn": 1, "round": 1},
    ]
    assert game["moves_complete"] is False
    hidden = set(computer_hand) | {str(c) for c in state.stock}
    assert not cards_named(json.loads(text)) & hidden
    fair_seed = table.match.fair_seed
    assert fair_seed is not None and fair_seed not in text
    assert str(table.match.seed) not in text
    for k in (1, 2, 3):
        assert round_fair(fair_seed, k).seed not in text
    # Once the match is over the whole saved table is the player's.
    done = shown(replace(record, finished=True), log)
    assert done["state"] == table.to_dict() and done["moves"] == log


def test_an_unknown_kind_or_a_damaged_game_exports_nothing_of_its_state(
    app: FastAPI, api: Api
) -> None:
    store = store_of(app)
    player = player_key(str(api.player_id))
    future = store.create_game(player, "hearts", {"hand": ["AS", "KH"]}, finished=False, log=[])
    broken = store.create_game(player, "poker-squares", {"cards": ["AS"]}, finished=False, log=[])
    for record in (future, broken):
        game, _ = exported(api, record.id)
        assert (game["state"], game["view"], game["moves"]) == (None, None, [])
