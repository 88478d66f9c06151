"""Poker Squares tables under load: how fast the next card reaches every device, what a
placement costs the server, its memory, and whether any placement is lost or doubled.

    python -m bench.ps_tables [--tables 100] [--players 8] [--seconds 2] [--clients 2]
                              [--postgres]

One ``cardtable serve`` process on loopback (a temporary SQLite folder; ``--postgres``: a
throwaway PostgreSQL, ``DATABASE_URL`` if set, else a private server started the way the tests
start theirs). Each table has ``--players`` devices, each its own player id and loopback
address (127.1.x.y, so the per-address limits see separate people): the host creates the
table (no timer), the others join, every device opens its live WebSocket and the host starts.
Then every device, for each of the 25 cards: waits until its live channel shows the card,
thinks (``--seconds`` on average: drawn from 0.5-1.5 x 2 s; the tables start over the first
2 s, as people sit down at different moments; ``--lockstep``: every table at once and every
think exactly 2 s, the worst burst), and places it (HTTP, ``httpx``) on a random empty cell
of its own grid, as its live view shows it. The devices are spread over ``--clients`` client
processes (tables dealt round-robin) that meet at barriers, so the server's memory and CPU
are read while every client waits.

Figures:

- delivery: for each card after the first and each device of its table, from the moment the
  last placement of the card before was acknowledged (the latest HTTP answer of the table's
  placements of that card, read by its client) to the moment the device's client read the
  first live message showing the new card (p50/p95/p99/max; a device whose push came before
  the last placer read its own answer counts 0). The clients share the machine's cores with
  the server, so this includes their own queueing. Goal: p95 under 150 ms.
- server CPU per placement: the CPU time the server process used while the tables played,
  over the placements (the request, its pushes to every device of the table, and the
  background work).
- memory: the server's resident memory after the tables exist with every connection open,
  and at the end.
- placement answer: each placement's round trip (the POST until its answer was read): the
  players of a table place the same card within milliseconds of each other, so a placement
  that waited for another's would show here.
- lost and doubled: every device's final grid (the end's ranking) against what it placed: a
  placement acknowledged but not on the grid where it was put is lost; a grid holding a card
  the device did not place there (a second placement, or the hint's) is doubled.

The run is bounded: every wait has a timeout and the whole run ``--deadline`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from bench.online import Endpoint, address, bounded, cpu_seconds, percentile, rss_kib, serve

BASE = "/api/poker-squares/tables"
CARDS = 25
WAIT = 30.0
SETUP_CONCURRENCY = 40


@dataclass
class Device:
    seat: int
    address: str
    http: httpx.AsyncClient
    player: str = ""
    ws: ClientConnection | None = None
    shown: dict[int, float] = field(default_factory=dict)
    """Card index -> when a live message first showed it (perf_counter)."""
    latest: dict[str, Any] | None = None
    placed: list[tuple[int, str]] = field(default_factory=list)
    news: asyncio.Event = field(default_factory=asyncio.Event)
    errors: list[str] = field(default_factory=list)

    def headers(self) -> dict[str, str]:
        return {"X-Player-Id": self.player}

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for text in self.ws:
                at = time.perf_counter()
                table = json.loads(text)["table"]
                if self.latest is None or table["version"] >= self.latest["version"]:
                    self.latest = table
                card = table["card"]
                index = (
                    CARDS if table["phase"] == "over" else None if card is None else card["index"]
                )
                if index is not None:
                    self.shown.setdefault(index, at)
                self.news.set()
        except Exception as exc:
            self.errors.append(f"live: {type(exc).__name__}")

    async def until(self, test: Any, timeout: float = WAIT) -> bool:
        end = time.monotonic() + timeout
        while not (self.latest is not None and test(self.latest)):
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), left)
        return True


@dataclass
class Table:
    devices: list[Device]
    token: str = ""
    acked: dict[int, float] = field(default_factory=dict)
    """Card index -> when the last of its placements was acknowledged (perf_counter)."""
    answers: list[float] = field(default_factory=list)
    """Each placement's round trip (its POST until its answer was read), seconds."""


async def post(d: Device, path: str, body: Any, ok: int = 200) -> dict[str, Any] | None:
    """The answer's JSON, or None (the failure noted on the device). A connection that fails
    is tried once more (a keep-alive connection the server closed as it was reused); the
    second try of a placement the first one saved answers ``already_placed``: acknowledged."""
    retried = False
    for attempt in range(2):
        try:
            r = await d.http.post(path, json=body, headers=d.headers())
            break
        except httpx.TransportError as exc:
            if attempt == 1:
                d.errors.append(f"POST {path.rsplit('/', 1)[-1]}: {type(exc).__name__}")
                return None
            retried = True
    if retried and r.status_code == 409 and r.json().get("code") == "already_placed":
        return {}
    if r.status_code != ok:
        d.errors.append(f"POST {path.rsplit('/', 1)[-1]}: {r.status_code} {r.text[:60]}")
        return None
    data: dict[str, Any] = r.json()
    return data


