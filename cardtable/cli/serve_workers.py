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
    )


def run(
    options: Mapping[str, Any],
    *,
    host: str,
    port: int,
    workers: int = 1,
    access_log: bool = True,
    log_level: str = "info",
) -> None:
    """Serve until stopped: in this process, or with ``workers`` > 1 as uvicorn's supervisor
    of that many worker processes on one listening socket."""
    settings = settings_from(options)
    app: Any = f"{__name__}:app" if workers > 1 else create_app(settings)
    config = uvicorn_config(
        app,
        settings,
        host=host,
        port=port,
        access_log=access_log,
        log_level=log_level,
        workers=workers,
    )
    quiet_logs()  # after the config: building it sets up uvicorn's logging
    if workers > 1:
        os.environ[OPTIONS] = json.dumps(dict(options))
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    else:
        uvicorn.Server(config).run()


def _settings() -> Settings:
    return settings_from(json.loads(os.environ[OPTIONS]))


def app() -> Any:
    """The app factory each worker calls once its logging is set up."""
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
