"""Crash safety: `cardtable serve` under a bounded load of Poker Squares and Kings Corner
moves is killed with SIGKILL at a random point and started again on the same store. Every
answer that was 2xx is in the saved game, every saved game loads (and a Poker Squares deal
replays from its move log to exactly the saved state), and no full player id is in the
server's output. On SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardtable import poker_squares as ps
from cardtable.server import Settings
from cardtable.server.core.store import open_store
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices.players import player_key
from cardtable.server.games.saved_match import SavedMatch
from tests.server.kc_driver import simple_person
from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess
from tests.support.tiers import Sample

THREADS = 4
MAX_REQUESTS = 300  # per thread
MAX_SECONDS = 25.0


class Load:
    """A few clients playing until the server dies (or the bound is reached); every 2xx
    answer is recorded as (player id, kind, game id, version, answer)."""

    def __init__(self, base: str, players: list[str]) -> None:
        self.base, self.players = base, players
        self.acked: list[tuple[str, str, str, int, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def run(self, i: int) -> None:
        player = self.players[i]
        kind = "ps" if i % 2 == 0 else "kc"
        headers = {"X-Player-Id": player}
        deadline = time.monotonic() + MAX_SECONDS
        with httpx.Client(base_url=self.base, headers=headers, timeout=10) as http:
            game: dict[str, Any] | None = None
            for _ in range(MAX_REQUESTS):
                if self.stop.is_set() or time.monotonic() > deadline:
                    return
                try:
                    game = self.step(http, kind, game)
                except httpx.TransportError:
                    return  # the server is gone
                if game is not None:
                    with self.lock:
                        self.acked.append((player, kind, game["id"], game["version"], game))

    def step(self, http: httpx.Client, kind: str, game: dict[str, Any] | None) -> Any:
        if kind == "ps":
            if game is None or game["view"]["is_over"]:
                return self.ok(http.post("/api/poker-squares/games", json={}))
            grid = game["view"]["grid"]
            row, col = next((r, c) for r in range(5) for c in range(5) if grid[r][c] is None)
            body = {"version": game["version"], "row": row, "col": col}
            return self.ok(http.post(f"/api/poker-squares/games/{game['id']}/moves", json=body))
        if game is None or game["phase"] == "match_over":
            seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
            return self.ok(http.post("/api/kings-corner/games", json={"seats": seats}))
        path = f"/api/kings-corner/games/{game['id']}/"
        body: dict[str, Any] = {"version": game["version"]}
        if game["phase"] == "computer":
            path += "computer-step"
        elif game["phase"] == "round_over":
            path += "next-round"
        else:
            path += "moves"
            body["move"] = simple_person(game)
        return self.ok(http.post(path, json=body))

    @staticmethod
    def ok(r: httpx.Response) -> Any:
        assert r.status_code < 300, f"{r.request.url}: {r.status_code} {r.text}"
        return r.json()


def crash_and_recover(
    tmp_path: Path, database_url: str | None, seed: int, *, workers: int = 1
) -> None:
    rng = random.Random(seed)
    server = ServeProcess(tmp_path / "data", tmp_path / "serve.log", database_url, workers=workers)
    base = server.start()
    try:
        players = [
            httpx.post(f"{base}/api/players", timeout=30).json()["player_id"]
            for _ in range(THREADS)
        ]
        load = Load(base, players)
        threads = [threading.Thread(target=load.run, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        # Kill after a random number of acknowledged answers (or when the load ends).
        kill_after = rng.randrange(60, 240)
        deadline = time.monotonic() + MAX_SECONDS
        while len(load.acked) < kill_after and any(t.is_alive() for t in threads):
            assert time.monotonic() < deadline
            time.sleep(0.005)
        server.kill()
        load.stop.set()
        for t in threads:
            t.join(30)
        acked = list(load.acked)
        assert len(acked) >= min(kill_after, 60)

        base = server.start()  # the same store, a new process
        check_acknowledged(base, acked)
        check_every_game_loads(Settings(data_dir=tmp_path / "data", database_url=database_url))
    finally:
        server.stop()
    output = server.output()
    assert "Uvicorn running" in output or "serving" in output
    for player in players:
        assert player not in output, "a full player id was written to the server's output"
        assert player_key(player) not in output


def check_acknowledged(base: str, acked: list[tuple[str, str, str, int, dict[str, Any]]]) -> None:
    latest: dict[tuple[str, str, str], dict[str, Any]] = {}
    for player, kind, game_id, version, answer in acked:
        key = (player, kind, game_id)
        if key not in latest or latest[key]["version"] < version:
            latest[key] = answer
    with httpx.Client(base_url=base, timeout=10) as http:
        for (player, kind, game_id), answer in latest.items():
            path = "poker-squares" if kind == "ps" else "kings-corner"
            r = http.get(f"/api/{path}/games/{game_id}", headers={"X-Player-Id": player})
            assert r.status_code == 200, r.text
            saved = r.json()
            # The acknowledged version or a later one (a request cut by the kill may have been
            # committed without its answer arriving).
            assert saved["version"] >= answer["version"]
            if saved["version"] == answer["version"]:
                # A read carries no step and no events: those describe the request's change.
                read = {"step": None, "events": []} if kind == "kc" else {}
                assert saved == {**answer, **read}
            if kind == "ps":  # no undo in this load: every placed card stays where it was put
                for r_, row in enumerate(answer["view"]["grid"]):
                    for c, card in enumerate(row):
                        if card is not None:
                            assert saved["view"]["grid"][r_][c] == card


def check_every_game_loads(settings: Settings) -> None:
    store = open_store(settings)
    assert isinstance(store, SqlStore)
    try:
        rows = store._rows("SELECT id, kind, version, state FROM games", ())
        assert rows
        for game_id, kind, version, text in rows:
            state = json.loads(text)
            log = store.move_log(game_id)
            versions = [
                int(v)
                for (v,) in store._rows(
                    "SELECT DISTINCT version FROM moves WHERE game_id = ? ORDER BY version",
                    (game_id,),
                )
            ]
            # Every saved version wrote its log rows in the same transaction.
            assert versions == list(range(1, int(version) + 1)), game_id
            if kind == "poker-squares":
                game = ps.Game.from_dict(state)
                deal = log[0]
                # A real deal is dealt from its fair seed; a test deal from its integer one.
                replayed = ps.deal(
                    game.table, deal["seed"] or 0, target=game.target, fair=game.fair
                )
                for entry in log[1:]:
                    replayed = ps.place(replayed, entry["row"], entry["col"])
                assert replayed.to_dict() == game.to_dict()
            else:
                SavedMatch.from_dict(state)
    finally:
        store.close()


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_sigkill_mid_load_loses_no_acknowledged_move(
    tmp_path: Path, store: str, sample: Sample, request: pytest.FixtureRequest
) -> None:
    """The kill point comes from the run seed: each run kills at another moment."""
    seed = sample.rng("crash").randrange(10**6)
    if store == "sqlite":
        crash_and_recover(tmp_path, None, seed)
        return
    with fresh_schema(request.getfixturevalue("postgres_url")) as url:
        crash_and_recover(tmp_path, url, seed)


@pytest.mark.deep  # the workers cluster; the fast tier kills a one-process server
def test_sigkill_of_two_workers_mid_load_loses_no_acknowledged_move(
    tmp_path: Path, postgres_url: str, sample: Sample
) -> None:
    """`cardtable serve --workers 2`, the supervisor and both workers killed at once."""
    with fresh_schema(postgres_url) as url:
        crash_and_recover(tmp_path, url, sample.rng("crash-workers").randrange(10**6), workers=2)
