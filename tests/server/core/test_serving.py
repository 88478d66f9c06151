"""The server over real HTTP: `cardtable serve` as `make run` starts it, racing clients on a
live uvicorn, and the same API on PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from tests.server.helpers import Api
from tests.support.live_server import live_server
from tests.support.postgres import free_port, fresh_schema

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_cardtable_serve_runs_the_site(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--data", str(tmp_path / "data")]  # fmt: skip
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                health = httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "cardtable serve did not start"
                time.sleep(0.1)
        assert health.json() == {"status": "ok", "store": "ok"}
        player = httpx.post(f"{base}/api/players", timeout=5)
        assert player.status_code == 201
        assert (tmp_path / "data" / "cardtable.sqlite3").exists()
        page = httpx.get(f"{base}/", timeout=5)
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "<main" in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'self'")
    finally:
        proc.terminate()
        proc.wait(15)


def test_racing_clients_on_one_version_one_wins(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path, database_url=None))
    with live_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        pid = http.post("/api/players").json()["player_id"]
        headers = {"X-Player-Id": pid}
        game = http.post("/api/poker-squares/games", json={}, headers=headers).json()
        statuses: list[int] = []
        barrier = threading.Barrier(6)

        def click(i: int) -> None:
            body = {"version": game["version"], "row": i % 5, "col": i // 5}
            with httpx.Client(base_url=base, timeout=10) as own:
                barrier.wait()
                r = own.post(f"/api/poker-squares/games/{game['id']}/moves", json=body,
                             headers=headers)  # fmt: skip
                statuses.append(r.status_code)

        threads = [threading.Thread(target=click, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(statuses) == [200] + [409] * 5
        final = http.get(f"/api/poker-squares/games/{game['id']}", headers=headers).json()
        assert final["version"] == 2 and final["view"]["placed"] == 1


def test_the_api_on_postgresql(postgres_url: str) -> None:
    with fresh_schema(postgres_url) as url:
        settings = Settings(data_dir=Path("unused"), database_url=url, hint_budget=4)
        with TestClient(create_app(settings)) as client:
            api, other = Api.new_player(client), Api.new_player(client)
            game = api.ps_new(table="british")
            first = game["view"]["card"]
            for i in range(25):
                game = api.ps(game, "moves", row=i // 5, col=i % 5)
            assert game["view"]["is_over"] and game["view"]["grid"][0][0] == first
            scores = api.get("/api/poker-squares/scores")["british"]
            assert scores["best"] == game["view"]["total"]
            assert other.get(f"/api/poker-squares/games/{game['id']}", status=404)
            # Text PostgreSQL refuses (NUL) is simply not found.
            assert api.get("/api/poker-squares/games/a%00b", status=404)
            assert api.ps_new(status=404, replay_of="a\u0000b")["code"] == "not_found"
            stale: Any = api.ps(game, "undo", status=409, version=1)
            assert stale["code"] == "stale_version" and stale["current"] == game
            kc = api.kc_new()
            assert api.get("/api/continue")["kings_corner"] == kc


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_several_workers_need_postgresql(tmp_path: Path) -> None:
    """With SQLite a live move would reach another worker's sockets only by the 2 s poll:
    `--workers 2` is refused, with the reason, before anything is served."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--port", str(free_port()),
           "--data", str(tmp_path / "data"), "--workers", "2"]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--workers needs PostgreSQL" in done.stderr
    assert not (tmp_path / "data").exists()


def test_every_connection_gets_tcp_nodelay() -> None:
    """A listening socket made as uvicorn makes it for `--workers` (``proto`` 0), so asyncio
    leaves Nagle on: the HTTP protocol turns it off for each connection itself (without it a
    move at one client waited 48 ms for the client's delayed ACK)."""
    import socket

    from cardtable.server.core.serving import _no_delay

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert listener.proto == 0
        with socket.create_connection(listener.getsockname()) as client:
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0

                class Transport:
                    def get_extra_info(self, name: str) -> object:
                        return accepted if name == "socket" else None

                _no_delay(Transport())
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
            assert client.fileno() >= 0
