"""`cardtable serve`: the options reach the server, `--workers` is refused where the store
cannot share, and what each worker process builds for itself (cardtable/cli/serve_workers.py).

The served processes themselves are tested from outside (tests/server/core/test_lifecycle.py,
tests/reliability/test_crash.py); here the server's start is replaced by a recorder, so the
configuration a process would run is checked in this process.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
import uvicorn
from fastapi import FastAPI

from cardtable.cli import serve_workers
from cardtable.cli.main import main
from cardtable.server.core.serving import GuardedH11Protocol, GuardedWebSocketProtocol

PG_URL = "postgresql://cardtable@127.0.0.1:1/cardtable"


def options(tmp_path: Path, **changed: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "data": str(tmp_path / "data"),
        "forwarded_allow_ips": ["10.0.0.1"],
        "max_connections": 40,
        "request_timeout": 7.5,
        "player_rate": 30.0,
        "search_rate": None,
        "signup_rate": 1.0,
    }
    return base | changed


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What `cardtable serve` asked `serve_workers.run` to serve (nothing is served)."""
    calls: list[dict[str, Any]] = []

    def run(options: dict[str, Any], **kwargs: Any) -> None:
        calls.append({"options": options, **kwargs})

    monkeypatch.setattr(serve_workers, "run", run)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return calls


def test_serve_passes_every_option_on(
    tmp_path: Path, started: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "serve", "--host", "127.0.0.1", "--port", "8123", "--data", str(tmp_path),
        "--forwarded-allow-ips", "10.0.0.1, ,::1", "--max-connections", "64",
        "--request-timeout", "4", "--player-rate", "0", "--hint-rate", "3",
        "--signup-rate", "0.5", "--no-access-log", "--metrics-allow", "10.0.0.0/8, ::1",
        "--log-format", "json",
    ]  # fmt: skip
    assert main(argv) == 0
    [call] = started
    assert call["options"] == {
        "data": str(tmp_path),
        "forwarded_allow_ips": ["10.0.0.1", "::1"],
        "max_connections": 64,
        "request_timeout": 4.0,
        "player_rate": None,  # 0 means no limit
        "search_rate": 3.0,
        "signup_rate": 0.5,
        "metrics_allow": ["10.0.0.0/8", "::1"],
    }
    assert call["host"] == "127.0.0.1" and call["port"] == 8123
    assert call["workers"] == 1 and call["access_log"] is False
    assert call["log_format"] == "json"
    # Said as a JSON log line too, like every line the server writes with --log-format json.
    said = json.loads(capsys.readouterr().out)
    assert f"serving http://127.0.0.1:8123/ (games saved in {tmp_path}" in said["message"]
    assert said["level"] == "INFO" and said["logger"] == "cardtable.serve"


