"""Statistics, history, export and delete over HTTP, on SQLite and PostgreSQL: Poker Squares
per table with unassisted and practice apart (totals, target hits, hands made), Kings Corner
overall, by opponent strength and by rule set, the history with a replayable deal, and a
player's data exported then deleted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from cardtable.server import Settings
from cardtable.server.devices.players import player_key
from cardtable.server.games.store import StatsStore
from tests.server.helpers import Api, store_settings
from tests.server.kc_driver import play_match


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    with store_settings(request, tmp_path, hint_budget=8) as settings:
        yield settings


def finish(api: Api, game: Any) -> Any:
    for i in range(game["view"]["placed"], 25):
        game = api.ps(game, "moves", row=i // 5, col=i % 5)
    return game


def test_statistics_history_export_delete(app: FastAPI, api: Api, other: Api) -> None:
    empty = api.get("/api/stats")
    assert empty["poker_squares"]["american"]["unassisted"]["deals"] == 0
    assert empty["kings_corner"]["all"]["matches"] == 0

    one = finish(api, api.ps_new(table="american", target="normal"))
    two = finish(api, api.ps(api.ps_new(table="american", target="easy"), "hint")["game"])
    match = play_match(api, api.kc_new(rounds=1))
    other_game = finish(other, other.ps_new(table="british", target="normal"))

    stats = api.get("/api/stats")
    am = stats["poker_squares"]["american"]
    un, pr = am["unassisted"], am["practice"]
    assert un["deals"] == 1 and un["best"] == un["mean"] == one["view"]["total"]
    assert un["distribution"] == [{"total": one["view"]["total"], "deals": 1}]
    assert un["target_hits"] == int(one["view"]["target_reached"])
    assert sum(un["hands"].values()) == 10 and set(un["hands"]) >= {"one_pair", "nothing"}
    made = [h for h in one["view"]["line_hands"]]
    assert all(un["hands"][h] == made.count(h) for h in set(made))
    assert pr["deals"] == 1 and pr["best"] == two["view"]["total"]
    assert stats["poker_squares"]["british"]["unassisted"]["deals"] == 0  # not another's
    kc = stats["kings_corner"]
    won = 0 in match["match"]["winners"]
    assert kc["all"]["matches"] == 1 and kc["all"]["matches_won"] == int(won)
    assert kc["all"]["rounds"] == 1 and kc["all"]["rounds_won"] in (0, 1)
    assert kc["all"]["mean_penalty"] == match["match"]["totals"][0]
    assert set(kc["by_opponent"]) == {"easy"} and set(kc["by_rule_set"]) == {"standard"}

    items = api.get("/api/stats/history")["items"]
    assert [i["game"] for i in items].count("poker-squares") == 2
    kc_item = next(i for i in items if i["game"] == "kings-corner")
    assert kc_item["won"] is won and kc_item["penalty"] == match["match"]["totals"][0]
    ps_item = next(i for i in items if i["id"] == one["id"])
    assert ps_item["replayable"] and ps_item["total"] == one["view"]["total"]
    assert items == sorted(items, key=lambda i: i["finished_at"], reverse=True)
    replay = api.ps_new(table="american", target="normal", replay_of=one["id"])
    assert replay["view"]["practice"] and replay["view"]["replay"]

    data = api.get("/api/stats/export")
    assert data["format"] == "cardtable-export/1" and data["created_at"]
    assert {g["id"] for g in data["games"]} >= {one["id"], two["id"], match["id"]}
    assert all(g["moves"] for g in data["games"])
    assert len(data["results"]) == 3 and data["daily"] == [] and data["display_name"] is None
    assert other_game["id"] not in {g["id"] for g in data["games"]}

    r = api.client.delete("/api/stats/data", headers=api.headers)
    assert r.status_code == 204
    # The id went with the data: refused at once (no process keeps a cache of ids).
    assert api.get("/api/stats/export", status=401)["code"] == "no_player"
    assert api.get(f"/api/poker-squares/games/{one['id']}", status=401)
    gone = StatsStore(app.state.runtime.store).export(player_key(str(api.player_id)))
    assert gone["created_at"] is None and gone["games"] == [] and gone["results"] == []
    # The other player keeps everything.
    assert other.get("/api/stats")["poker_squares"]["british"]["unassisted"]["deals"] == 1
