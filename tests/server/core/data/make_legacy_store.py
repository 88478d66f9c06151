"""Write a store fixture for `tests/server/core/test_migrations.py` with the code of an earlier
commit: play games through that commit's own API on a fresh SQLite store, then dump the
schema statements it ran and every row it wrote as JSON.

Run it on an exported tree of the old commit, from outside the checkout (so the old package,
not the checkout's, is imported)::

    mkdir /tmp/old && git archive <commit> | tar -x -C /tmp/old
    cd /tmp && PYTHONPATH=/tmp/old /work/main/.venv/bin/python \\
        /work/main/tests/server/core/data/make_legacy_store.py <commit> OUT.json

The fixtures in this folder were made this way: ``store_layout1.json`` with 3f31479 (the
first layout: one ``results`` row per game), ``store_layout2.json`` with e3994cd (the last
commit before schema versions: ``finishes``, an emptied ``results``).
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

import cardtable.server.core.store.sql as old_sql
from cardtable.server import Settings, create_app

JSON = Any
PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}


class Player:
    def __init__(self, client: TestClient) -> None:
        self.client = client
        r = client.post("/api/players")
        assert r.status_code == 201, r.text
        self.id: str = r.json()["player_id"]

    def post(self, path: str, body: JSON = None, status: int = 200) -> JSON:
        r = self.client.post(path, json=body or {}, headers={"X-Player-Id": self.id})
        assert r.status_code == status, f"{path} -> {r.status_code}: {r.text}"
        return r.json()

    # -- Poker Squares ---------------------------------------------------------------------
    def ps_new(self, **options: Any) -> JSON:
        return self.post("/api/poker-squares/games", options, status=201)

    def ps(self, game: JSON, action: str, **body: Any) -> JSON:
        body["version"] = game["version"]
        return self.post(f"/api/poker-squares/games/{game['id']}/{action}", body)

    def place(self, game: JSON, cards: int) -> JSON:
        for _ in range(cards):
            grid = game["view"]["grid"]
            row, col = next((r, c) for r in range(5) for c in range(5) if grid[r][c] is None)
            game = self.ps(game, "moves", row=row, col=col)
        return game

    # -- Kings Corner ----------------------------------------------------------------------
    def kc_new(self, seats: list[JSON], **options: Any) -> JSON:
        return self.post("/api/kings-corner/games", {"seats": seats, **options}, status=201)

    def kc(self, game: JSON, action: str, **body: Any) -> JSON:
        body["version"] = game["version"]
        return self.post(f"/api/kings-corner/games/{game['id']}/{action}", body)

    def kc_play(self, game: JSON, steps: int | None = None) -> JSON:
        """Play ``steps`` requests (None: to the end of the match) the way a page would."""
        n = 0
        while game["phase"] != "match_over" and (steps is None or n < steps):
            n += 1
            phase = game["phase"]
            if phase == "round_over":
                game = self.kc(game, "next-round")
            elif phase == "computer":
                game = self.kc(game, "computer-step")
            elif phase == "handoff":
                game = self.kc(game, "reveal")
            else:
                legal = game["view"]["legal_moves"]
                plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
                game = self.kc(game, "moves", move=plays[0] if plays else "end")
            assert n < 4000, "the match did not end"
        return game


def play(client: TestClient) -> tuple[dict[str, str], dict[str, str]]:
    """Players and games of every kind; returns their names."""
    alice, bob, carol = Player(client), Player(client), Player(client)
    games: dict[str, str] = {}
    cpu_easy = {"kind": "computer", "strength": "easy"}
    human = {"kind": "human"}

    g = alice.place(alice.ps_new(table="american"), 25)
    games["alice_ps_finished"] = g["id"]
    g = alice.place(alice.ps_new(table="british", target="hard"), 3)
    g = alice.ps(g, "undo")  # practice from here on
    games["alice_ps_finished_practice"] = alice.place(g, 23)["id"]
    g = alice.place(alice.ps_new(table="american"), 25)
    g = alice.place(alice.ps(g, "undo"), 1)  # finished twice: the second finish is practice
    games["alice_ps_finished_twice"] = g["id"]
    g = alice.place(alice.ps_new(table="american", target="easy"), 7)
    games["alice_ps_current"] = g["id"]

    g = alice.kc_play(alice.kc_new([human, cpu_easy]))
    games["alice_kc_finished"] = g["id"]
    g = alice.kc_play(
        alice.kc_new([human, {"kind": "computer", "strength": "normal"}], rounds=3), 12
    )
    games["alice_kc_current"] = g["id"]

    g = bob.place(bob.ps_new(table="british"), 4)
    games["bob_ps_replaced"] = g["id"]  # unfinished, no longer current
    games["bob_ps_current"] = bob.place(bob.ps_new(), 2)["id"]
    g = bob.kc_play(bob.kc_new([human, cpu_easy, {"kind": "computer", "strength": "strong"}]))
    games["bob_kc_finished"] = g["id"]
    g = bob.kc_play(bob.kc_new([human, human], rules={"preset": "draw-last"}), 9)
    games["bob_kc_current"] = g["id"]  # two people on one device: hand-offs

    return {"alice": alice.id, "bob": bob.id, "carol": carol.id}, games


def dump(path: Path) -> dict[str, JSON]:
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        tables: dict[str, JSON] = {}
        for name in names:
            cur = conn.execute(f"SELECT * FROM {name} ORDER BY rowid")
            tables[name] = {
                "columns": [d[0] for d in cur.description],
                "rows": [list(r) for r in cur.fetchall()],
            }
        return tables
    finally:
        conn.close()


def main(commit: str, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=None, hint_budget=4)
        with TestClient(create_app(settings)) as client:
            players, games = play(client)
        tables = dump(settings.sqlite_path)
    fixture = {
        "commit": commit,
        "schema": list(old_sql.SCHEMA),
        "players": players,
        "games": games,
        "tables": tables,
    }
    out.write_text(json.dumps(fixture, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
