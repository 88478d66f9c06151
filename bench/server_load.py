"""Load test of the game server: a Poker Squares move at 1, 16 and 64 concurrent clients, next
to two floors: a FastAPI endpoint that makes one durable write through the game store (what
any saved move must cost) and a bare one that returns a constant (the framework alone); the
ratios show what our code costs.

    python -m bench.server_load [--levels 1,16,64] [--requests 2000] [--seconds 8]
        [--postgres | --database-url URL] [--profile DIR]

The three servers run as separate uvicorn processes on 127.0.0.1 (free ports, access log off,
one worker each, configured as `cardtable serve` configures uvicorn); the game server and the
durable-write server each use a fresh SQLite file in a temporary folder, or PostgreSQL:
``--postgres`` starts a private server (tests/support/postgres.py) with a fresh database for
each of the two, ``--database-url`` (or ``DATABASE_URL``) names one both use. The load
generator is a small asyncio HTTP/1.1 client with one keep-alive connection per simulated
player. Each level is bounded by a request count
and a time limit, after a short warm-up; every figure is measured on loopback only.

A client of the game server plays whole deals: it places the current card on the next empty
cell with the version of the previous answer, and deals a new game after 25 cards (deals are
not timed). Output: requests/s, p50 and p99 latency per level and server, the ratios, and
the server process's CPU time per request (over every request of the level: warm-up and deals
included), which a busy machine disturbs less than the rates.

``--profile DIR`` samples the game server with py-spy (the ``bench`` extra) while the move
level runs: DIR/move-<clients>.txt holds the collapsed stacks (all threads, idle ones
left out), and the report adds the frames the server spent its samples in (self and
inclusive shares of the samples).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
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

HOST = "127.0.0.1"
CELLS = [(r, c) for r in range(5) for c in range(5)]


# -- the three servers --------------------------------------------------------------------
def bare_app() -> Any:
    """The floor: FastAPI with one endpoint returning a constant."""
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/bare")
    async def bare() -> dict[str, bool]:
        return {"ok": True}

    return app


def durable_app(data: Path) -> Any:
    """The floor for a saved move: FastAPI with one endpoint that makes one durable write
    through the game store itself (the same SQLite file mode, WAL with synchronous=NORMAL
    and BEGIN IMMEDIATE, or the same PostgreSQL pool), in the threadpool as the game routes
    do, and returns a constant."""
    from fastapi import FastAPI

    from cardtable.server import Settings
    from cardtable.server.core.store import open_store

    store = open_store(Settings(data_dir=data))
    with store.transaction() as tx:  # type: ignore[attr-defined]
        tx.execute(
            "INSERT INTO maintenance (name, ran_at) VALUES ('bench', 0) "
            "ON CONFLICT (name) DO NOTHING"
        )
    app = FastAPI()

    @app.post("/durable")
    def durable() -> dict[str, bool]:
        with store.transaction() as tx:  # type: ignore[attr-defined]
            tx.execute(
                store._sql("UPDATE maintenance SET ran_at = ran_at + 1 WHERE name = 'bench'")  # type: ignore[attr-defined]
            )
        return {"ok": True}

    return app


def serve(
    kind: str, port: int, data: str, workers: int = 1, loop: str = "asyncio", http: str = "h11"
) -> None:
    """Run one server in this process (the benchmark starts three of these), with the
    settings `cardtable serve` uses (`cardtable.server.core.serving.uvicorn_config`); the game
    server exactly as `cardtable serve --workers N` runs it."""
    import uvicorn

    from cardtable.cli.serve_workers import run, settings_from
    from cardtable.server import Settings, create_app
    from cardtable.server.core.serving import uvicorn_config

    if kind == "app":
        # Rate limits off: one benchmark client makes hundreds of requests a second.
        options: dict[str, Any] = {
            "data": data, "forwarded_allow_ips": [], "max_connections": None,
            "request_timeout": 10.0, "player_rate": None, "search_rate": 2.0, "signup_rate": None,
        }  # fmt: skip
        if workers > 1:
            run(options, host=HOST, port=port, workers=workers, access_log=False,
                log_level="warning")  # fmt: skip
            return
        settings = settings_from(options)
        config = uvicorn_config(
            create_app(settings), settings, host=HOST, port=port, access_log=False,
            log_level="warning", loop=loop,
        )  # fmt: skip
        if http == "httptools":  # to measure the parser only: without the guards
            config.http = "httptools"
        uvicorn.Server(config).run()
        return
    settings = Settings(data_dir=Path(data), player_rate=None, signup_rate=None)
    app = bare_app() if kind == "bare" else durable_app(Path(data))
    config = uvicorn_config(
        app, settings, host=HOST, port=port, access_log=False, log_level="warning", loop=loop
    )
    if http == "httptools":
        config.http = "httptools"
    uvicorn.Server(config).run()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def server(
    kind: str,
    data: Path,
    database_url: str | None = None,
    timeout: float = 60.0,
    workers: int = 1,
    extra: Sequence[str] = (),
) -> Iterator[tuple[int, int]]:
    """Start one server; yield its (port, process id)."""
    port = free_port()
    cmd = [sys.executable, "-m", "bench.server_load", "--serve", kind, "--port", str(port),
           "--workers", str(workers), *extra]  # fmt: skip
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    # A session of its own: whatever the server starts (the search pool's workers) is
    # stopped with it below, even if it outlives the server.
    proc = subprocess.Popen(
        [*cmd, "--data", str(data)],
        cwd=Path(__file__).parent.parent,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        url = f"http://{HOST}:{port}/openapi.json"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the {kind} server did not start") from None
                time.sleep(0.05)
        yield port, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


# -- a minimal HTTP/1.1 keep-alive client -----------------------------------------------
class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int):
        self.reader, self.writer, self.port = reader, writer, port

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        return cls(reader, writer, port)

    async def post(self, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        head = [f"POST {path} HTTP/1.1", f"Host: {HOST}:{self.port}",
                "Content-Type: application/json", f"Content-Length: {len(data)}"]  # fmt: skip
        head += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return status, json.loads(payload) if payload else None

    def close(self) -> None:
        self.writer.close()


# -- workloads ----------------------------------------------------------------------------
@dataclass
class Level:
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    elapsed: float = 0.0
    cpu: float = 0.0
    """CPU seconds the server process used over the level."""
    calls: int = 0
    """Every request of the level: timed, warm-up and (for moves) the deals."""

    def summary(self) -> dict[str, float]:
        lat = sorted(self.latencies)
        n = len(lat)
        return {
            "clients": self.clients,
            "requests": n,
            "errors": self.errors,
            "rps": n / self.elapsed if self.elapsed else 0.0,
            "p50_ms": 1000 * lat[n // 2] if n else float("nan"),
            "p99_ms": 1000 * lat[min(n - 1, int(n * 0.99))] if n else float("nan"),
            "mean_ms": 1000 * statistics.fmean(lat) if n else float("nan"),
            "cpu_ms": 1000 * self.cpu / self.calls if self.calls else float("nan"),
        }


class Budget:
    """Shared bound of one level: timed requests left and the time limit."""

    def __init__(self, requests: int, warmup: int, seconds: float) -> None:
        self.left = requests + warmup
        self.warmup = warmup
        self.deadline = time.monotonic() + seconds
        self.started: float | None = None

    def take(self) -> bool | None:
        """True: a timed request; False: a warm-up request; None: stop."""
        if self.left <= 0 or time.monotonic() > self.deadline:
            return None
        self.left -= 1
        if self.warmup > 0:
            self.warmup -= 1
            return False
        if self.started is None:
            self.started = time.perf_counter()
        return True


async def bare_client(port: int, budget: Budget, level: Level, path: str = "/bare") -> None:
    conn = await Connection.open(port)
    try:
        while (timed := budget.take()) is not None:
            t = time.perf_counter()
            level.calls += 1
            status, _ = await conn.post(path, {"version": 1, "row": 0, "col": 0}, {})
            if timed:
                level.latencies.append(time.perf_counter() - t)
                level.errors += status != 200
    finally:
        conn.close()


async def new_deal(
    conn: Connection, headers: dict[str, str], level: Level | None = None
) -> dict[str, Any]:
    if level is not None:
        level.calls += 1
    status, game = await conn.post("/api/poker-squares/games", {"table": "american"}, headers)
    if status != 201:
        raise RuntimeError(f"could not deal a game: {status} {game}")
    result: dict[str, Any] = game
    return result


async def move_client(port: int, player: str, budget: Budget, level: Level) -> None:
    conn = await Connection.open(port)
    headers = {"X-Player-Id": player}
    try:
        game = await new_deal(conn, headers, level)
        cell = 0
        while (timed := budget.take()) is not None:
            if cell == len(CELLS):
                game, cell = await new_deal(conn, headers, level), 0
            row, col = CELLS[cell]
            body = {"version": game["version"], "row": row, "col": col}
            t = time.perf_counter()
            level.calls += 1
            status, answer = await conn.post(
                f"/api/poker-squares/games/{game['id']}/moves", body, headers
            )
            if timed:
                level.latencies.append(time.perf_counter() - t)
                level.errors += status != 200
            if status == 200:
                game, cell = answer, cell + 1
            else:
                game, cell = await new_deal(conn, headers, level), 0
    finally:
        conn.close()


async def new_players(port: int, n: int) -> list[str]:
    conn = await Connection.open(port)
    try:
        out = []
        for _ in range(n):
            status, answer = await conn.post("/api/players", {}, {})
            if status != 201:
                raise RuntimeError(f"could not create a player: {status} {answer}")
            out.append(answer["player_id"])
        return out
    finally:
        conn.close()


async def run_level(
    kind: str, port: int, clients: int, requests: int, seconds: float, players: Sequence[str]
) -> Level:
    level = Level(clients)
    budget = Budget(requests, warmup=max(50, 2 * clients), seconds=seconds)
    if kind in ("bare", "durable"):
        tasks = [bare_client(port, budget, level, f"/{kind}") for _ in range(clients)]
    else:
        tasks = [move_client(port, players[i], budget, level) for i in range(clients)]
    await asyncio.gather(*tasks)
    if budget.started is not None:
        level.elapsed = time.perf_counter() - budget.started
    return level


# -- the run ------------------------------------------------------------------------------
@contextmanager
def databases(postgres: bool, url: str | None) -> Iterator[tuple[str | None, str | None]]:
    """The (game server, durable server) database URLs: None for SQLite."""
    if url is not None:
        yield url, url
        return
    if not postgres:
        yield None, None
        return
    import psycopg

    from tests.support.postgres import start_postgres

    with start_postgres() as admin:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in ("bench_app", "bench_durable"):
                conn.execute(f"CREATE DATABASE {name}")
        base = admin.rsplit("/", 1)[0]
        yield f"{base}/bench_app", f"{base}/bench_durable"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time so far of process ``pid`` and every process below it that is
    still running (a server's workers and search pool; Linux /proc; 0 elsewhere)."""
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if entry.isdigit():
            try:
                stats[int(entry)] = (
                    Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
                )
            except OSError:
                continue
    tree, todo = set(), [pid]
    while todo:
        tree.add(p := todo.pop())
        todo += [c for c, fields in stats.items() if int(fields[1]) == p and c not in tree]
    ticks = sum(int(stats[p][11]) + int(stats[p][12]) for p in tree if p in stats)
    return ticks / os.sysconf("SC_CLK_TCK")


