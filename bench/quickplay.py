"""Quick play under a crowd: 400 players entering and leaving the queue at random on two server
processes over one PostgreSQL, how long they wait to be seated, and that nobody is seated
twice or lost.

    python -m bench.quickplay [--players 400] [--processes 2] [--arrive 60] [--deadline 180]

Everything runs on loopback. Two real ``cardtable serve`` processes (started as bench/online.py
starts them) share one throwaway PostgreSQL (``DATABASE_URL`` if set, else a private server
started the way the tests start theirs); SQLite serves one process only, so this bench is
PostgreSQL's. The players alternate between the processes, so most tables seat players of
both, and each has a loopback address of its own (127.2.x.y: the per-address bounds see
separate clients, as for real people).

Each player arrives at a random moment within ``--arrive`` seconds, then, until seated: joins
the queue (2, 3, 4 players or any, at random; one rules preset, as a busy hour would have
most people on the default), asks ``GET /api/quick-play`` every 0.5 s as the page does, and
with probability 0.4 per join gives up after 0-1.5 s if not seated by then (leaves), waits
0.5-3 s and joins again. Seated, it stops (a join answered 409 ``already_seated`` after a
leave means the seat came just before the leave: that seat counts, its wait up to the
leave). Figures:

- wait: from the join that was seated to the first status answer saying "seated" (client
  side, so it includes up to one poll interval), p50/p90/p99/max; and how many tables were
  made, how many seats went to persons and how many to computers;
- seated twice: a player in ``quick_seated`` more than once (each player is seated once
  here), or two players' status naming tables that do not hold them;
- lost: a player not seated by the end though still waiting past the fill time by more than
  10 s, or rows still waiting in the queue once every player has stopped;
- errors: answers other than the ones expected (a 429 is counted apart: the bounds at work).

Bounded: every request has a timeout and the whole run ``--deadline`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.online import ROOT, Server, percentile, serve

QP = "/api/quick-play"
FILL = 20.0
LEAVE = 0.4
"""The chance that a player gives up on a join (after 0-1.5 s) and joins again."""


@dataclass
class Player:
    index: int
    server: Server
    http: httpx.AsyncClient
    player: str = ""
    joined: float = 0.0
    left: float = 0.0
    waits: list[float] = field(default_factory=list)
    token: str | None = None
    joins: int = 0
    leaves: int = 0
    lost: bool = False


@dataclass
class Stats:
    errors: Counter[str] = field(default_factory=Counter)
    conflicts: Counter[str] = field(default_factory=Counter)
    """409s of joins: ``already_seated`` when a leave came just after the seat was taken."""
    limited: int = 0


def address(i: int) -> str:
    return f"127.2.{i // 250}.{i % 250 + 1}"


async def call(p: Player, stats: Stats, method: str, path: str, body: Any = None) -> Any:
    try:
        r = await p.http.request(method, path, json=body, headers={"X-Player-Id": p.player})
    except httpx.HTTPError as exc:
        stats.errors[f"{method} {path}: {type(exc).__name__}"] += 1
        return None
    if r.status_code == 429:
        stats.limited += 1
        return {"retry": float(r.headers.get("Retry-After", "1"))}
    if r.status_code == 409 and method == "POST":
        stats.conflicts[r.json().get("code", "?")] += 1
        return {"conflict": r.json()}
    if r.status_code not in (200, 201, 204):
        stats.errors[f"{method} {path}: {r.status_code} {r.text[:60]}"] += 1
        return None
    return None if r.status_code == 204 else r.json()


async def life(p: Player, stats: Stats, rng: random.Random, arrive: float, end: float) -> None:
    """One player: arrive, join, maybe leave and join again, until seated or the end."""
    await asyncio.sleep(rng.uniform(0, arrive))
    while time.monotonic() < end:
        players = rng.choice([2, 3, 4, None])
        body = {"players": players, "preset": "standard", "name": f"P{p.index}"}
        joined = await call(p, stats, "POST", QP, body)
        if joined is None or "retry" in joined:
            await asyncio.sleep(1 if joined is None else joined["retry"])
            continue
        if "conflict" in joined:
            # Seated just before its leave: that seat is this player's (wait until the leave).
            p.token = joined["conflict"].get("token")
            p.waits.append(p.left - p.joined)
            return
        p.joins += 1
        p.joined = time.monotonic()
        give_up = p.joined + rng.uniform(0.0, 1.5) if rng.random() < LEAVE else None
        while time.monotonic() < end:
            await asyncio.sleep(0.5 if give_up is None else min(0.5, give_up - time.monotonic()))
            status = await call(p, stats, "GET", QP)
            if status is None or "retry" in status:
                continue
            if status["state"] == "seated":
                p.waits.append(time.monotonic() - p.joined)
                p.token = status["token"]
                return
            if status["state"] != "waiting":
                stats.errors["waiting row gone without a seat"] += 1
                p.lost = True
                return
            if give_up is not None and time.monotonic() >= give_up:
                await call(p, stats, "DELETE", QP)
                p.leaves += 1
                p.left = time.monotonic()
                await asyncio.sleep(rng.uniform(0.5, 3))
                break
        else:
            if time.monotonic() - p.joined > FILL + 10:
                p.lost = True
            await call(p, stats, "DELETE", QP)


async def make_players(servers: list[Server], n: int, stats: Stats) -> list[Player]:
    players: list[Player] = []
    for i in range(n):
        server = servers[i % len(servers)]
        transport = httpx.AsyncHTTPTransport(local_address=address(i))
        http = httpx.AsyncClient(base_url=server.base, transport=transport, timeout=15)
        players.append(Player(i, server, http))

    async def sign_up(p: Player) -> None:
        r = await p.http.post("/api/players")
        p.player = r.json()["player_id"]

    for i in range(0, n, 40):
        await asyncio.gather(*(sign_up(p) for p in players[i : i + 40]))
    return players


def player_key(player_id: str) -> str:
    """The key the store keeps for a new player's id (its SHA-256, devices/players.py)."""
    return hashlib.sha256(player_id.encode("ascii")).hexdigest()


