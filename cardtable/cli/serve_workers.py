"""`cardtable serve --workers N`: what each of the N server processes builds for itself.

uvicorn starts its workers by *spawn*: a worker gets the configuration by pickling, so the
app and the protocol classes (which carry per-process connection sets, caps and token
buckets) are named here by import string and built in the worker from the serve options,
which the supervisor hands down in the environment (`OPTIONS`, JSON). Every worker is a
whole server: its own search pool, caps and rate limits (per process, as with several
`cardtable serve` processes behind a proxy); what a player sees and what a computer decides
comes from the store, which all of them share (docs/online.md, "Choices and why": fan-out).

A worker also watches its supervisor: uvicorn's workers keep running when the supervisor is
killed outright (SIGKILL, out of memory), so each one ends itself gracefully (SIGTERM to
itself: open requests finish, the search pool stops) as soon as its parent is gone.

Metrics (core/metrics.py): before it starts the workers, the supervisor makes a private
directory for their values and names it in ``PROMETHEUS_MULTIPROC_DIR``, which the spawned
workers inherit; `/metrics` in any worker sums them all. The supervisor (`Supervisor`) tells
prometheus_client when a worker has exited, and removes the directory when it stops. The log
format (``--log-format``) reaches the workers in the uvicorn configuration they are given.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from cardtable.server import Settings, create_app
from cardtable.server.core import logs, metrics
from cardtable.server.core.serving import http_protocol as _http_protocol
from cardtable.server.core.serving import quiet_logs, uvicorn_config, websocket_options

OPTIONS = "CARDTABLE_SERVE_OPTIONS"


def settings_from(options: Mapping[str, Any]) -> Settings:
    """The server settings of `cardtable serve`'s options (the same in every worker)."""
    return Settings(
        data_dir=Path(options["data"]),
        forwarded_allow_ips=tuple(options["forwarded_allow_ips"]),
        max_connections=options["max_connections"],
        request_timeout=options["request_timeout"],
        player_rate=options["player_rate"],
        search_rate=options["search_rate"],
        signup_rate=options["signup_rate"],
        metrics_allow=tuple(options.get("metrics_allow", Settings.metrics_allow)),
    )


def run(
    options: Mapping[str, Any],
    *,
    host: str,
    port: int,
    workers: int = 1,
    access_log: bool = True,
    log_level: str = "info",
    log_format: str = "text",
) -> None:
    """Serve until stopped: in this process, or with ``workers`` > 1 as uvicorn's supervisor
    of that many worker processes on one listening socket."""
    settings = settings_from(options)
    logs.configure(log_format)
    app: Any = f"{__name__}:app" if workers > 1 else create_app(settings)
    config = uvicorn_config(
        app,
        settings,
        host=host,
        port=port,
        access_log=access_log,
        log_level=log_level,
        workers=workers,
        log_format=log_format,
    )
    quiet_logs()  # after the config: building it sets up uvicorn's logging
    if workers > 1:
        os.environ[OPTIONS] = json.dumps({**options, LOG_FORMAT: log_format})
        with metrics.multiprocess_dir():  # before any worker starts
            Supervisor(config, sockets=[config.bind_socket()]).run()
    else:
        uvicorn.Server(config).run()


class Supervisor(Multiprocess):
    """uvicorn's supervisor of the workers, which also tells prometheus_client when a worker
    has exited (its live gauges, such as the open sockets, leave the sums): checked after
    each of uvicorn's rounds that may replace or stop workers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._known: dict[int, Any] = {}

    def _reap(self) -> None:
        for process in self.processes:
            if process.pid is not None:
                self._known.setdefault(process.pid, process)
        for pid, process in list(self._known.items()):
            if process.exitcode is not None:
                del self._known[pid]
                metrics.worker_gone(pid)

    def init_processes(self) -> None:
        super().init_processes()
        self._reap()

    def keep_subprocess_alive(self) -> None:
        super().keep_subprocess_alive()
        self._reap()

    def restart_all(self) -> None:
        self._reap()
        super().restart_all()
        self._reap()

    def join_all(self) -> None:
        self._reap()
        super().join_all()
        self._reap()


def _settings() -> Settings:
    return settings_from(json.loads(os.environ[OPTIONS]))


LOG_FORMAT = "log_format"
"""The key under which the supervisor hands ``--log-format`` to the workers (`OPTIONS`)."""


def app() -> Any:
    """The app factory each worker calls once its logging is set up."""
    logs.configure(json.loads(os.environ[OPTIONS]).get(LOG_FORMAT, "text"))
    quiet_logs()
    parent = os.getppid()
    threading.Thread(target=_watch, args=(parent,), name="supervisor-watch", daemon=True).start()
    return create_app(_settings())


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)


def __getattr__(name: str) -> Any:
    # uvicorn imports "cardtable.cli.serve_workers:http_protocol" (and ws_protocol) in the
    # worker: built here from the worker's settings, once per process.
    if name == "http_protocol":
        value = _http_protocol(_settings())
    elif name == "ws_protocol":
        value = websocket_options(_settings())["ws"]
    else:
        raise AttributeError(name)
    globals()[name] = value
    return value