def settle(pid: int, timeout: float = 90.0) -> None:
    """Wait until the server's processes (its workers, their search pools preloading the
    engines) have finished starting: under a tenth of a core for half a second."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        before = cpu_seconds(pid)
        time.sleep(0.5)
        if cpu_seconds(pid) - before < 0.05:
            return


@contextmanager
def sampling(pid: int, out: Path | None) -> Iterator[None]:
    """py-spy samples process ``pid`` (all threads, idle ones left out) into ``out`` (the
    collapsed stacks) while the block runs; nothing when ``out`` is None."""
    if out is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    cmd = [spy, "record", "--pid", str(pid), "--format", "raw", "--output", str(out),
           "--rate", "250", "--threads", "--nonblocking"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # py-spy attaches
        yield
    finally:
        proc.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def measure(
    levels: Sequence[int],
    requests: int,
    seconds: float,
    *,
    postgres: bool = False,
    database_url: str | None = None,
    profile: Path | None = None,
    workers: int = 1,
    extra: Sequence[str] = (),
) -> dict[str, list[dict[str, float]]]:
    results: dict[str, list[dict[str, float]]] = {"move": [], "durable": [], "bare": []}
    data = Path(tempfile.mkdtemp(prefix="cardtable-bench-"))
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
    try:
        with (
            databases(postgres, database_url) as (app_db, durable_db),
            server("app", data / "app", app_db, workers=workers, extra=extra) as (
                app_port,
                app_pid,
            ),
            server("durable", data / "durable", durable_db, extra=extra) as (
                durable_port,
                durable_pid,
            ),
            server("bare", data / "bare", extra=extra) as (bare_port, bare_pid),
        ):
            settle(app_pid)
            players = asyncio.run(new_players(app_port, max(levels)))
            for clients in levels:
                # Interleaved, level by level, so that a change in the machine's other load
                # shifts all three alike.
                for kind, port, pid in (
                    ("move", app_port, app_pid),
                    ("durable", durable_port, durable_pid),
                    ("bare", bare_port, bare_pid),
                ):
                    out = None
                    if profile is not None and kind == "move":
                        out = profile / f"move-{clients}.txt"
                    with sampling(pid, out):
                        cpu = cpu_seconds(pid)
                        level = asyncio.run(
                            run_level(kind, port, clients, requests, seconds, players)
                        )
                        level.cpu = cpu_seconds(pid) - cpu
                    results[kind].append(level.summary())
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return results


def report(results: dict[str, list[dict[str, float]]], store: str, workers: int = 1) -> str:
    lines = [
        f"Poker Squares move vs one durable write vs a constant (store: {store}); "
        f"uvicorn as `cardtable serve` runs it, game server {workers} worker(s), the floors "
        f"1, loopback, {os.cpu_count()} CPUs",
        f"{'clients':>7}  {'server':<8} {'requests':>8} {'errors':>6} {'req/s':>8} "
        f"{'p50 ms':>8} {'p99 ms':>8} {'CPU ms/req':>10}",
    ]
    for move, durable, bare in zip(
        results["move"], results["durable"], results["bare"], strict=True
    ):
        for name, r in (("move", move), ("durable", durable), ("bare", bare)):
            lines.append(
                f"{r['clients']:>7}  {name:<8} {r['requests']:>8} {r['errors']:>6} "
                f"{r['rps']:>8.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
                f"{r['cpu_ms']:>10.2f}"
            )
        lines.append(
            f"{'':>7}  move/durable {ratio(move, durable):.2f}  move/bare {ratio(move, bare):.2f}"
            "  (goals: 0.70 and 0.40)"
        )
    return "\n".join(lines)


def hot_frames(collapsed: Path, top: int = 15) -> str:
    """The frames of py-spy's collapsed stacks (``frame;frame;... count`` lines) by their
    share of all samples: self (the innermost frame) and inclusive (anywhere on the stack,
    counted once per sample)."""
    own: dict[str, int] = {}
    anywhere: dict[str, int] = {}
    total = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        # The thread name, when py-spy writes one, is the first frame: not a function.
        frames = [f for f in stack.split(";") if not f.startswith(("thread ", "process "))]
        if not frames:
            continue
        total += n
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for f in set(frames):
            anywhere[f] = anywhere.get(f, 0) + n
    if not total:
        return f"{collapsed.name}: no samples"
    lines = [f"{collapsed.name}: {total} samples (busy threads only)", "  self:"]
    for f, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"    {100 * n / total:5.1f}%  {f}")
    lines.append("  inclusive (cardtable frames):")
    ours = [(f, n) for f, n in anywhere.items() if "cardtable/" in f or "bench/" in f]
    for f, n in sorted(ours, key=lambda kv: -kv[1])[:top]:
        lines.append(f"    {100 * n / total:5.1f}%  {f}")
    return "\n".join(lines)


def ratio(a: dict[str, float], b: dict[str, float]) -> float:
    return a["rps"] / b["rps"] if b["rps"] else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server_load", description=__doc__)
    parser.add_argument("--levels", default="1,16,64", help="concurrent clients (1,16,64)")
    parser.add_argument("--requests", type=int, default=2000, help="timed requests per level")
    parser.add_argument("--seconds", type=float, default=8.0, help="time limit per level")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    db = parser.add_mutually_exclusive_group()
    db.add_argument("--postgres", action="store_true", help="start a private PostgreSQL and use it")
    db.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL") or None,
        help="a postgresql:// URL both stores use (default: DATABASE_URL, else SQLite)",
    )
    parser.add_argument("--profile", type=Path, help="sample the game server with py-spy")
    parser.add_argument(
        "--loop", choices=["asyncio", "uvloop"], default="asyncio", help="the servers' event loop"
    )
    parser.add_argument(
        "--http",
        choices=["h11", "httptools"],
        default="h11",
        help="the servers' HTTP parser (httptools: without the connection guards, to measure)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="game server worker processes (1; >1 needs PostgreSQL)",
    )
    parser.add_argument("--serve", choices=["app", "bare", "durable"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--data", default="data", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.port, args.data, args.workers, args.loop, args.http)
        return 0
    levels = [int(x) for x in args.levels.split(",")]
    if not levels or min(levels) < 1 or max(levels) > 256:
        parser.error("levels are 1-256 clients")
    if not 1 <= args.requests <= 100_000 or not 0 < args.seconds <= 120:
        parser.error("requests must be 1-100000 and seconds 0-120")
    url = None if args.postgres else args.database_url
    results = measure(
        levels,
        args.requests,
        args.seconds,
        postgres=args.postgres,
        database_url=url,
        profile=args.profile,
        workers=args.workers,
        extra=["--loop", args.loop, "--http", args.http],
    )
    store = "PostgreSQL" if args.postgres or url else "SQLite (WAL)"
    print(report(results, store, args.workers))
    print(f"servers: loop {args.loop}, parser {args.http}; load average {os.getloadavg()}")
    if args.profile is not None:
        for clients in levels:
            print(hot_frames(args.profile / f"move-{clients}.txt"))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
