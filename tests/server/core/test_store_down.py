"""Issue 27, the database down (core/store/postgres.py, core/health.py): against a real
`cardtable serve` on a private PostgreSQL that the tests stop (``pg_ctl stop -m immediate``)
and start again on the same port, requests are answered 503 `unavailable` within 2 s, the
store recovers by itself with nothing lost, and `/healthz` answers in under 100 ms even while
every thread of the server's threadpool is taken."""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.postgres import PG_USER, _as_user, _ensure_user, free_port, pg_bin_dir
from tests.support.serve_process import ServeProcess

ROOT = Path(__file__).resolve().parents[3]
DOWN_ANSWER = 2.0
"""Seconds within which a request is answered while the database is down."""
HEALTH_ANSWER = 0.1
"""Seconds within which `/healthz` answers, whatever the store is doing."""


class Postgres:
    """A private PostgreSQL server on a fixed loopback port, to stop and start again."""

    def __init__(self) -> None:
        bindir = pg_bin_dir()
        if bindir is None:
            pytest.skip("PostgreSQL is not installed (make system-packages)")
        self.bindir = bindir
        self.user = None
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            self.user = PG_USER
            _ensure_user(PG_USER)
        self.root = Path(tempfile.mkdtemp(prefix="cardtable-pg-down-", dir="/tmp"))
        if self.user is not None:
            info = pwd.getpwnam(self.user)
            os.chown(self.root, info.pw_uid, info.pw_gid)
        self.data = self.root / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._run(str(bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
                  "-E", "UTF8", "--no-sync", "--no-instructions")  # fmt: skip

    def _run(self, *argv: str) -> None:
        done = subprocess.run(
            _as_user(list(argv), self.user), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        # Commits wait for the WAL to be written (synchronous_commit on), so an immediate
        # stop loses no answered move; fsync stays off: the machine itself does not crash.
        opts = f"-h 127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c full_page_writes=off"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", opts,
                  "-l", str(self.root / "server.log"), "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        """As a crash or a pulled cable looks to the server: no goodbye to the clients."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def remove(self) -> None:
        subprocess.run(
            _as_user(
                [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                self.user,
            ),
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    server = Postgres()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="module")
def served(pg: Postgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    folder = tmp_path_factory.mktemp("store-down")
    server = ServeProcess(folder / "data", folder / "serve.log", database_url=pg.url)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def base(served: ServeProcess) -> Iterator[str]:
    """The server's URL; its log (less the access lines) is shown when a test fails."""
    start = len(served.output())
    yield served.base
    log = served.output()[start:]
    print("\n".join(line for line in log.splitlines() if "HTTP/1.1" not in line)[-3000:])


def new_game(http: httpx.Client) -> dict[str, Any]:
    """A new player (set on ``http``) with a Poker Squares deal and one card placed."""
    player = http.post("/api/players")
    assert player.status_code == 201, player.text
    http.headers["X-Player-Id"] = player.json()["player_id"]
    game = http.post("/api/poker-squares/games", json={}).json()
    move = {"version": game["version"], "row": 0, "col": 0}
    placed = http.post(f"/api/poker-squares/games/{game['id']}/moves", json=move)
    assert placed.status_code == 200, placed.text
    return dict(placed.json())


def timed_health(http: httpx.Client) -> tuple[float, str]:
    start = time.perf_counter()
    r = http.get("/healthz")
    took = time.perf_counter() - start
    assert r.status_code == 200 and r.json()["status"] == "ok", r.text
    return took, str(r.json()["store"])


def wait_for(check: Any, timeout: float) -> float:
    """Call ``check()`` every 50 ms until it is true; the seconds it took (fails after
    ``timeout``)."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < timeout, f"not within {timeout} s"
        time.sleep(0.05)
    return time.monotonic() - start


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_database_down_is_503_within_2_s_and_recovers_with_nothing_lost(
    pg: Postgres, base: str
) -> None:
    with httpx.Client(base_url=base, timeout=30) as http, httpx.Client(base_url=base) as health:
        game = new_game(http)
        assert timed_health(health)[1] == "ok"
        pg.stop()
        answers: list[tuple[int, str, str | None, float]] = []

        def ask(i: int) -> None:
            with httpx.Client(base_url=base, headers=http.headers, timeout=30) as own:
                start = time.perf_counter()
                if i % 2:
                    r = own.get(f"/api/poker-squares/games/{game['id']}")
                else:
                    move = {"version": game["version"], "row": 1, "col": i % 5}
                    r = own.post(f"/api/poker-squares/games/{game['id']}/moves", json=move)
                took = time.perf_counter() - start
                answers.append(
                    (r.status_code, r.json()["code"], r.headers.get("retry-after"), took)
                )

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(answers) == 20
        assert {(a[0], a[1]) for a in answers} == {(503, "unavailable")}, answers
        assert all(a[2] in ("1", "2") for a in answers), answers
        slowest = max(a[3] for a in answers)
        assert slowest < DOWN_ANSWER, answers
        # /healthz says so at once, without waiting for the store.
        wait_for(lambda: timed_health(health)[1] == "degraded", timeout=5)
        took, _ = timed_health(health)
        assert took < HEALTH_ANSWER, took

        pg.start()
        recovery = wait_for(
            lambda: http.get(f"/api/poker-squares/games/{game['id']}").status_code == 200,
            timeout=10,
        )
        again = http.get(f"/api/poker-squares/games/{game['id']}").json()
        assert again["version"] == game["version"]  # nothing lost, nothing half-written
        assert again["view"] == game["view"]
        move = {"version": game["version"], "row": 1, "col": 1}
        moved = http.post(f"/api/poker-squares/games/{game['id']}/moves", json=move)
        assert moved.status_code == 200 and moved.json()["version"] == game["version"] + 1
        assert timed_health(health)[1] == "ok"
    print(f"down: slowest of 20 answers {slowest * 1000:.0f} ms; recovered {recovery:.2f} s")


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_healthz_answers_at_once_while_every_thread_waits(pg: Postgres, base: str) -> None:
    """60 clients keep every thread of the server busy (their requests wait on a table
    another session locked, or for a connection behind those), then the database goes down
    under them: `/healthz` answers within 100 ms throughout. The clients run in a process of
    their own (`crowd` below), so that their threads never hold the measuring process's
    interpreter lock."""
    with httpx.Client(base_url=base, timeout=30) as http, httpx.Client(base_url=base) as health:
        game = new_game(http)
        admin = psycopg.connect(pg.url, autocommit=True)
        admin.execute("BEGIN")
        admin.execute("LOCK TABLE credentials IN ACCESS EXCLUSIVE MODE")
        cmd = [sys.executable, "-m", "tests.server.core.test_store_down", base,
               http.headers["X-Player-Id"], game["id"]]  # fmt: skip
        crowd = subprocess.Popen(
            cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert crowd.stdout is not None and crowd.stdout.readline().strip() == "started"
            time.sleep(2.0)  # every thread taken: 8 in the database, the rest waiting
            busy = [timed_health(health) for _ in range(10)]
            pg.stop()
            wait_for(lambda: timed_health(health)[1] == "degraded", timeout=5)
            down = [timed_health(health) for _ in range(10)]
        finally:
            out, _ = crowd.communicate("", timeout=60)  # closing its input stops it
            admin.close()
            pg.start()
        wait_for(lambda: http.get(f"/api/poker-squares/games/{game['id']}").is_success, 10)
    assert all(store == "ok" for _, store in busy), busy  # reachable, only slow
    assert all(store == "degraded" for _, store in down), down
    times = [took for took, _ in busy + down]
    # Under 100 ms as a rule; and never near the 1.5 s a request waits for a connection,
    # which a `/healthz` queued behind the threads would wait first (the sync one of before
    # took 0.9-3.8 s here). A single call can stall longer on a loaded shared machine.
    assert statistics.median(times) < HEALTH_ANSWER, times
    assert max(times) < 1.0, times
    # The threads were taken: requests waited for a connection until refused (StoreBusy).
    tally = json.loads(out.strip().splitlines()[-1])
    assert tally["waited_503"] > 0, tally
    print(
        f"healthz: median {statistics.median(times) * 1000:.1f} ms, max "
        f"{max(times) * 1000:.1f} ms over {len(times)} calls; the crowd's answers: {tally}"
    )


def crowd(base: str, player_id: str, game_id: str, clients: int = 80) -> dict[str, int]:
    """``clients`` requests for the game in flight at all times (one asyncio task each, so
    the crowd itself stays light) until standard input closes; the count of answers by
    status, and of 503s that came after waiting at least 1 s."""
    tally: dict[str, int] = {"waited_503": 0}

    async def main() -> None:
        stop = asyncio.Event()
        limits = httpx.Limits(max_connections=clients)
        headers = {"X-Player-Id": player_id}
        async with httpx.AsyncClient(
            base_url=base, headers=headers, timeout=30, limits=limits
        ) as http:

            async def client() -> None:
                while not stop.is_set():
                    start = time.perf_counter()
                    r = await http.get(f"/api/poker-squares/games/{game_id}")
                    took = time.perf_counter() - start
                    tally[str(r.status_code)] = tally.get(str(r.status_code), 0) + 1
                    tally["waited_503"] += r.status_code == 503 and took >= 1.0

            tasks = [asyncio.create_task(client()) for _ in range(clients)]
            print("started", flush=True)
            await asyncio.to_thread(sys.stdin.read)
            stop.set()
            await asyncio.wait(tasks, timeout=30)

    asyncio.run(main())
    return tally


if __name__ == "__main__":
    print(json.dumps(crowd(*sys.argv[1:4])), flush=True)
