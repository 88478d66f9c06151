"""Online Kings Corner under load: how long a move takes to reach the other devices of its
table, what a live connection costs the server, and whether any move is lost or doubled.

    python -m bench.online [--tables 200] [--moves 15] [--think 3] [--clients 4]
                           [--processes 2] [--sqlite | --postgres | --both]

Everything runs on loopback. Each setup starts real ``cardtable serve`` processes
(subprocesses, access log off): ``--sqlite`` one process on a temporary SQLite folder,
``--postgres`` ``--processes`` (2) processes sharing one throwaway PostgreSQL (``DATABASE_URL``
if set, else a private server started the way the tests start theirs,
tests/support/postgres.py), with the devices of each table split over two of the processes
(alternating by table) so most deliveries cross processes through LISTEN/NOTIFY; every process
hears every table's NOTIFY, so what a move costs beyond two processes is the fan-out's cost
(docs/operating.md, "Grow"). ``--both`` (the default) runs one after the other.

Each table has three devices, each its own player id and its own loopback address (127.1.x.y,
so the per-address limits see separate clients, as for real people): the host creates the
table with two invite seats, two friends join, every device opens its live WebSocket (one
``websockets`` connection each: 600 for 200 tables), the host starts. Then every table plays
``--moves`` moves through the HTTP API (``httpx``), one at a time: the device whose turn it is
waits a random think time (uniform, mean ``--think`` seconds), picks a legal move from its
own view (a card move 70% of the time when there is one, else "end"), POSTs it, and the
table waits until all three devices have received it live (10 s at most).

Figures per setup:

- latency: for each move and each OTHER device of its table, from just before the POST is
  sent to the moment that device's client reads the first live message at the move's version
  or later (p50/p95/p99/max over all deliveries; with two processes also over the deliveries
  that crossed processes). The client shares the machine's cores with the servers, so this
  includes its own queueing.
- memory per connection: the servers' resident memory (VmRSS of each ``cardtable serve``)
  after the tables exist and before any live connection, and again once every connection is
  open and every device has seen all three seats online; the difference over the number of
  connections.
- server CPU per move: the CPU time the ``cardtable serve`` processes used while the moves
  were played, over the number of moves (the move itself, its pushes to three devices, and
  the background work: presence, driver, poll): what bounds the moves per second one core
  can carry, whatever else the machine runs.
- PostgreSQL CPU per move (``--postgres``, with a private server): the CPU time its
  processes (the postmaster and its children: the connections' backends) used while the moves
  were played, over the number of moves.
- errors: failed requests, live connections that closed or never opened, deliveries that
  did not arrive within 10 s.
- lost and duplicated moves: the moves are the log entries the POST answers report (round,
  ``n``, seat, move). Each device keeps every log entry it is sent live; afterwards its
  entries must be exactly the table's (none missing: lost; none extra or differing: doubled),
  with each round's ``n`` running 1, 2, 3 ... without a gap or a repeat.

The devices are spread over ``--clients`` client processes (tables dealt round-robin), which
meet at barriers so that memory is read while every client is idle and all start playing
together; one Python process would itself be the bottleneck at 600 connections.

The whole run is bounded: every wait has a timeout and each setup has ``--deadline`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
BASE = "/api/kings-corner/online"
DELIVERY_WAIT = 10.0
SETUP_CONCURRENCY = 40
NAMES = ("Ann", "Bob", "Cy")


# -- servers ---------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` (``VmRSS`` in /proc/<pid>/status), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) process ``pid`` has used so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve_flags() -> list[str]:
    """``--no-access-log`` when this ``cardtable serve`` has it (an access log line per
    request would be part of what is measured)."""
    done = subprocess.run(
        [sys.executable, "-m", "cardtable.cli.main", "serve", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return ["--no-access-log"] if "--no-access-log" in done.stdout else []


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    base: str
    log: Path


@contextlib.contextmanager
def serve(
    name: str, data: Path, log: Path, database_url: str | None, timeout: float = 60.0
) -> Iterator[Server]:
    """``cardtable serve`` on a free loopback port until the block ends."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--host", HOST,
           "--port", str(port), "--data", str(data), *_serve_flags()]  # fmt: skip
    with log.open("ab") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out)
    server = Server(name, proc, f"http://{HOST}:{port}", log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{server.base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"cardtable serve did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


# -- devices ---------------------------------------------------------------------------------
@dataclass
class Device:
    index: int
    server: Endpoint
    address: str
    http: httpx.AsyncClient
    player: str = ""
    ws: ClientConnection | None = None
    latest: dict[str, Any] | None = None
    seen: dict[int, float] = field(default_factory=dict)
    """Version -> when a live message at that version was first read (perf_counter)."""
    entries: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    """(round, n) -> (seat, move, turn) of every log entry received live."""
    conflicts: int = 0
    """Log entries received twice with different content, or repeated within a message."""
    version: int = -1
    """The newest version received live."""
    reader: asyncio.Task[None] | None = None
    closed_early: bool = False
    news: asyncio.Event = field(default_factory=asyncio.Event)

    def headers(self) -> dict[str, str]:
        return {"X-Player-Id": self.player}

    def keep(self, table: dict[str, Any]) -> None:
        if self.latest is None or table["version"] >= self.latest["version"]:
            self.latest = table

    def heard(self, table: dict[str, Any], at: float) -> None:
        version = table["version"]
        self.seen.setdefault(version, at)
        self.keep(table)
        rnd = (table.get("match") or {}).get("round", 0)
        numbers = [e["n"] for e in table.get("log") or []]
        if len(numbers) != len(set(numbers)):
            self.conflicts += 1
        for e in table.get("log") or []:
            entry = (e["seat"], e["move"], e["turn"])
            old = self.entries.setdefault((rnd, e["n"]), entry)
            if old != entry:
                self.conflicts += 1
        if version > self.version:
            self.version = version
            self.news.set()

    async def wait_version(self, version: int, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while self.version < version:
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.news.clear()
            if self.version >= version:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), left)
        return True


def address(i: int) -> str:
    """A loopback address of its own for device ``i`` (127.1.0.1, 127.1.0.2, ...)."""
    return f"127.1.{i // 250}.{i % 250 + 1}"


@dataclass
class Stats:
    errors: dict[str, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    cross: list[float] = field(default_factory=list)
    moves: int = 0
    undelivered: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


@dataclass
class Move:
    mover: int
    version: int
    sent: float


@dataclass
class Table:
    index: int
    devices: list[Device]
    token: str = ""
    moves: list[Move] = field(default_factory=list)
    entries: dict[tuple[int, int], tuple[Any, ...]] = field(default_factory=dict)
    """Every log entry the POST answers reported: the table's own record of its moves."""


async def request(
    device: Device,
    stats: Stats,
    method: str,
    path: str,
    body: Any = None,
    ok: int = 200,
    tries: int = 1,
) -> dict[str, Any] | None:
    """The answer's JSON, or None (the failure counted in ``stats``). ``tries`` > 1 repeats
    a request whose connection failed (set-up steps: a repeated join changes nothing)."""
    for attempt in range(tries):
        try:
            r = await device.http.request(method, path, json=body, headers=device.headers())
            break
        except httpx.HTTPError as exc:
            if attempt + 1 < tries:
                continue
            stats.error(f"{method} {path.split('/')[-1]}: {type(exc).__name__}")
            return None
    if r.status_code != ok:
        code = r.json().get("code") if "json" in r.headers.get("content-type", "") else ""
        stats.error(f"{method} {path.split('/')[-1]}: {r.status_code} {code}")
        return None
    data: dict[str, Any] = r.json()
    return data


async def read_live(device: Device, stats: Stats) -> None:
    assert device.ws is not None
    try:
        async for text in device.ws:
            at = time.perf_counter()
            msg = json.loads(text)
            if msg.get("type") == "table":
                device.heard(msg["table"], at)
            elif msg.get("type") != "pong":
                stats.error(f"live message {msg.get('type')}")
    except Exception as exc:
        code = getattr(getattr(exc, "rcvd", None), "code", None)  # the server's close code
        stats.error(f"live connection: {type(exc).__name__}" + (f" {code}" if code else ""))
    device.closed_early = True


async def bounded(n: int, jobs: list[Any]) -> list[Any]:
    """Run coroutines at most ``n`` at a time."""
    gate = asyncio.Semaphore(n)

    async def one(job: Any) -> Any:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in jobs)))


