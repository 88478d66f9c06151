"""Issue 17, admission of expensive work (server/core/admission.py): one hint in flight per
game, a per-player hint rate, a global cap with 503 and Retry-After, searches in their own
process, and the flood test: while one player floods hints at the limit, another player's
moves stay fast (against the real `cardtable serve`)."""

from __future__ import annotations

import contextlib
import gc
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import httpx
import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.admission import Admission
from cardtable.server.core.errors import ApiError
from tests.server.core.test_connections import ROOT, serve
from tests.server.helpers import Api
from tests.server.hint_flood import CELLS, mid_game
from tests.support.live_server import live_server


def new_player(base: str) -> dict[str, str]:
    r = httpx.post(f"{base}/api/players", timeout=10)
    assert r.status_code == 201, r.text
    return {"X-Player-Id": r.json()["player_id"]}


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_concurrent_hints_on_one_game_run_one_search(tmp_path: Path) -> None:
    """Eight hints at once on one version: one search runs and answers 200; the other seven
    are refused at once (409), without waiting for it."""
    settings = Settings(data_dir=tmp_path / "data", database_url=None, search_processes=1)
    with live_server(create_app(settings)) as base:
        headers = new_player(base)
        with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
            game = mid_game(http)
        barrier = threading.Barrier(8)
        answers: list[tuple[int, str, float]] = []

        def ask() -> None:
            with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
                barrier.wait()
                t = time.perf_counter()
                r = http.post(
                    f"/api/poker-squares/games/{game['id']}/hint",
                    json={"version": game["version"]},
                )
                answers.append((r.status_code, r.json().get("code", ""), time.perf_counter() - t))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    winners = [a for a in answers if a[0] == 200]
    refused = [a for a in answers if a[0] != 200]
    assert len(winners) == 1 and len(refused) == 7, answers
    # Refused: the game is being searched (`busy`), or the winner already saved (stale).
    assert all(a[0] == 409 and a[1] in ("busy", "stale_version") for a in refused), answers
    assert max(a[2] for a in refused) < winners[0][2], answers


def test_hints_have_a_per_player_rate(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        hint_budget=0,
        search_rate=0.01,
        search_burst=2,
        search_processes=0,
    )
    with TestClient(create_app(settings)) as client:
        api, other = Api.new_player(client), Api.new_player(client)
        game = api.ps_new()
        for _ in range(2):
            game = api.ps(game, "hint")["game"]
        refused = api.ps(game, "hint", status=429)
        assert refused["code"] == "rate_limited"
        r = client.post(
            f"/api/poker-squares/games/{game['id']}/hint",
            json={"version": game["version"]},
            headers=api.headers,
        )
        assert int(r.headers["retry-after"]) >= 1
        # Nothing changed, moves are not limited, and another player has their own hints.
        assert api.get(f"/api/poker-squares/games/{game['id']}")["version"] == game["version"]
        api.ps(game, "moves", row=4, col=4)
        other.ps(other.ps_new(), "hint")


def test_the_global_cap_answers_503_with_retry_after(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path, database_url=None, max_searches=1, search_queue=1, search_wait=0.2
    )
    admission = Admission(settings)
    with admission.reserve("game-a", "p1"):
        with pytest.raises(ApiError) as same_game, admission.reserve("game-a", "p2"):
            pass
        assert same_game.value.status == 409 and same_game.value.code == "busy"
        started = time.monotonic()
        # Waits for the slot, then gives up.
        with pytest.raises(ApiError) as waited, admission.reserve("game-b", "p2"):
            pass
        assert 0.15 < time.monotonic() - started < 2
        assert waited.value.status == 503 and waited.value.headers == {"Retry-After": "1"}
        # With one request already waiting the queue is full: refused without waiting.
        waiter = threading.Thread(target=_wait_in_queue, args=(admission,))
        waiter.start()
        deadline = time.monotonic() + 10
        while admission._waiting < 1:  # until the waiter is in the queue (not a fixed sleep)
            assert time.monotonic() < deadline, "the waiter never joined the queue"
            time.sleep(0.002)
        started = time.monotonic()
        with pytest.raises(ApiError) as full, admission.reserve("game-c", "p3"):
            pass
        assert full.value.status == 503 and time.monotonic() - started < 0.1
        waiter.join(5)
    with admission.reserve("game-b", "p2"):  # the slot is free again
        pass


