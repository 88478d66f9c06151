"""Races: many clients send moves to one game with the same version at once. Exactly one wins
each version, the rest get 409 ``stale_version``, and the final state is what replaying the
accepted moves gives. Over real HTTP (uvicorn on loopback), on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardtable import kings_corner as kc
from cardtable import poker_squares as ps
from cardtable.server import Settings, create_app
from cardtable.server.games.saved_match import SavedMatch
from tests.support.live_server import live_server
from tests.support.postgres import fresh_schema

CLIENTS = 8
ROUNDS = 6
SEED = 424242


def race(base: str, path: str, bodies: list[dict[str, Any]], headers: dict[str, str]) -> list[Any]:
    """Send every body at once (one client each); the answers, in body order."""
    answers: list[Any] = [None] * len(bodies)
    barrier = threading.Barrier(len(bodies))

    def send(i: int) -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
            barrier.wait()
            r = http.post(path, json=bodies[i])
            answers[i] = (r.status_code, r.json())

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers


def one_winner(answers: list[Any]) -> int:
    winners = [i for i, (status, _) in enumerate(answers) if status == 200]
    assert len(winners) == 1, [a[0] for a in answers]
    for i, (status, body) in enumerate(answers):
        if i != winners[0]:
            assert status == 409 and body["code"] == "stale_version", body
    return winners[0]


def poker_squares_race(settings: Settings) -> None:
    with live_server(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as http:
        headers = {"X-Player-Id": http.post("/api/players").json()["player_id"]}
        seeded = {**headers, "X-Test-Seed": str(SEED)}
        game = http.post("/api/poker-squares/games", json={}, headers=seeded).json()
        path = f"/api/poker-squares/games/{game['id']}/moves"
        accepted: list[tuple[int, int]] = []
        for _ in range(ROUNDS):
            grid = game["view"]["grid"]
            empty = [(r, c) for r in range(5) for c in range(5) if grid[r][c] is None]
            bodies = [{"version": game["version"], "row": r, "col": c} for r, c in empty[:CLIENTS]]
            answers = race(base, path, bodies, headers)
            win = one_winner(answers)
            accepted.append((bodies[win]["row"], bodies[win]["col"]))
            game = answers[win][1]
        final = http.get(f"/api/poker-squares/games/{game['id']}", headers=headers).json()
        replayed = ps.deal("american", SEED)
        for row, col in accepted:
            replayed = ps.place(replayed, row, col)
        assert final["version"] == 1 + ROUNDS
        # The answer names the (absent) fairness of an integer-seeded test deal as null.
        assert final["view"] == {"fairness": None} | ps.view(replayed)


def kings_corner_race(settings: Settings) -> None:
    """Computer steps and a person's moves raced by several clients at once."""
    with live_server(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as http:
        headers = {"X-Player-Id": http.post("/api/players").json()["player_id"]}
        seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
        game = http.post(
            "/api/kings-corner/games",
            json={"seats": seats},
            headers={**headers, "X-Test-Seed": str(SEED)},
        ).json()
        accepted: list[tuple[str, str]] = []
        for _ in range(ROUNDS):
            if game["phase"] not in ("play", "computer"):
                break
            root = f"/api/kings-corner/games/{game['id']}/"
            if game["phase"] == "computer":
                action, bodies = "computer-step", [{"version": game["version"]}] * CLIENTS
            else:
                legal = game["view"]["legal_moves"]
                action = "moves"
                bodies = [
                    {"version": game["version"], "move": legal[i % len(legal)]}
                    for i in range(CLIENTS)
                ]
            answers = race(base, root + action, bodies, headers)
            win = one_winner(answers)
            game = answers[win][1]
            move = game["step"]["move"] if action == "computer-step" else bodies[win]["move"]
            accepted.append((action, move))
        final = http.get(f"/api/kings-corner/games/{game['id']}", headers=headers).json()
        table = SavedMatch.new((("human", None), ("computer", "easy")), kc.Rules(), 1, SEED)
        for action, move in accepted:
            seat = table.match.state.to_play
            table, _, _ = table.played(seat, kc.Move.parse(move), computer=action != "moves")
        assert final["version"] == 1 + len(accepted) and len(accepted) >= 3
        assert final["view"] == {"fairness": None} | table.view()


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_racing_moves_on_sqlite(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=None, allow_seed_for_tests=True)
    poker_squares_race(settings)
    kings_corner_race(settings)


def test_racing_moves_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    with fresh_schema(postgres_url) as url:
        settings = Settings(data_dir=tmp_path, database_url=url, allow_seed_for_tests=True)
        poker_squares_race(settings)
        kings_corner_race(settings)


def test_undo_racing_a_move_one_wins(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=None)
    with live_server(create_app(settings)) as base, httpx.Client(base_url=base, timeout=30) as http:
        headers = {"X-Player-Id": http.post("/api/players").json()["player_id"]}
        game = http.post("/api/poker-squares/games", json={}, headers=headers).json()
        root = f"/api/poker-squares/games/{game['id']}/"
        game = http.post(root + "moves", json={"version": 1, "row": 0, "col": 0}, headers=headers)
        v = game.json()["version"]
        bodies = [{"version": v}, {"version": v, "row": 1, "col": 1}] * 3
        answers: list[Any] = [None] * len(bodies)
        barrier = threading.Barrier(len(bodies))

        def send(i: int) -> None:
            path = root + ("undo" if "row" not in bodies[i] else "moves")
            with httpx.Client(base_url=base, headers=headers, timeout=30) as own:
                barrier.wait()
                r = own.post(path, json=bodies[i])
                answers[i] = (r.status_code, r.json())

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bodies))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        win = one_winner(answers)
        final = http.get(root[:-1], headers=headers).json()
        assert final == answers[win][1] and final["version"] == v + 1
        assert final["view"]["placed"] == (0 if "row" not in bodies[win] else 2)
