"""The hint flooder of `tests/server/core/test_admission.py`, run as its own process
(`python -m tests.server.hint_flood BASE PLAYER_ID`) so that its threads never hold the
measuring process's interpreter lock: it floods one player's current deal with hints from
three connections at 48 requests/s in all (the request limit is 50), prints `limited` once
the server has refused three hints for the rate, and when its standard input closes prints
the count of each status as JSON."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import httpx

CELLS = [(r, c) for r in range(5) for c in range(5)]


def mid_game(http: httpx.Client, cards: int = 6) -> dict[str, Any]:
    game: dict[str, Any] = http.post("/api/poker-squares/games", json={}).json()
    for row, col in CELLS[:cards]:
        body = {"version": game["version"], "row": row, "col": col}
        game = http.post(f"/api/poker-squares/games/{game['id']}/moves", json=body).json()
    return game


def flood(base: str, player_id: str) -> dict[int, int]:
    headers = {"X-Player-Id": player_id}
    stop = threading.Event()
    tally: dict[int, int] = {}
    lock = threading.Lock()
    with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
        shared = {"game": mid_game(http)}

    def one_connection() -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
            while not stop.wait(1 / 16):  # three connections: 48 requests/s
                with lock:
                    game = shared["game"]
                try:
                    r = http.post(
                        f"/api/poker-squares/games/{game['id']}/hint",
                        json={"version": game["version"]},
                    )
                    body = r.json()
                except (httpx.HTTPError, ValueError):  # counted; the flood goes on
                    with lock:
                        tally[0] = tally.get(0, 0) + 1
                    continue
                with lock:
                    tally[r.status_code] = tally.get(r.status_code, 0) + 1
                    if r.status_code == 429 and tally[429] == 3:
                        print("limited", flush=True)
                    if r.status_code == 200:
                        game = body["game"]
                    elif body.get("code") == "stale_version":
                        game = body["current"]
                    if game["version"] >= shared["game"]["version"]:
                        shared["game"] = game
                    if shared["game"]["view"]["cards_left"] <= 2:
                        shared["game"] = mid_game(http)

    threads = [threading.Thread(target=one_connection) for _ in range(3)]
    for t in threads:
        t.start()
    sys.stdin.read()  # until the test closes it
    stop.set()
    for t in threads:
        t.join(60)
    return tally


if __name__ == "__main__":
    print(json.dumps(flood(sys.argv[1], sys.argv[2])), flush=True)