async def setup(t: Table, server: Endpoint, players: int) -> None:
    for d in t.devices:
        r = await d.http.post("/api/players")
        d.player = r.json()["player_id"]
    host = t.devices[0]
    made = await post(host, BASE, {"name": "Host", "max_players": players}, ok=201)
    assert made is not None, host.errors
    t.token = made["token"]
    for d in t.devices[1:]:
        await post(d, f"{BASE}/{t.token}/join", {"name": f"P{d.seat}"})
    for d in t.devices:
        d.ws = await connect(
            f"{server.ws}{BASE}/{t.token}/live", open_timeout=WAIT, close_timeout=2,
            local_addr=(d.address, 0), max_queue=None,
        )  # fmt: skip
        await d.ws.send(json.dumps({"type": "hello", "player": d.player, "version": None}))
        asyncio.get_running_loop().create_task(d.read())
        await d.until(lambda table: True)


async def play(t: Table, think: float, rng: random.Random, lockstep: bool) -> None:
    if not lockstep:  # tables start at different moments, as people sit down
        await asyncio.sleep(rng.uniform(0.0, think))
    await post(t.devices[0], f"{BASE}/{t.token}/start", {})

    async def device(d: Device) -> None:
        for k in range(CARDS):
            if not await d.until(lambda table, k=k: k in d.shown or table["phase"] == "over"):
                d.errors.append(f"card {k} never shown")
                return
            took = think if lockstep else rng.uniform(0.5 * think, 1.5 * think)
            await asyncio.sleep(max(0.0, d.shown[k] + took - time.perf_counter()))
            assert d.latest is not None
            free = d.latest["game"]["legal_moves"] if d.latest["game"] else []
            if not free:
                d.errors.append(f"card {k}: no empty cell in the live view")
                return
            cell = rng.choice(free)
            sent = time.perf_counter()
            if await post(d, f"{BASE}/{t.token}/place", {"card": k, "cell": cell}) is not None:
                d.placed.append((k, cell))
                now = time.perf_counter()
                t.answers.append(now - sent)
                t.acked[k] = max(t.acked.get(k, 0.0), now)
        await d.until(lambda table: table["phase"] == "over" and table["result"] is not None)

    await asyncio.gather(*(device(d) for d in t.devices))


def check(t: Table) -> dict[str, Any]:
    """Deliveries, and lost and doubled placements, of a table that played."""
    delays = []
    for k in range(1, CARDS + 1):
        acked = t.acked.get(k - 1)
        for d in t.devices:
            if acked is not None and k in d.shown:
                delays.append(max(0.0, d.shown[k] - acked))
    lost = doubled = 0
    for d in t.devices:
        end = d.latest or {}
        result = end.get("result") or {}
        grids = {r["seat"]: r["game"]["grid"] for r in result.get("ranking", [])}
        grid = grids.get(d.seat)
        if grid is None:
            lost += len(d.placed)
            continue
        mine = {(int(c[1]) - 1, "abcde".index(c[0])): k for k, c in d.placed}
        for (row, col), k in mine.items():
            if grid[row][col] != result["cards"][k]:
                lost += 1
        filled = sum(card is not None for line in grid for card in line)
        doubled += max(0, filled - len(mine))
    errors = [e for d in t.devices for e in d.errors]
    return {"delays": delays, "lost": lost, "doubled": doubled, "errors": errors,
            "placements": sum(len(d.placed) for d in t.devices), "answers": t.answers}  # fmt: skip


def client(plan: dict[str, Any], barrier: Any, results: Any) -> None:
    results.put(asyncio.run(_client(plan, barrier)))


async def _client(plan: dict[str, Any], barrier: Any) -> dict[str, Any]:
    server = Endpoint("server", plan["base"])
    rng = random.Random(plan["seed"])
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    tables = []
    for t_index in plan["tables"]:
        devices = []
        for seat in range(plan["players"]):
            i = t_index * plan["players"] + seat
            transport = httpx.AsyncHTTPTransport(local_address=address(i), limits=limits)
            http = httpx.AsyncClient(base_url=server.base, transport=transport, timeout=WAIT)
            devices.append(Device(seat, address(i), http))
        tables.append(Table(devices))
    await bounded(SETUP_CONCURRENCY // plan["players"] + 1,
                  [setup(t, server, plan["players"]) for t in tables])  # fmt: skip
    await asyncio.to_thread(barrier.wait)  # every connection open: memory is read
    await asyncio.to_thread(barrier.wait)  # and the CPU counter: play
    await asyncio.gather(*(play(t, plan["think"], rng, plan["lockstep"]) for t in tables))
    await asyncio.to_thread(barrier.wait)  # done: the CPU counter is read again
    out = [check(t) for t in tables]
    for t in tables:
        for d in t.devices:
            if d.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(d.ws.close(), 5)
            await d.http.aclose()
    return {
        "delays": [x for o in out for x in o["delays"]],
        "answers": [x for o in out for x in o["answers"]],
        "lost": sum(o["lost"] for o in out),
        "doubled": sum(o["doubled"] for o in out),
        "placements": sum(o["placements"] for o in out),
        "errors": [e for o in out for e in o["errors"]],
    }