# -- one setup ---------------------------------------------------------------------------------
async def setup_tables(tables: list[Table], stats: Stats) -> None:
    devices = [d for t in tables for d in t.devices]

    async def signup(d: Device) -> None:
        data = await request(d, stats, "POST", "/api/players", ok=201, tries=3)
        if data is None:
            raise RuntimeError(f"no player id: {stats.errors}")
        d.player = data["player_id"]

    await bounded(SETUP_CONCURRENCY, [signup(d) for d in devices])

    async def seat(t: Table) -> None:
        host, bob, cy = t.devices
        body = {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}, {"kind": "invite"}],
                "rounds": 5}  # fmt: skip
        made = await request(host, stats, "POST", BASE, body, ok=201, tries=3)
        if made is None:
            raise RuntimeError(f"no table: {stats.errors}")
        t.token = made["token"]
        table = made["table"]
        for name, friend in zip(NAMES[1:], (bob, cy), strict=True):
            joined = await request(
                friend, stats, "POST", f"{BASE}/{t.token}/join",
                {"version": table["version"], "name": name}, tries=3,
            )  # fmt: skip
            if joined is None:
                raise RuntimeError(f"no join: {stats.errors}")
            table = joined

    await bounded(SETUP_CONCURRENCY, [seat(t) for t in tables])