def test_serve_defaults_are_the_documented_ones(
    started: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve"]) == 0
    [call] = started
    assert call["host"] == "127.0.0.1" and call["port"] == 8000 and call["workers"] == 1
    assert call["access_log"] is True and call["log_format"] == "text"
    assert call["options"]["data"] == "data" and call["options"]["forwarded_allow_ips"] == []
    assert call["options"]["metrics_allow"] == ["127.0.0.1", "::1"]
    assert call["options"]["player_rate"] == 50.0 and call["options"]["search_rate"] == 2.0
    assert "http://127.0.0.1:8000/" in capsys.readouterr().out


def test_several_workers_need_postgresql(
    tmp_path: Path, started: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--data", str(tmp_path), "--workers", "2"]) == 2
    assert started == []
    assert "--workers needs PostgreSQL" in capsys.readouterr().err


def test_several_workers_with_postgresql(
    tmp_path: Path,
    started: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", PG_URL)
    assert main(["serve", "--data", str(tmp_path), "--workers", "3"]) == 0
    [call] = started
    assert call["workers"] == 3
    out = capsys.readouterr().out
    assert "by 3 worker processes (games saved in PostgreSQL (DATABASE_URL))" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "0"], "between 1 and 64 worker processes"),
        (["--workers", "65"], "between 1 and 64 worker processes"),
        (["--player-rate", "-1"], "a rate is 0 (no limit) or more"),
        (["--hint-rate", "-0.5"], "a rate is 0 (no limit) or more"),
        (["--metrics-allow", "127.0.0.1,localhost"], "not an address or network: localhost"),
        (["--log-format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_out_of_range_values_are_refused_in_one_line(
    argv: list[str],
    message: str,
    started: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", *argv])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err and started == []


class Recorder:
    """Stands in for uvicorn's `Server` or `Multiprocess`: keeps what it would have run."""

    runs: ClassVar[list[Recorder]] = []

    def __init__(self, config: Any, sockets: list[Any] | None = None) -> None:
        self.config, self.sockets = config, sockets or []
        self.metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        assert self.metrics_dir is None or Path(self.metrics_dir).is_dir()

    def run(self) -> None:
        Recorder.runs.append(self)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> type[Recorder]:
    Recorder.runs = []
    monkeypatch.setattr(uvicorn, "Server", Recorder)
    monkeypatch.setattr(serve_workers, "Supervisor", Recorder)
    monkeypatch.setenv(serve_workers.OPTIONS, "")  # restored after the test
    return Recorder


def test_one_process_serves_the_app_it_builds(tmp_path: Path, recorder: type[Recorder]) -> None:
    serve_workers.run(options(tmp_path), host="127.0.0.1", port=8124, access_log=False)
    [server] = recorder.runs
    config = server.config
    assert isinstance(config.app, FastAPI)
    settings = config.app.state.runtime.settings
    assert settings.data_dir == tmp_path / "data" and settings.request_timeout == 7.5
    assert settings.forwarded_allow_ips == ("10.0.0.1",) and settings.search_rate is None
    assert (config.host, config.port, config.access_log, config.workers) == (
        "127.0.0.1", 8124, False, 1,
    )  # fmt: skip
    assert config.server_header is False and config.forwarded_allow_ips == ["10.0.0.1"]
    assert issubclass(config.http, GuardedH11Protocol)
    assert config.http.request_timeout == 7.5
    assert issubclass(config.ws, GuardedWebSocketProtocol)
    assert config.ws_per_message_deflate is False


def test_several_processes_get_import_strings_and_the_options(
    tmp_path: Path, recorder: type[Recorder]
) -> None:
    given = options(tmp_path)
    serve_workers.run(given, host="127.0.0.1", port=0, workers=2)
    [supervisor] = recorder.runs
    config = supervisor.config
    try:
        # Workers are spawned: they import the app factory and the protocols by name...
        assert config.app == "cardtable.cli.serve_workers:app" and config.factory is True
        assert config.http == "cardtable.cli.serve_workers:http_protocol"
        assert config.ws == "cardtable.cli.serve_workers:ws_protocol"
        assert config.workers == 2 and config.timeout_worker_healthcheck == 60
        # ...on the one socket the supervisor bound, and read the options it left them.
        [sock] = supervisor.sockets
        assert sock.getsockname()[0] == "127.0.0.1"
        assert json.loads(os.environ[serve_workers.OPTIONS]) == given | {"log_format": "text"}
        # The workers' metrics went to a private directory, removed when the supervisor stopped.
        assert supervisor.metrics_dir is not None and not Path(supervisor.metrics_dir).exists()
        assert os.environ.get("PROMETHEUS_MULTIPROC_DIR") is None
    finally:
        for sock in supervisor.sockets:
            sock.close()


def test_a_worker_builds_its_protocols_and_app_from_the_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(serve_workers.OPTIONS, json.dumps(options(tmp_path, max_connections=40)))
    watched: list[tuple[Any, ...]] = []

    class Thread:
        def __init__(self, target: Any, args: tuple[Any, ...], name: str, daemon: bool):
            watched.append((target, args, name, daemon))

        def start(self) -> None:
            pass

    monkeypatch.setattr(threading, "Thread", Thread)
    names = vars(serve_workers)
    try:
        http = serve_workers.http_protocol
        assert issubclass(http, GuardedH11Protocol)
        assert http.request_timeout == 7.5 and http.trusted_proxies is not None
        assert "10.0.0.1" in http.trusted_proxies
        # 40 connections: 20 for live sockets, 20 for HTTP (one kept back for eviction).
        assert http.max_connections == 19
        ws = serve_workers.ws_protocol
        assert issubclass(ws, GuardedWebSocketProtocol) and ws.max_open == 20
        assert serve_workers.http_protocol is http  # built once per process
        with pytest.raises(AttributeError):
            _ = serve_workers.no_such_thing
        app = serve_workers.app()
        assert isinstance(app, FastAPI)
        assert app.state.runtime.settings.data_dir == tmp_path / "data"
        assert watched == [(serve_workers._watch, (os.getppid(),), "supervisor-watch", True)]
    finally:
        names.pop("http_protocol", None)
        names.pop("ws_protocol", None)


def test_a_worker_stops_itself_once_its_supervisor_is_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parents = iter([41, 41, 1])  # the supervisor, then (killed) the worker is adopted by 1
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "getppid", lambda: next(parents))
    monkeypatch.setattr(time, "sleep", lambda _: None)
    monkeypatch.setattr(os, "kill", lambda pid, sig: sent.append((pid, sig)))
    serve_workers._watch(41)
    assert sent == [(os.getpid(), signal.SIGTERM)]