def _wait_in_queue(admission: Admission) -> None:
    with pytest.raises(ApiError), admission.reserve("game-d", "p4"):
        pass


def p99(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * 0.99))]


def moves_latency(base: str, headers: dict[str, str], n: int) -> list[float]:
    """``n`` Poker Squares moves, 40 a second (within the per-player request rate), timed (new
    deals are not timed), with this process's garbage collector paused: the server's latency
    is measured, not a collection of the test process's heap."""
    out: list[float] = []
    gc.disable()
    with contextlib.ExitStack() as stack:
        stack.callback(gc.enable)
        http = stack.enter_context(httpx.Client(base_url=base, headers=headers, timeout=30))
        game, cell, t = mid_game(http, 0), 0, 0.0
        for _ in range(n):
            if cell == 25:
                game, cell = mid_game(http, 0), 0
            row, col = CELLS[cell]
            time.sleep(max(0.0, t + 1 / 40 - time.perf_counter()))
            t = time.perf_counter()
            r = http.post(
                f"/api/poker-squares/games/{game['id']}/moves",
                json={"version": game["version"], "row": row, "col": col},
            )
            out.append(time.perf_counter() - t)
            assert r.status_code == 200, r.text
            game, cell = r.json(), cell + 1
    return out


def first_line(stream: IO[str], timeout: float) -> str | None:
    """The stream's first line, or None when none comes within ``timeout`` seconds."""
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return lines[0].strip() if lines else None


@pytest.mark.deep  # a timing bound: the fast tier has no such test (bench.abuse measures it)
@pytest.mark.untraced  # the measuring process is not slowed by the tracer
def test_a_hint_flood_leaves_other_players_moves_fast(tmp_path: Path) -> None:
    """One player floods hints (three connections on their current deal, 48 requests/s in
    all: just under the request limit, far beyond the hint rate; from their own process,
    tests/server/hint_flood.py) while another plays: the mover's p99 stays under 250 ms (it
    was 0.8-5 s when hints starved moves), or under 3x the same run's baseline p99 if this
    shared machine is slow even without the flood."""
    with serve(tmp_path, "--no-access-log", nofile=1024) as (base, _log):
        mover, flooder = new_player(base), new_player(base)
        moves_latency(base, mover, 30)  # warm up
        baseline = moves_latency(base, mover, 150)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.server.hint_flood", base, flooder["X-Player-Id"]],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        try:
            # Until the flood has reached the hint limit (never waiting for ever: a flooder
            # that cannot reach it ends the test instead of hanging it).
            assert first_line(proc.stdout, timeout=90) == "limited"
            flooded = moves_latency(base, mover, 300)
        finally:
            try:
                out, _ = proc.communicate(timeout=120)  # closes its input: it stops and tallies
            except subprocess.TimeoutExpired:
                proc.kill()
                raise
    tally = {int(k): v for k, v in json.loads(out).items()}
    assert tally.get(200, 0) >= 3 and tally.get(429, 0) >= 3, tally  # flooding at the limit
    assert set(tally) <= {200, 409, 429, 503}, tally
    # Starvation was 0.8-5 s. The p99 of 300 moves is their third slowest, so the other
    # xdist worker's load alone can move it: 191 ms once with a baseline p99 of 30 ms at load
    # 8-9 (2 December). The bound is 250 ms, or 3x the same run's baseline when this shared
    # machine is slow even without the flood; issue 27's goal, 50 ms, is the benchmark's
    # (`python -m bench.abuse`, docs/reliability.md "Admission"), measured on an idle machine.
    limit = max(0.250, 3 * p99(baseline))
    assert p99(flooded) < limit, (p99(baseline), p99(flooded), tally)
