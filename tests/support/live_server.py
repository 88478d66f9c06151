"""Serve an ASGI app on a free loopback port in a background thread, for tests that need real
HTTP (browsers, several clients). Always 127.0.0.1; stopped when the block ends. The live
channel is served as `cardtable serve` serves it (`serving.websocket_options`: the frame
size limit, no compression, the live-socket cap) when the app is the cardtable app."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from cardtable.server.core.serving import websocket_options

from .postgres import free_port
from .untraced import untraced_tree


@contextlib.contextmanager
def live_server(app: Any, *, timeout: float = 20.0, traced: bool = True) -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) of ``app`` served by uvicorn. With
    `traced=False` the server's threads run without coverage's tracer (tests/support/untraced.py):
    for the browser tests' servers, whose lines the API tests cover."""
    port = free_port()
    runtime = getattr(getattr(app, "state", None), "runtime", None)
    ws: dict[str, Any] = {} if runtime is None else websocket_options(runtime.settings)
    # A long keep-alive: Playwright's request context (Node's http) reuses an idle connection
    # without retrying, so a server closing it at the 5 s default races the next request
    # into ECONNRESET. Browsers retry that case themselves; a test client does not.
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
        timeout_keep_alive=600,
        # As `cardtable serve` runs (core/serving.py): not uvicorn's "auto", which picks
        # uvloop and httptools when installed (the bench extra installs them to measure).
        loop="asyncio",
        http="h11",
        **ws,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"live-server-{port}", daemon=True)
    with contextlib.nullcontext() if traced else untraced_tree():
        thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the live server did not start on port {port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