def run(args: argparse.Namespace, database_url: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-ps-") as tmp:
        root = Path(args.keep or tmp)
        with serve("server", root / "data", root / "serve.log", database_url) as server:
            n = max(1, min(args.clients, args.tables))
            barrier = multiprocessing.get_context("spawn").Barrier(n + 1)
            results = multiprocessing.get_context("spawn").Queue()
            procs = []
            for c in range(n):
                plan = {"base": server.base, "tables": list(range(c, args.tables, n)),
                        "players": args.players, "think": args.seconds, "seed": c,
                        "lockstep": args.lockstep}  # fmt: skip
                p = multiprocessing.get_context("spawn").Process(
                    target=client, args=(plan, barrier, results)
                )
                p.start()
                procs.append(p)
            barrier.wait(timeout=args.deadline)
            rss_open = rss_kib(server.proc.pid)
            cpu_before = cpu_seconds(server.proc.pid)
            started = time.monotonic()
            barrier.wait(timeout=args.deadline)
            barrier.wait(timeout=args.deadline)
            played = time.monotonic() - started
            cpu = cpu_seconds(server.proc.pid) - cpu_before
            rss_end = rss_kib(server.proc.pid)
            parts = [results.get(timeout=args.deadline) for _ in procs]
            for p in procs:
                p.join(30)
    delays = [x for part in parts for x in part["delays"]]
    answers = [x for part in parts for x in part["answers"]]
    placements = sum(part["placements"] for part in parts)
    return {
        "store": "postgresql" if database_url else "sqlite",
        "tables": args.tables,
        "players": args.players,
        "placements": placements,
        "seconds": played,
        "cpu_ms": 1000 * cpu / max(1, placements),
        "cpu_share": cpu / max(played, 1e-9),
        "p50": 1000 * percentile(delays, 50),
        "p95": 1000 * percentile(delays, 95),
        "p99": 1000 * percentile(delays, 99),
        "max": 1000 * max(delays, default=float("nan")),
        "deliveries": len(delays),
        "answer_p50": 1000 * percentile(answers, 50),
        "answer_p95": 1000 * percentile(answers, 95),
        "rss_open": rss_open / 1024,
        "rss_end": rss_end / 1024,
        "lost": sum(part["lost"] for part in parts),
        "doubled": sum(part["doubled"] for part in parts),
        "errors": [e for part in parts for e in part["errors"]],
    }


def report(r: dict[str, Any]) -> None:
    rows = [
        ("store", r["store"]),
        ("tables x players", f"{r['tables']} x {r['players']}"),
        ("placements", f"{r['placements']} in {r['seconds']:.1f} s"),
        ("server CPU per placement", f"{r['cpu_ms']:.2f} ms ({r['cpu_share']:.0%} of a core)"),
        ("next card delivery p50", f"{r['p50']:.1f} ms"),
        ("next card delivery p95", f"{r['p95']:.1f} ms (goal: under 150 ms)"),
        ("next card delivery p99", f"{r['p99']:.1f} ms"),
        ("next card delivery max", f"{r['max']:.1f} ms over {r['deliveries']} deliveries"),
        ("placement answer p50 / p95", f"{r['answer_p50']:.1f} / {r['answer_p95']:.1f} ms"),
        ("server memory (RSS)", f"{r['rss_open']:.0f} MiB open, {r['rss_end']:.0f} MiB at the end"),
        ("lost / doubled", f"{r['lost']} / {r['doubled']}"),
        ("errors", f"{len(r['errors'])} {sorted(set(r['errors']))[:5]}"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--players", type=int, default=8, choices=range(2, 9))
    p.add_argument("--seconds", type=float, default=2.0, help="think time per card")
    p.add_argument(
        "--lockstep",
        action="store_true",
        help="every table starts at once and every device thinks exactly --seconds (the "
        "worst burst); by default tables start over the first --seconds and each think is "
        "drawn from 0.5-1.5 x --seconds",
    )
    p.add_argument("--clients", type=int, default=2, help="client processes")
    p.add_argument("--postgres", action="store_true", help="also on PostgreSQL")
    p.add_argument("--deadline", type=float, default=600.0)
    p.add_argument("--keep", help="a folder to keep the server's data and log in")
    args = p.parse_args(argv)
    results = [run(args, None)]
    if args.postgres:
        from tests.support.postgres import postgres_server  # as bench.online starts it

        with postgres_server() as url:
            results.append(run(args, url))
    for r in results:
        report(r)
        print()
    return 0 if all(r["lost"] == r["doubled"] == 0 and not r["errors"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
