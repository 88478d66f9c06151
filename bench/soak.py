"""Soak test of the game server on loopback: many clients for a fixed time, zero errors
expected, latency and server memory reported.

    python -m bench.soak [--clients 64] [--seconds 60] [--no-player-limits] [--json F]

Starts ``cardtable serve`` (the real command, access log on, a fresh SQLite store in a
temporary folder, or ``DATABASE_URL`` if set) on a free 127.0.0.1 port, creates one player per
client, then runs every client at once for ``--seconds`` (and at most ``--max-requests`` in
all). Three clients in four play Poker Squares deals (place, and a new deal after 25 cards);
the fourth plays Kings Corner against an easy computer (its moves, computer steps, next
rounds, a new match at the end). Each client has one keep-alive connection and waits for each
answer before its next request, so there are ``--clients`` requests in flight.

An error is any answer other than 2xx or a failed connection. Reported: requests, errors,
requests/s, p50/p99/max latency, the server's resident memory (VmRSS from /proc) before and
after the run and its peak (VmHWM), and whether any full player id appeared in the server's
output (it must not).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.server_load import CELLS, HOST, Connection, free_port, new_players

ROOT = Path(__file__).resolve().parent.parent
PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    def memory_kib(self) -> dict[str, int]:
        """VmRSS and VmHWM of the server process, in KiB (Linux /proc)."""
        out: dict[str, int] = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                out[name] = int(value.split()[0])
        return out


@contextmanager
def serve(
    data: Path,
    timeout: float = 60.0,
    *,
    no_limits: bool = False,
    nofile: int | None = None,
    group: bool = False,
    args: Sequence[str] = (),
) -> Iterator[Server]:
    """``cardtable serve`` on a free 127.0.0.1 port until the block ends. ``nofile``: the
    server's soft limit of open files; ``group``: the server leads a process group of its
    own, and whatever is left of the group when the server has stopped (its search workers)
    is killed too. ``args``: more `cardtable serve` options."""
    port = free_port()
    log = data / "serve.log"
    cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--host", HOST,
           "--port", str(port), "--data", str(data / "store"), *args]  # fmt: skip
    if no_limits:
        cmd += ["--player-rate", "0", "--hint-rate", "0", "--signup-rate", "0"]

    def limit_files() -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile or hard, hard))

    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limit_files if nofile else None,
            start_new_session=group,
        )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/healthz", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("cardtable serve did not start") from None
                time.sleep(0.1)
        yield Server(proc, port, log)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if group:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    left: int = 0
    deadline: float = 0.0

    def more(self) -> bool:
        if self.left <= 0 or time.monotonic() > self.deadline:
            return False
        self.left -= 1
        return True

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


class Client:
    def __init__(self, conn: Connection, player: str, tally: Tally) -> None:
        self.conn, self.tally = conn, tally
        self.headers = {"X-Player-Id": player}

    async def post(self, path: str, body: Any) -> Any:
        t = time.perf_counter()
        status, answer = await self.conn.post(path, body, self.headers)
        self.tally.latencies.append(time.perf_counter() - t)
        self.tally.requests += 1
        if not 200 <= status < 300:
            code = answer.get("code") if isinstance(answer, dict) else None
            self.tally.error(f"{status} {code}")
            return None
        return answer

    async def poker_squares(self) -> None:
        game = None
        while self.tally.more():
            if game is None or game["view"]["is_over"]:
                game = await self.post("/api/poker-squares/games", {"table": "american"})
                continue
            grid = game["view"]["grid"]
            row, col = next((r, c) for r, c in CELLS if grid[r][c] is None)
            body = {"version": game["version"], "row": row, "col": col}
            game = await self.post(f"/api/poker-squares/games/{game['id']}/moves", body)

    async def kings_corner(self) -> None:
        game = None
        seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
        while self.tally.more():
            if game is None or game["phase"] == "match_over":
                game = await self.post("/api/kings-corner/games", {"seats": seats})
                continue
            path = f"/api/kings-corner/games/{game['id']}/"
            body: dict[str, Any] = {"version": game["version"]}
            if game["phase"] == "computer":
                path += "computer-step"
            elif game["phase"] == "round_over":
                path += "next-round"
            else:
                path += "moves"
                body["move"] = person(game["view"]["legal_moves"])
            game = await self.post(path, body)


def person(legal: Sequence[str]) -> str:
    """Play a card while one fits, else end the turn."""
    plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
    if plays:
        return plays[0]
    return "end" if "end" in legal else legal[0]


async def run(port: int, players: Sequence[str], seconds: float, max_requests: int) -> Tally:
    tally = Tally(left=max_requests, deadline=time.monotonic() + seconds)
    conns = [await Connection.open(port) for _ in players]
    clients = [Client(c, p, tally) for c, p in zip(conns, players, strict=True)]
    try:
        await asyncio.gather(
            *(c.kings_corner() if i % 4 == 3 else c.poker_squares() for i, c in enumerate(clients))
        )
    finally:
        for c in conns:
            c.close()
    return tally


def soak(
    clients: int, seconds: float, max_requests: int, *, no_limits: bool = False
) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="cardtable-soak-"))
    try:
        with serve(data, no_limits=no_limits) as server:
            players = asyncio.run(new_players(server.port, clients))
            before = server.memory_kib()
            started = time.perf_counter()
            tally = asyncio.run(run(server.port, players, seconds, max_requests))
            elapsed = time.perf_counter() - started
            after = server.memory_kib()
            output = server.log.read_text(errors="replace")
        lat = sorted(tally.latencies)
        n = len(lat)
        return {
            "clients": clients,
            "seconds": round(elapsed, 1),
            "requests": tally.requests,
            "errors": sum(tally.errors.values()),
            "error_kinds": tally.errors,
            "rps": round(tally.requests / elapsed, 1) if elapsed else 0.0,
            "p50_ms": round(1000 * lat[n // 2], 2) if n else None,
            "p99_ms": round(1000 * lat[min(n - 1, int(n * 0.99))], 2) if n else None,
            "max_ms": round(1000 * lat[-1], 2) if n else None,
            "rss_before_mib": round(before["VmRSS"] / 1024, 1),
            "rss_after_mib": round(after["VmRSS"] / 1024, 1),
            "rss_peak_mib": round(after["VmHWM"] / 1024, 1),
            "player_id_in_log": any(p in output for p in players),
            "log_lines": output.count("\n"),
            "store": "PostgreSQL (DATABASE_URL)" if os.environ.get("DATABASE_URL") else "SQLite",
            "player_limits": not no_limits,
            "load_average": os.getloadavg(),
            "cpus": os.cpu_count(),
        }
    finally:
        shutil.rmtree(data, ignore_errors=True)


def report(r: dict[str, Any]) -> str:
    load = ", ".join(f"{x:.2f}" for x in r["load_average"])
    return "\n".join(
        [
            f"soak: {r['clients']} clients for {r['seconds']} s on loopback, cardtable serve "
            f"({r['store']}, per-player limits {'on' if r['player_limits'] else 'lifted'}), "
            f"{r['cpus']} CPUs, load average after: {load}",
            f"requests {r['requests']}  errors {r['errors']} {r['error_kinds'] or ''}  "
            f"req/s {r['rps']}",
            f"latency ms: p50 {r['p50_ms']}  p99 {r['p99_ms']}  max {r['max_ms']}",
            f"server RSS MiB: before {r['rss_before_mib']}  after {r['rss_after_mib']}  "
            f"peak {r['rss_peak_mib']}",
            f"full player id in the server's output: {'YES' if r['player_id_in_log'] else 'no'} "
            f"({r['log_lines']} lines)",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--clients", type=int, default=64, help="concurrent clients (64)")
    parser.add_argument("--seconds", type=float, default=60.0, help="duration (60)")
    parser.add_argument(
        "--max-requests", type=int, default=500_000, help="bound on requests in all"
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--no-player-limits",
        action="store_true",
        help="serve with the per-player request and hint limits and the sign-up limit lifted "
        "(cardtable serve --player-rate 0 --hint-rate 0 --signup-rate 0), so that clients "
        "faster than a person are measured rather than refused",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 256 or not 0 < args.seconds <= 600:
        parser.error("clients are 1-256 and seconds 0-600")
    result = soak(args.clients, args.seconds, args.max_requests, no_limits=args.no_player_limits)
    print(report(result))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["errors"] == 0 and not result["player_id_in_log"] else 1


if __name__ == "__main__":
    sys.exit(main())