async def open_live(tables: list[Table], stats: Stats) -> None:
    async def one(t: Table, d: Device) -> None:
        url = f"{d.server.ws}{BASE}/{t.token}/live"
        try:
            d.ws = await connect(
                url, open_timeout=20, close_timeout=2, local_addr=(d.address, 0),
                max_queue=None,
            )  # fmt: skip
            await d.ws.send(json.dumps({"type": "hello", "player": d.player, "version": None}))
        except Exception as exc:
            stats.error(f"live connect: {type(exc).__name__}")
            return
        d.reader = asyncio.create_task(read_live(d, stats))
        # Hold the slot until the server has answered the hello with the table: at most
        # SETUP_CONCURRENCY hellos per client process are in flight, as when people arrive
        # over a few seconds (all at once, a busy server closes the oldest waiting ones with
        # 4408 beyond `OnlineSettings.hello_total`, and the page reconnects later).
        await d.wait_version(1, 30)

    await bounded(SETUP_CONCURRENCY, [one(t, d) for t in tables for d in t.devices])


async def settle(tables: list[Table], test: Any, timeout: float) -> bool:
    """Until every device's newest live table passes ``test``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(d.latest is not None and test(d.latest) for t in tables for d in t.devices):
            return True
        await asyncio.sleep(0.1)
    return False


def all_online(table: dict[str, Any]) -> bool:
    return all(s["connection"] == "online" for s in table["seats"])


async def start(tables: list[Table], stats: Stats) -> None:
    async def one(t: Table) -> None:
        host = t.devices[0]
        for _ in range(5):
            if host.latest is None:  # its live socket never delivered the table
                stats.error("start: the host never heard its table")
                return
            started = await request(
                host, stats, "POST", f"{BASE}/{t.token}/start",
                {"version": host.latest["version"]},
            )  # fmt: skip
            if started is not None:
                host.keep(started)
                return
            await asyncio.sleep(0.2)

    await bounded(SETUP_CONCURRENCY, [one(t) for t in tables])


async def play(t: Table, moves: int, think: float, stats: Stats, rng: random.Random) -> None:
    made = 0
    for _ in range(moves * 4):
        if made >= moves:
            return
        await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
        heard = [d.latest for d in t.devices if d.latest]
        if not heard:
            stats.error("play: no device of the table heard it live")
            return
        latest = max(heard, key=lambda x: x["version"])
        if latest["phase"] == "match_over":
            return
        if latest["phase"] == "round_over":
            await request(
                t.devices[0], stats, "POST", f"{BASE}/{t.token}/next-round",
                {"version": latest["version"]},
            )  # fmt: skip
            await all_have(t, latest["version"] + 1, stats, count=False)
            continue
        if latest["turn"] is None:
            continue
        mover = t.devices[latest["turn"]["seat"]]
        mine = mover.latest
        if mine is None or mine["version"] != latest["version"]:
            continue
        legal = mine["view"]["legal_moves"]
        cards = [m for m in legal if m != "end"]
        move = rng.choice(cards) if cards and rng.random() < 0.7 else "end"
        if move not in legal:
            move = legal[0]
        sent = time.perf_counter()
        done = await request(
            mover, stats, "POST", f"{BASE}/{t.token}/moves",
            {"version": mine["version"], "move": move},
        )  # fmt: skip
        if done is None:
            fresh = await request(mover, stats, "GET", f"{BASE}/{t.token}")
            if fresh is not None:
                mover.keep(fresh)
            continue
        made += 1
        stats.moves += 1
        mover.keep(done)
        rnd = (done.get("match") or {}).get("round", 0)
        for e in done["log"]:
            t.entries.setdefault((rnd, e["n"]), (e["seat"], e["move"], e["turn"]))
        t.moves.append(Move(t.devices.index(mover), done["version"], sent))
        await all_have(t, done["version"], stats)


async def all_have(t: Table, version: int, stats: Stats, count: bool = True) -> None:
    arrived = await asyncio.gather(*(d.wait_version(version, DELIVERY_WAIT) for d in t.devices))
    if count:
        stats.undelivered += arrived.count(False)


def measure(tables: list[Table], stats: Stats) -> tuple[int, int]:
    """Latencies into ``stats``; (lost, doubled) moves over every device."""
    lost = doubled = 0
    for t in tables:
        for m in t.moves:
            for i, d in enumerate(t.devices):
                if i == m.mover:
                    continue
                at = [when for v, when in d.seen.items() if v >= m.version]
                if not at:
                    continue  # counted as undelivered
                ms = (min(at) - m.sent) * 1000
                stats.latencies.append(ms)
                if d.server != t.devices[m.mover].server:
                    stats.cross.append(ms)
        for d in t.devices:
            lost += len(set(t.entries) - set(d.entries))
            extra = set(d.entries) - set(t.entries)
            differ = sum(1 for k in set(d.entries) & set(t.entries) if d.entries[k] != t.entries[k])
            doubled += len(extra) + differ + d.conflicts
            for rnd in {r for r, _ in d.entries}:
                ns = sorted(n for r, n in d.entries if r == rnd)
                if ns != list(range(1, len(ns) + 1)):
                    lost += 1
    return lost, doubled


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


@contextlib.asynccontextmanager
async def clients(tables: list[Table]) -> AsyncIterator[None]:
    try:
        yield
    finally:
        devices = [d for t in tables for d in t.devices]
        for d in devices:
            if d.reader is not None:
                d.reader.cancel()

        async def close(d: Device) -> None:
            if d.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(d.ws.close(), 5)
            await d.http.aclose()

        await bounded(100, [close(d) for d in devices])


@dataclass(frozen=True)
class Endpoint:
    """What a client process knows of a server: its name and base URL."""

    name: str
    base: str

    @property
    def ws(self) -> str:
        return self.base.replace("http://", "ws://")


@dataclass(frozen=True)
class Plan:
    endpoints: list[Endpoint]
    tables: list[int]
    """The tables (global numbers) this client process plays."""
    moves: int
    think: float
    seed: int


def make_tables(plan: Plan) -> list[Table]:
    tables = []
    for ti in plan.tables:
        devices = []
        for k in range(3):
            i = ti * 3 + k
            # Two processes: the host and the second friend on one, the first friend on the
            # other, alternating by table, so each move has local and cross-process watchers.
            server = plan.endpoints[(ti + (k == 1)) % len(plan.endpoints)]
            # Plain HTTP on loopback: no TLS context (httpx would load the CA bundle for
            # each client, about half a second each) and no proxy from the environment.
            # Idle keep-alive connections are dropped before the server's 5 s keep-alive
            # ends (as browsers do), so a request never races the server's close.
            transport = httpx.AsyncHTTPTransport(
                local_address=address(i),
                retries=0,
                verify=False,
                limits=httpx.Limits(keepalive_expiry=3.0),
            )
            http = httpx.AsyncClient(
                base_url=server.base,
                transport=transport,
                timeout=httpx.Timeout(30.0),
                verify=False,
                trust_env=False,
            )
            devices.append(Device(i, server, address(i), http))
        tables.append(Table(ti, devices))
    return tables


async def client(plan: Plan, barrier: Any) -> dict[str, Any]:
    """One client process's share of the tables: set up, wait for the others (barrier),
    connect live and start, wait, play, and return its raw figures."""
    stats = Stats()
    rng = random.Random(f"{plan.seed}:{plan.tables[:1]}")
    tables = make_tables(plan)

    async def together() -> None:
        await asyncio.to_thread(barrier.wait, 300)

    async with clients(tables):
        await setup_tables(tables, stats)
        await together()  # 1: every table exists (memory before connections)
        await together()  # 2: measured
        await open_live(tables, stats)
        if not await settle(tables, all_online, 60):
            stats.error("not every seat came online within 60 s")
        await start(tables, stats)
        if not await settle(tables, lambda x: x["phase"] == "play" and all_online(x), 60):
            stats.error("not every table started within 60 s")
        await together()  # 3: every connection is open (memory after connections)
        await together()  # 4: measured: play
        cpu = time.process_time()
        await asyncio.gather(*(play(t, plan.moves, plan.think, stats, rng) for t in tables))
        cpu = time.process_time() - cpu
        await asyncio.sleep(0.5)
        lost, doubled = measure(tables, stats)
        return {
            "connections": sum(1 for t in tables for d in t.devices if d.ws is not None),
            "moves": stats.moves,
            "latencies": stats.latencies,
            "cross": stats.cross,
            "undelivered": stats.undelivered,
            "lost": lost,
            "doubled": doubled,
            "closed": sum(1 for t in tables for d in t.devices if d.closed_early),
            "errors": stats.errors,
            "client_cpu": cpu,
        }


def client_process(plan: Plan, barrier: Any, results: Any) -> None:
    """Entry of a client process: its figures (or its failure) go to ``results``."""
    try:
        results.put(asyncio.run(client(plan, barrier)))
    except BaseException as exc:
        barrier.abort()
        results.put({"errors": {f"client: {type(exc).__name__}: {exc}": 1}})


def postgres_pids(url: str) -> list[int]:
    """The processes of the PostgreSQL server at ``url`` when it runs on this machine (its
    postmaster and the postmaster's children); empty if they cannot be found."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            row = conn.execute("SHOW data_directory").fetchone()
        assert row is not None
        master = int((Path(row[0]) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, AssertionError, psycopg.Error):
        return []
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rpartition(")")[2].split()[1]) == master:
                children.append(int(stat.parent.name))
    return [master, *children]


def _cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


def run_setup(
    label: str, servers: list[Server], args: argparse.Namespace, database_url: str | None = None
) -> dict[str, Any]:
    """One setup with ``args.clients`` client processes sharing the tables."""
    load_before = os.getloadavg()[0]
    endpoints = [Endpoint(s.name, s.base) for s in servers]
    n = max(1, min(args.clients, args.tables))
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(n + 1)
    results = ctx.Queue()
    plans = [
        Plan(endpoints, list(range(k, args.tables, n)), args.moves, args.think, args.seed)
        for k in range(n)
    ]
    procs = [ctx.Process(target=client_process, args=(p, barrier, results)) for p in plans]
    print(f"[{label}] {args.tables} tables, {args.tables * 3} devices, {n} client processes",
          flush=True)  # fmt: skip
    t0 = time.monotonic()
    for proc in procs:
        proc.start()
    outcome: list[dict[str, Any]] = []
    try:
        deadline = time.monotonic() + args.deadline
        barrier.wait(args.deadline)  # 1
        time.sleep(1.0)
        before = sum(rss_kib(s.proc.pid) for s in servers)
        barrier.wait(60)  # 2
        barrier.wait(max(1.0, deadline - time.monotonic()))  # 3
        time.sleep(1.0)
        after = sum(rss_kib(s.proc.pid) for s in servers)
        setup_s = time.monotonic() - t0
        print(f"[{label}] set up in {setup_s:.1f} s; playing ...", flush=True)
        cpu_before = sum(cpu_seconds(s.proc.pid) for s in servers)
        pg = postgres_pids(database_url) if database_url else []
        pg_before = _cpu_of(pg)
        t1 = time.monotonic()
        barrier.wait(60)  # 4
        for _ in procs:
            outcome.append(results.get(timeout=max(1.0, deadline - time.monotonic())))
        play_s = time.monotonic() - t1
        cpu_play = sum(cpu_seconds(s.proc.pid) for s in servers) - cpu_before
        pg_play = _cpu_of(pg) - pg_before
    except (threading.BrokenBarrierError, queue.Empty):
        for _ in range(len(procs) - len(outcome)):
            with contextlib.suppress(queue.Empty):
                outcome.append(results.get(timeout=10))
        errors: dict[str, int] = {"the clients did not finish in time": 1}
        for o in outcome:
            errors.update(o.get("errors", {}))
        return {"setup": label, "errors": errors}
    finally:
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()
    errors = {}
    for o in outcome:
        for key, count in o.get("errors", {}).items():
            errors[key] = errors.get(key, 0) + count
    lat = [x for o in outcome for x in o.get("latencies", [])]
    cross = [x for o in outcome for x in o.get("cross", [])]
    moves = sum(o.get("moves", 0) for o in outcome)
    connections = sum(o.get("connections", 0) for o in outcome)
    client_cpu = sum(o.get("client_cpu", 0.0) for o in outcome)
    return {
        "setup": label,
        "processes": len(servers),
        "client_processes": n,
        "tables": args.tables,
        "connections": connections,
        "moves": moves,
        "moves_per_s": round(moves / play_s, 1) if play_s else 0,
        "server_cpu_ms_per_move": round(cpu_play * 1000 / moves, 1) if moves else None,
        "postgres_cpu_ms_per_move": round(pg_play * 1000 / moves, 1) if moves and pg else None,
        "client_cpu_ms_per_move": round(client_cpu * 1000 / moves, 1) if moves else None,
        "deliveries": len(lat),
        "p50_ms": round(percentile(lat, 50), 1),
        "p95_ms": round(percentile(lat, 95), 1),
        "p99_ms": round(percentile(lat, 99), 1),
        "max_ms": round(max(lat), 1) if lat else None,
        "cross_deliveries": len(cross),
        "cross_p95_ms": round(percentile(cross, 95), 1) if cross else None,
        "rss_before_mib": round(before / 1024, 1),
        "rss_after_mib": round(after / 1024, 1),
        "kib_per_connection": round((after - before) / connections, 1) if connections else None,
        "undelivered": sum(o.get("undelivered", 0) for o in outcome),
        "lost": sum(o.get("lost", 0) for o in outcome),
        "doubled": sum(o.get("doubled", 0) for o in outcome),
        "live_closed": sum(o.get("closed", 0) for o in outcome),
        "errors": errors,
        "load_avg_1m": f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        "setup_s": round(setup_s, 1),
        "play_s": round(play_s, 1),
    }


def sqlite_run(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    with serve("A", root / "sqlite-data", root / "sqlite.log", None) as a:
        result = run_setup("sqlite, 1 process", [a], args)
        result["server_log_errors"] = _log_errors(a.log)
        return result


def postgres_run(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT))
    from tests.support.postgres import postgres_server

    with contextlib.ExitStack() as stack:
        url = stack.enter_context(postgres_server())
        servers = [
            stack.enter_context(serve(name, root / f"pg-{name}", root / f"pg-{name}.log", url))
            for name in "ABCDEFGH"[: args.processes]
        ]
        label = f"postgresql, {len(servers)} processes"
        result = run_setup(label, servers, args, url)
        result["server_log_errors"] = sum(_log_errors(s.log) for s in servers)
        return result


def _log_errors(log: Path) -> int:
    text = log.read_text(errors="replace") if log.exists() else ""
    return sum(1 for line in text.splitlines() if "ERROR" in line or "Traceback" in line)


def report(r: dict[str, Any]) -> None:
    print(f"\n== {r['setup']} ==")
    for key, value in r.items():
        if key != "setup":
            print(f"  {key:20} {value}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.online", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--moves", type=int, default=15, help="moves per table (15)")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean seconds between two moves at one table (3)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=4,
                        help="client processes sharing the devices (4)")  # fmt: skip
    parser.add_argument("--deadline", type=float, default=300.0,
                        help="seconds one setup may take at most (300)")  # fmt: skip
    parser.add_argument("--processes", type=int, default=2, choices=range(2, 9),
                        metavar="N", help="server processes on PostgreSQL (2)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the figures here")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sqlite", dest="which", action="store_const", const="sqlite")
    group.add_argument("--postgres", dest="which", action="store_const", const="postgres")
    group.add_argument("--both", dest="which", action="store_const", const="both")
    args = parser.parse_args(argv)
    which = args.which or "both"
    results = []
    root = Path(tempfile.mkdtemp(prefix="cardtable-bench-online-"))
    try:
        if which in ("sqlite", "both"):
            results.append(sqlite_run(args, root))
            report(results[-1])
        if which in ("postgres", "both"):
            results.append(postgres_run(args, root))
            report(results[-1])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    failed = any(
        r.get("errors") or r.get("lost") or r.get("doubled") or r.get("undelivered")
        for r in results
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
