"""Issue 17, retention (cardtable/server/core/retention.py): storage per player stays bounded after
10,000 game creations, a new game prunes old ones through the API, and the sweep expires
idle players, run by one process of many (claimed in the database)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core import retention
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import Result, Store
from cardtable.server.core.store.base import Retention
from cardtable.server.core.store.postgres import PostgresStore
from cardtable.server.core.store.sqlite import SqliteStore
from cardtable.server.devices.players import player_key
from tests.server.helpers import Api
from tests.support.postgres import fresh_schema

NO_GAMES = {"poker_squares": None, "kings_corner": None, "poker_squares_counted": None}

KIND = "poker-squares"
KEEP = Retention(unfinished=5, finished=10, finishes=50)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        s: Store = SqliteStore(tmp_path / "store.sqlite3")
        yield s
        s.close()
        return
    with fresh_schema(request.getfixturevalue("postgres_url")) as url:
        s = PostgresStore(url, pool_size=2)
        yield s
        s.close()


def count(store: Store, sql: str, *params: Any) -> int:
    assert isinstance(store, SqliteStore | PostgresStore)
    rows = store._rows(sql, params)
    return int(rows[0][0])


def play(store: Store, player: str, i: int) -> None:
    """One game as the routes make it: created (the previous one replaced), pruned, and
    every fourth one finished with a result (a total that grows, so bests move)."""
    state = {"n": i, "cards": list(range(25))}
    record = store.create_game(player, KIND, state, finished=False, log=[{"action": "deal"}])
    store.prune(player, KIND, KEEP)
    if i % 4 == 0:
        store.save_game(
            record,
            {**state, "over": True},
            finished=True,
            log=[{"action": "place"}] * 3,
            result=Result("american", i % 97, i % 8 == 0, {"target": {}}),
        )


def footprint(store: Store, player: str) -> dict[str, int]:
    return {
        "games": count(store, "SELECT COUNT(*) FROM games WHERE player = ?", player),
        "unfinished": count(
            store, "SELECT COUNT(*) FROM games WHERE player = ? AND finished = 0", player
        ),
        "finished": count(
            store, "SELECT COUNT(*) FROM games WHERE player = ? AND finished = 1", player
        ),
        "moves": count(
            store,
            "SELECT COUNT(*) FROM moves WHERE game_id IN (SELECT id FROM games WHERE player = ?)",
            player,
        ),
        "all_moves": count(store, "SELECT COUNT(*) FROM moves"),
        "finishes": count(store, "SELECT COUNT(*) FROM finishes WHERE player = ?", player),
    }


def test_storage_per_player_is_bounded_after_10000_games(store: Store, tmp_path: Path) -> None:
    store.create_player("flood")
    store.create_player("calm")
    play(store, "calm", 0)
    started = time.monotonic()
    n = 10_000 if isinstance(store, SqliteStore) else 400  # PostgreSQL: the same logic, fewer
    sizes: dict[int, dict[str, int]] = {}
    for i in range(1, n + 1):
        play(store, "flood", i)
        if i in (n // 5, n):
            sizes[i] = footprint(store, "flood")
    elapsed = time.monotonic() - started
    final = sizes[n]
    # A prune runs when a game is created; the game finished since may be one more.
    assert final["unfinished"] <= KEEP.unfinished and final["finished"] <= KEEP.finished + 1
    assert final["games"] <= KEEP.unfinished + KEEP.finished + 1
    # Beyond the newest `finishes` rows: the first best of each (variant, practice), two
    # here, and the finish recorded since the last prune.
    assert KEEP.finishes <= final["finishes"] <= KEEP.finishes + 2 + 1
    # Every move row left belongs to a kept game (the pruned games' rows went with them).
    assert final["all_moves"] == final["moves"] + footprint(store, "calm")["moves"]
    # Flat from the first fifth on: bounded, not growing.
    early = sizes[n // 5]
    assert {k: v for k, v in early.items() if k not in ("finishes", "all_moves")} == {
        k: v for k, v in final.items() if k not in ("finishes", "all_moves")
    }
    assert early["finishes"] <= KEEP.finishes + 3
    # The best totals survive pruning.
    best = store.best_scores("flood", KIND)
    finished = [i for i in range(1, n + 1) if i % 4 == 0]
    assert best[("american", False)] == max(i % 97 for i in finished if i % 8)
    assert best[("american", True)] == max(i % 97 for i in finished if i % 8 == 0)
    assert len(store.results("flood", KIND, limit=20)) == 20
    # The other player's game is untouched.
    assert footprint(store, "calm")["games"] == 1
    if isinstance(store, SqliteStore):
        # The file stops growing: pages of deleted rows are reused.
        path = tmp_path / "store.sqlite3"
        before = path.stat().st_size + (tmp_path / "store.sqlite3-wal").stat().st_size
        for i in range(n + 1, n + 1001):
            play(store, "flood", i)
        after = path.stat().st_size + (tmp_path / "store.sqlite3-wal").stat().st_size
        assert after <= before * 1.1 + 64 * 1024, (before, after)
    assert elapsed < 120


def test_a_new_game_prunes_old_ones_through_the_api(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        max_unfinished_games=3,
        player_rate=None,
        hint_budget=0,
    )
    with TestClient(create_app(settings)) as client:
        api = Api.new_player(client)
        deals = [api.ps_new() for _ in range(6)]
        for old in deals[:3]:
            assert api.get(f"/api/poker-squares/games/{old['id']}", status=404)
        for kept in deals[3:]:
            api.get(f"/api/poker-squares/games/{kept['id']}")
        api.ps(deals[-1], "moves", row=0, col=0)  # the current one plays on
        matches = [api.kc_new() for _ in range(5)]
        assert api.get(f"/api/kings-corner/games/{matches[0]['id']}", status=404)
        assert api.get("/api/continue")["kings_corner"]["id"] == matches[-1]["id"]


def test_the_sweep_expires_idle_players_once_across_processes(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=None, idle_player_days=30)
    with TestClient(create_app(settings)) as client:
        idle, active, fresh = (Api.new_player(client) for _ in range(3))
        idle.ps(idle.ps_new(), "moves", row=0, col=0)
        active.ps_new()
        runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
        store = runtime.store
        assert isinstance(store, SqliteStore)
        old = "2000-01-01T00:00:00.000000+00:00"
        with store.transaction() as tx:
            for who in (idle, active):
                key = player_key(str(who.player_id))
                tx.execute("UPDATE players SET created_at = ? WHERE id = ?", (old, key))
                # Its devices were last used then too (a recent use keeps a player).
                tx.execute(
                    "UPDATE credentials SET created_at = ?, last_used_at = ? WHERE player = ?",
                    (old, old, key),
                )
            tx.execute(
                "UPDATE games SET created_at = ?, updated_at = ? WHERE player = ?",
                (old, old, player_key(str(idle.player_id))),
            )
        # A second process on the same store: only one of them runs the sweep.
        other = Runtime(settings)
        try:
            now = time.time()
            assert retention.sweep(runtime, now) == 1
            assert retention.sweep(other, now + 1) is None  # claimed a second ago
        finally:
            other.close()
        idle_key = player_key(str(idle.player_id))
        assert not store.has_player(idle_key)
        assert count(store, "SELECT COUNT(*) FROM games WHERE player = ?", idle_key) == 0
        assert count(store, "SELECT COUNT(*) FROM finishes WHERE player = ?", idle_key) == 0
        # The old but active player (a game saved recently) and the new one stay.
        assert active.get("/api/continue")["poker_squares"] is not None
        assert fresh.get("/api/continue") == NO_GAMES
        # Once a sweep period has passed, the sweep may run again (nothing left to delete).
        assert retention.sweep(runtime, now + settings.sweep_seconds + 1) == 0  # type: ignore[operator]
