"""Issue 17, connections: a slow-client flood against the real `cardtable serve` leaves a fresh
client served and the log small; a connection that trickles its head is cut at the request
deadline; ``X-Forwarded-For`` is believed only from configured proxies; no ``server``
banner; repeated error logs are thinned out."""

from __future__ import annotations

import contextlib
import logging
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from cardtable.server import Settings, create_app
from cardtable.server.core.serving import QuietRepeats, uvicorn_config
from tests.support.postgres import free_port

ROOT = Path(__file__).resolve().parents[3]
HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


@contextlib.contextmanager
def serve(tmp_path: Path, *args: str, nofile: int = 256) -> Iterator[tuple[str, Path]]:
    """`cardtable serve` in a subprocess with a lowered file-descriptor limit."""
    port = free_port()
    log = tmp_path / "serve.log"

    def lower_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    cmd = [sys.executable, "-m", "cardtable.cli.main", "serve", "--port", str(port),
           "--data", str(tmp_path / "data"), *args]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, preexec_fn=lower_limit
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, "cardtable serve did not start"
            time.sleep(0.1)
        yield base, log
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (BlockingIOError, TimeoutError):
        return False


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_a_slow_client_flood_leaves_a_fresh_client_served(tmp_path: Path) -> None:
    args = ("--max-connections", "64", "--request-timeout", "2", "--no-access-log")
    with serve(tmp_path, *args) as (base, log):
        port = int(base.rsplit(":", 1)[1])
        socks: list[socket.socket] = []
        try:
            for _ in range(200):  # far more than the server keeps, near its file limit
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(HALF_HEAD)
                socks.append(s)
            started = time.monotonic()
            for _ in range(5):  # fresh clients are served at once, not after the timeout
                r = httpx.get(f"{base}/healthz", timeout=5)
                assert r.status_code == 200 and r.json() == {"status": "ok", "store": "ok"}
                assert "server" not in r.headers
            assert time.monotonic() - started < 10.0  # generous: a machine at load 20
            # Every half-head connection is closed: evicted, or cut at the 2 s deadline.
            deadline = time.monotonic() + 8
            for s in socks:
                s.settimeout(max(0.1, deadline - time.monotonic()))
                assert closed_by_server(s)
            # A client that trickles its head one byte at a time is cut as well.
            trickle = socket.create_connection(("127.0.0.1", port), timeout=5)
            socks.append(trickle)
            cut_at = time.monotonic()
            trickle.setblocking(False)
            closed = False
            for byte in HALF_HEAD * 4:
                try:
                    trickle.send(bytes([byte]))
                except OSError:
                    closed = True
                    break
                if closed_by_server(trickle):
                    closed = True
                    break
                time.sleep(0.1)
                if time.monotonic() - cut_at > 6:
                    break
            assert closed and time.monotonic() - cut_at < 8
            assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        finally:
            for s in socks:
                s.close()
        text = log.read_text(errors="replace")
        assert "Too many open files" not in text
        assert len(text) < 20_000, text[-2000:]
        assert "Traceback" not in text


@contextlib.contextmanager
def configured_server(settings: Settings) -> Iterator[str]:
    port = free_port()
    config = uvicorn_config(
        create_app(settings), settings, host="127.0.0.1", port=port, access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


@pytest.mark.parametrize("trusted", [(), ("127.0.0.1",)])
def test_forwarded_for_is_believed_only_from_configured_proxies(
    tmp_path: Path, trusted: tuple[str, ...]
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=None,
        signup_rate=0.001,
        signup_burst=3,
        forwarded_allow_ips=trusted,
    )
    with configured_server(settings) as base, httpx.Client(base_url=base, timeout=10) as http:
        statuses = [
            http.post("/api/players", headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
            for i in range(1, 9)
        ]
        assert "server" not in http.get("/healthz").headers
    if trusted:
        assert statuses == [201] * 8  # each forwarded address has its own allowance
    else:
        assert statuses == [201] * 3 + [429] * 5  # the made-up header changes nothing


def test_repeated_log_messages_are_thinned_out() -> None:
    logger = logging.getLogger("tests.quiet")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    logger.addHandler(handler)
    logger.propagate = False
    quiet = QuietRepeats(burst=5, period=3600)
    logger.addFilter(quiet)
    try:
        for i in range(2000):
            try:
                raise OSError(24, "Too many open files")
            except OSError:
                logger.exception("accept failed (%d)", i)
        logger.error("another message")
        assert len(records) == 6
        quiet.period = 0  # as if the period had passed
        logger.exception("accept failed (%d)", 2000)
        assert len(records) == 7 and "1995 similar messages were dropped" in records[-1].msg
    finally:
        logger.removeFilter(quiet)
        logger.removeHandler(handler)