def check_store(url: str, players: list[Player]) -> dict[str, Any]:
    """What the store says: seated twice, still waiting, tables and their seats."""
    import psycopg

    with psycopg.connect(url) as conn:
        twice = conn.execute(
            "SELECT COUNT(*) FROM (SELECT player FROM quick_seated GROUP BY player "
            "HAVING COUNT(*) > 1) t"
        ).fetchone()
        waiting = conn.execute("SELECT COUNT(*) FROM quick_queue WHERE table_id IS NULL").fetchone()
        rows = conn.execute("SELECT table_id, player, token FROM quick_seated").fetchall()
        sizes = conn.execute(
            "SELECT id, state::json->'config'->>'players' FROM online_tables"
        ).fetchall()
    seated = {(r[1], r[2]) for r in rows}
    wrong = sum(
        1 for p in players if p.token is not None and (player_key(p.player), p.token) not in seated
    )
    tables = {r[0] for r in rows}
    size_of = {r[0]: int(r[1]) for r in sizes}
    seats = sum(size_of.get(t, 0) for t in tables)
    return {
        "seated_twice": int(twice[0]) if twice else -1,
        "status_not_matching_store": wrong,
        "still_waiting_rows": int(waiting[0]) if waiting else -1,
        "tables": len(tables),
        "person_seats": len(rows),
        "computer_seats": seats - len(rows),
    }


async def run(servers: list[Server], url: str, args: argparse.Namespace) -> dict[str, Any]:
    stats = Stats()
    players = await make_players(servers, args.players, stats)
    rng = random.Random(args.seed)
    end = time.monotonic() + args.deadline - 20
    started = time.monotonic()
    try:
        await asyncio.gather(*(life(p, stats, random.Random(rng.random()), args.arrive, end)
                               for p in players))  # fmt: skip
    finally:
        for p in players:
            await p.http.aclose()
    waits = [w for p in players for w in p.waits]
    out: dict[str, Any] = {
        "players": len(players),
        "processes": len(servers),
        "seconds": round(time.monotonic() - started, 1),
        "seated": sum(p.token is not None for p in players),
        "joins": sum(p.joins for p in players),
        "leaves": sum(p.leaves for p in players),
        "lost": sum(p.lost for p in players),
        "wait_p50": round(percentile(waits, 50), 2) if waits else None,
        "wait_p90": round(percentile(waits, 90), 2) if waits else None,
        "wait_p99": round(percentile(waits, 99), 2) if waits else None,
        "wait_max": round(max(waits), 2) if waits else None,
        "rate_limited": stats.limited,
        "join_conflicts": dict(stats.conflicts),
        "errors": dict(stats.errors),
    }
    out.update(check_store(url, players))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--arrive", type=float, default=60.0)
    parser.add_argument("--deadline", type=float, default=180.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import postgres_server

    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-quick-")))
        url = stack.enter_context(postgres_server())
        servers = [
            stack.enter_context(serve(name, root / f"pg-{name}", root / f"pg-{name}.log", url))
            for name in "ABCDEFGH"[: args.processes]
        ]
        result = asyncio.run(run(servers, url, args))
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    bad = result["seated_twice"] or result["lost"] or result["status_not_matching_store"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
