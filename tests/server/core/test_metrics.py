"""Metrics and request ids in the process (cardtable/server/core/metrics.py, observe.py): what
each request, move, refusal, store transaction, live socket and retention sweep adds, who may
read `/metrics`, and the request id every log line of a request carries (logs.py).

The metrics are the process's own (prometheus_client's default registry, shared by every app
a test builds), so each check reads a value before and after. `cardtable serve --workers 2`
and its JSON logs are tested as a process in test_metrics_served.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sqlite3
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core import logs, metrics, observe, retention
from cardtable.server.core.admission import Admission
from cardtable.server.core.errors import ApiError
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.serving import uvicorn_config
from cardtable.server.core.store import StaleVersion, sql
from cardtable.server.core.store.sqlite import SqliteStore
from cardtable.server.online import live
from tests.server.helpers import Api
from tests.support.postgres import free_port

LOOPBACK = ("127.0.0.1", 50000)
ROOT = Path(__file__).resolve().parents[3]


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def requests(route: str, status: int, method: str = "GET") -> float:
    return value("cardtable_http_requests_total", route=route, method=method, status=str(status))


def settings_for(tmp_path: Path, **changed: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=None, hint_budget=0, **changed)


@contextmanager
def served(settings: Settings, client: tuple[str, int] = LOOPBACK) -> Iterator[TestClient]:
    with TestClient(create_app(settings), client=client) as c:
        yield c


# -- requests by route ----------------------------------------------------------------------


def test_requests_are_counted_by_route_template_method_and_status(tmp_path: Path) -> None:
    with served(settings_for(tmp_path)) as client:
        api = Api.new_player(client)
        game = api.ps_new()
        moves = "/api/poker-squares/games/{game_id}/moves"
        before = {
            "continue": requests("/api/continue", 200),
            "moves": requests(moves, 200, "POST"),
            "unknown": requests("other", 404),
            "wrong method": requests("/api/continue", 405, "DELETE"),
            "page": requests("/", 200),
            "asset": requests("/{path:path}", 404),
            "latency": value("cardtable_http_request_duration_seconds_count", route=moves),
        }
        for _ in range(3):
            api.get("/api/continue")
        api.ps(game, "moves", row=0, col=0)
        assert client.get("/api/no/such/thing").status_code == 404
        assert client.get(f"/api/poker-squares/games/{game['id']}x/nope").status_code == 404
        assert client.delete("/api/continue").status_code == 405
        assert client.get("/").status_code == 200
        assert client.get("/assets/no-such-file.css").status_code == 404
        assert requests("/api/continue", 200) - before["continue"] == 3
        assert requests(moves, 200, "POST") - before["moves"] == 1
        assert requests("other", 404) - before["unknown"] == 2  # never the raw path
        assert requests("/api/continue", 405, "DELETE") - before["wrong method"] == 1
        assert requests("/", 200) - before["page"] == 1
        assert requests("/{path:path}", 404) - before["asset"] == 1
        latency = value("cardtable_http_request_duration_seconds_count", route=moves)
        assert latency - before["latency"] == 1


def test_a_method_the_client_makes_up_is_counted_as_other(tmp_path: Path) -> None:
    with served(settings_for(tmp_path)) as client:
        before = requests("other", 404, "other")
        assert client.request("BREW", "/api/nothing").status_code == 404
        assert requests("other", 404, "other") - before == 1


# -- request ids --------------------------------------------------------------------------


def test_a_safe_request_id_is_kept_and_any_other_replaced(tmp_path: Path) -> None:
    with served(settings_for(tmp_path)) as client:
        kept = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
        assert kept.headers["x-request-id"] == "abc-123"
        for unsafe in ("a b", "x" * 65, "<script>", ""):
            made = client.get("/healthz", headers={"X-Request-ID": unsafe})
            assert made.headers["x-request-id"] != unsafe
            assert len(made.headers["x-request-id"]) == 32
        one, two = (client.get("/api/nope").headers["x-request-id"] for _ in range(2))
        assert one != two and int(one, 16) >= 0  # new ones: 32 hex digits, each different


class Lines(logging.Handler):
    """JSON lines of the records a logger emits, formatted as they are emitted."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logs.JsonFormatter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@contextmanager
def captured(name: str) -> Iterator[Lines]:
    logger = logging.getLogger(name)
    handler = Lines()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_every_log_line_of_a_request_carries_its_id(tmp_path: Path) -> None:
    app = create_app(settings_for(tmp_path))
    log = logging.getLogger("cardtable.test")

    @app.get("/test/async")
    async def logs_on_the_loop() -> dict[str, str]:
        log.info("on the loop")
        return {}

    @app.get("/test/sync")
    def logs_in_a_thread() -> dict[str, str]:
        log.info("in a thread")
        return {}

    routes = app.router.routes
    routes[:0] = [routes.pop(), routes.pop()]  # before the site's catch-all mount

    with TestClient(app) as client, captured("cardtable.test") as got:
        client.get("/test/async", headers={"X-Request-ID": "req.1"})
        answer = client.get("/test/sync")
        log.info("between requests")
    assert [line["request_id"] for line in got.lines[:2]] == [
        "req.1",
        answer.headers["x-request-id"],
    ]
    assert "request_id" not in got.lines[2]
    assert {line["logger"] for line in got.lines} == {"cardtable.test"}


def test_the_json_line_of_an_access_record_and_of_an_error() -> None:
    formatter = logs.JsonFormatter()
    access = logging.LogRecord(
        logs.ACCESS, logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/continue?x=1", "1.1", 200), None,
    )  # fmt: skip
    token = logs.CURRENT.set(logs.RequestInfo("abc-123", "GET", "/api/continue", "203.0.113.9", 0))
    try:
        line = json.loads(formatter.format(access))
    finally:
        logs.CURRENT.reset(token)
    assert line["message"] == '127.0.0.1:5000 - "GET /api/continue?x=1 HTTP/1.1" 200'
    assert line["time"].endswith("Z") and line["level"] == "INFO"
    assert line["logger"] == "uvicorn.access" and isinstance(line["pid"], int)
    assert (line["method"], line["path"], line["status"]) == ("GET", "/api/continue?x=1", 200)
    assert line["client"] == "203.0.113.9"  # the address the server believes, not the peer's
    assert line["request_id"] == "abc-123" and line["duration_ms"] > 0
    # Outside a request (no id): the peer from uvicorn's record.
    assert json.loads(formatter.format(access))["client"] == "127.0.0.1"
    try:
        raise ValueError("boom\non two lines")
    except ValueError:
        error = logging.LogRecord(
            "uvicorn.error", logging.ERROR, __file__, 1, "failed", None, sys.exc_info()
        )
    text = formatter.format(error)
    assert "\n" not in text
    assert "ValueError: boom" in json.loads(text)["exception"]
    said = json.loads(logs.json_line("hello"))
    assert said["message"] == "hello" and said["logger"] == "cardtable.serve"
    with pytest.raises(ValueError):
        logs.log_config("text")


# -- /metrics -----------------------------------------------------------------------------


def test_metrics_are_served_to_loopback_in_the_text_format(tmp_path: Path) -> None:
    with served(settings_for(tmp_path)) as client:
        scraped = client.get("/metrics")
        assert scraped.status_code == 200
        assert scraped.headers["content-type"].startswith("text/plain")
        assert scraped.headers["cache-control"] == "no-store"
        names = {f.name for f in text_string_to_metric_families(scraped.text)}
        assert {
            "cardtable_http_requests",
            "cardtable_http_request_duration_seconds",
            "cardtable_moves",
            "cardtable_live_sockets",
            "cardtable_search_queue",
            "cardtable_search_busy",
            "cardtable_refused",
            "cardtable_store_transaction_seconds",
            "cardtable_store_errors",
            "cardtable_retention_sweeps",
            "cardtable_retention_deleted",
        } <= names
    with served(settings_for(tmp_path), ("::ffff:127.0.0.1", 5)) as mapped:
        assert mapped.get("/metrics").status_code == 200


@pytest.mark.parametrize(
    ("allow", "client", "headers"),
    [
        (("127.0.0.1", "::1"), ("203.0.113.9", 5), {}),
        (("127.0.0.1", "::1"), ("testclient", 5), {}),
        ((), LOOPBACK, {}),  # --metrics-allow "": nobody
        # Through a proxy the server does not trust: every client looks like the proxy.
        (("127.0.0.1", "::1"), LOOPBACK, {"X-Forwarded-For": "203.0.113.9"}),
        (("127.0.0.1", "::1"), LOOPBACK, {"Forwarded": "for=203.0.113.9"}),
    ],
)
def test_metrics_are_refused_to_any_other_address(
    tmp_path: Path, allow: tuple[str, ...], client: tuple[str, int], headers: dict[str, str]
) -> None:
    with served(settings_for(tmp_path, metrics_allow=allow), client) as c:
        refused = c.get("/metrics", headers=headers)
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
        assert "cardtable_" not in refused.text


def test_an_allowed_network_reads_the_metrics(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, metrics_allow=("10.0.0.0/8",))
    with served(settings, ("10.1.2.3", 5)) as c:
        assert c.get("/metrics").status_code == 200


def test_metrics_touch_no_store_and_make_no_player(tmp_path: Path) -> None:
    with served(settings_for(tmp_path, player_rate=1.0, player_burst=1)) as client:
        store = client.app.state.runtime.store  # type: ignore[attr-defined]
        used: list[str] = []
        for name in ("transaction", "reading"):
            opener = getattr(store, name)

            def spy(opener: Any = opener, name: str = name) -> Any:
                if logs.CURRENT.get() is not None:  # a request's (not the online driver's)
                    used.append(name)
                return opener()

            setattr(store, name, spy)
        for _ in range(5):  # past any per-player or per-address rate
            assert client.get("/metrics").status_code == 200
        assert used == []


@contextmanager
def behind_a_proxy(settings: Settings) -> Iterator[str]:
    """The app served by uvicorn as `cardtable serve` configures it, in a thread."""
    port = free_port()
    config = uvicorn_config(
        create_app(settings), settings, host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the server did not start"
            thread.join(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def test_a_client_forwarded_by_a_trusted_proxy_is_refused_and_loopback_allowed(
    tmp_path: Path,
) -> None:
    settings = settings_for(tmp_path, forwarded_allow_ips=("127.0.0.1",))
    with behind_a_proxy(settings) as base:
        # The proxy is on loopback, but the client it forwards is public: refused.
        forwarded = httpx.get(f"{base}/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
        assert forwarded.status_code == 403
        # A loopback client forwarded by the proxy, and loopback itself: allowed.
        local = httpx.get(f"{base}/metrics", headers={"X-Forwarded-For": "127.0.0.1"})
        assert local.status_code == 200
        direct = httpx.get(f"{base}/metrics")
        assert direct.status_code == 200 and "cardtable_http_requests_total" in direct.text


# -- moves, refusals, the store, live sockets, retention ------------------------------------


def test_moves_are_counted_by_game_and_by_whom(tmp_path: Path) -> None:
    with served(settings_for(tmp_path)) as client:
        api = Api.new_player(client)
        kinds = [
            (g, by) for g in ("poker_squares", "kings_corner") for by in ("person", "computer")
        ]
        before = {kind: value("cardtable_moves_total", game=kind[0], by=kind[1]) for kind in kinds}
        game = api.ps_new()
        moved = api.ps(game, "moves", row=0, col=0)
        moved = api.ps(moved, "undo")
        api.ps(moved, "moves", row=1, col=1)
        api.ps(game, "moves", row=4, col=4, status=409)  # stale: nothing committed
        made = {("poker_squares", "person"): 3, ("kings_corner", "person"): 0}
        made[("kings_corner", "computer")] = 0
        match = api.kc_new()
        while not made[("kings_corner", "person")] or not made[("kings_corner", "computer")]:
            if match["phase"] == "computer":
                match = api.kc(match, "computer-step")
                made[("kings_corner", "computer")] += 1
            elif match["phase"] == "play":
                match = api.kc(match, "moves", move=match["view"]["legal_moves"][0])
                made[("kings_corner", "person")] += 1
            else:  # the round or match ended first: another match
                match = api.kc_new()
        for kind in kinds:
            after = value("cardtable_moves_total", game=kind[0], by=kind[1])
            assert after - before[kind] == made.get(kind, 0), kind


def test_refusals_are_counted_by_reason(tmp_path: Path) -> None:
    with served(settings_for(tmp_path, player_rate=0.001, player_burst=1)) as client:
        api = Api.new_player(client)
        before = value("cardtable_refused_total", reason="player_rate")
        api.get("/api/continue")
        assert client.get("/api/continue", headers=api.headers).status_code == 429
        assert value("cardtable_refused_total", reason="player_rate") - before == 1
    before_other = value("cardtable_refused_total", reason="other")
    metrics.count_refusal("no such reason")
    assert value("cardtable_refused_total", reason="other") - before_other == 1


def test_every_reason_a_refusal_is_counted_under_is_listed(tmp_path: Path) -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "cardtable" / "server").rglob("*.py"))
    used = set(re.findall(r'count_refusal\(\s*"([a-z_]+)"', source))
    used |= set(re.findall(r'"([a-z_]+_rate)"', source))  # the token buckets' reasons
    stored = Runtime(settings_for(tmp_path)).stored_limits
    used |= {name.replace("-", "_") + "_rate" for name in stored}
    assert len(used) > 20
    assert used <= metrics.REASONS, used - metrics.REASONS


def test_the_search_queue_and_busy_searches_are_gauges(tmp_path: Path) -> None:
    admission = Admission(
        settings_for(tmp_path, max_searches=1, search_queue=0, search_processes=0)
    )
    seen: list[float] = []

    def search() -> None:
        seen.append(value("cardtable_search_busy"))

    busy = value("cardtable_search_busy")
    full = value("cardtable_refused_total", reason="search_queue_full")
    with admission.reserve("g1", "p1"):
        admission.run(search)
        with pytest.raises(ApiError) as refused, admission.reserve("g2", "p2"):
            pass
    assert refused.value.status == 503
    assert seen == [busy + 1] and value("cardtable_search_busy") == busy
    assert value("cardtable_refused_total", reason="search_queue_full") - full == 1

    waiting = Admission(settings_for(tmp_path, max_searches=1, search_wait=60.0))
    queued = value("cardtable_search_queue")
    release = threading.Event()
    holder = threading.Thread(target=lambda: _hold(waiting, release))
    with waiting.reserve("g1", "p1"):
        holder.start()
        while value("cardtable_search_queue") != queued + 1:
            assert holder.is_alive()
            holder.join(0.01)  # the other request waits for the slot
    holder.join()
    assert value("cardtable_search_queue") == queued


def _hold(admission: Admission, release: threading.Event) -> None:
    with admission.reserve("g2", "p2"):
        release.set()


class _ThisThread:
    """`STORE_SECONDS` as the store sees it, noting which kinds this thread timed (another
    server of the same test process, a live page's, times its own work meanwhile)."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.thread = threading.get_ident()

    def labels(self, *, kind: str) -> Any:
        if threading.get_ident() == self.thread:
            self.kinds.append(kind)
        return metrics.STORE_SECONDS.labels(kind=kind)


def test_store_transactions_are_timed_and_failures_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    timed = _ThisThread()
    monkeypatch.setattr(sql, "STORE_SECONDS", timed)
    store = SqliteStore(tmp_path / "store.sqlite3")
    try:
        writes = value("cardtable_store_transaction_seconds_count", kind="write")
        reads = value("cardtable_store_transaction_seconds_count", kind="read")
        timed.kinds.clear()
        store.create_player("p")
        assert store.has_player("p")
        assert timed.kinds == ["write", "read"]
        assert value("cardtable_store_transaction_seconds_count", kind="write") - writes >= 1
        assert value("cardtable_store_transaction_seconds_count", kind="read") - reads >= 1
        errors = value("cardtable_store_errors_total", error="database")
        with pytest.raises(sqlite3.OperationalError), store.transaction() as tx:
            tx.execute("SELECT * FROM no_such_table")
        assert value("cardtable_store_errors_total", error="database") - errors == 1
        # A refusal inside a transaction is not the store's failure.
        with pytest.raises(StaleVersion), store.transaction():
            raise StaleVersion("g")
        assert value("cardtable_store_errors_total", error="database") - errors == 1
        unavailable = value("cardtable_store_errors_total", error="unavailable")
    finally:
        store.close()
    with pytest.raises(Exception, match="closed"):
        store.has_player("p")
    assert value("cardtable_store_errors_total", error="unavailable") - unavailable == 1


def test_live_sockets_open_are_a_gauge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside = threading.Event()
    leave = asyncio.Event()
    loop: list[asyncio.AbstractEventLoop] = []

    async def serve(ws: Any, online: Any, token: str, slot: Any) -> None:
        loop.append(asyncio.get_running_loop())
        await ws.accept()
        inside.set()
        await leave.wait()
        await ws.close()

    monkeypatch.setattr(live, "_serve", serve)
    before = value("cardtable_live_sockets")
    live_path = "/api/kings-corner/online/abcdefghijklmnop/live"
    with served(settings_for(tmp_path)) as client, client.websocket_connect(live_path) as ws:
        inside.wait()
        assert value("cardtable_live_sockets") == before + 1
        loop[0].call_soon_threadsafe(leave.set)
        ws.receive()
    assert value("cardtable_live_sockets") == before


def test_retention_sweeps_and_deletions_are_counted(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, idle_player_days=None, max_unfinished_games=1)
    with served(settings) as client:
        runtime = client.app.state.runtime  # type: ignore[attr-defined]
        ran = value("cardtable_retention_sweeps_total", outcome="ran")
        not_claimed = value("cardtable_retention_sweeps_total", outcome="not_claimed")
        retention.sweep(runtime, now=1e9)
        retention.sweep(runtime, now=1e9 + 1)  # claimed a moment ago: not run again
        assert value("cardtable_retention_sweeps_total", outcome="ran") - ran == 1
        assert value("cardtable_retention_sweeps_total", outcome="not_claimed") - not_claimed == 1
        pruned = value("cardtable_retention_deleted_total", what="pruned")
        api = Api.new_player(client)
        api.ps_new()
        api.ps_new()  # the first unfinished deal goes
        assert value("cardtable_retention_deleted_total", what="pruned") - pruned == 1


# -- several workers ----------------------------------------------------------------------


def test_the_supervisor_drops_the_gauges_of_a_worker_that_exited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cardtable.cli import serve_workers

    class Worker:
        def __init__(self, pid: int) -> None:
            self.pid = pid
            self.exitcode: int | None = None

    gone: list[int] = []
    monkeypatch.setattr(metrics, "worker_gone", gone.append)
    supervisor = serve_workers.Supervisor.__new__(serve_workers.Supervisor)
    supervisor._known = {}
    a, b = Worker(11), Worker(12)
    supervisor.processes = [a, b]  # type: ignore[list-item]
    supervisor._reap()
    assert gone == []
    a.exitcode = -9  # killed; uvicorn starts another in its place
    supervisor.processes = [Worker(13), b]  # type: ignore[list-item]
    supervisor._reap()
    supervisor._reap()
    assert gone == [11]


def test_a_multiprocess_directory_sums_every_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with metrics.multiprocess_dir() as path:
        assert Path(path).is_dir() and os.environ[metrics.MULTIPROC_DIR] == path
        # Two processes' files, as two workers leave them (counter and live gauge).
        from prometheus_client import values

        value_class = values.MultiProcessValue(lambda: 101)  # type: ignore[no-untyped-call]
        counter = value_class("counter", "cardtable_x", "cardtable_x_total", (), (), "x")
        counter.inc(2)
        gauge = value_class(
            "gauge", "cardtable_y", "cardtable_y", (), (), "y", multiprocess_mode="livesum"
        )
        gauge.inc(1)
        body, media_type = metrics.exposition()
        assert media_type.startswith("text/plain")
        samples = {
            s.name: s.value
            for family in text_string_to_metric_families(body.decode())
            for s in family.samples
        }
        assert samples["cardtable_x_total"] == 2 and samples["cardtable_y"] == 1
        metrics.worker_gone(101)
        samples = {
            s.name: s.value
            for family in text_string_to_metric_families(metrics.exposition()[0].decode())
            for s in family.samples
        }
        assert samples["cardtable_x_total"] == 2 and "cardtable_y" not in samples
        value_class.close_all_files()
    assert not Path(path).exists()


def test_every_route_is_counted_under_its_documented_template(tmp_path: Path) -> None:
    """Every operation of the OpenAPI, asked with made-up parameters (whatever it answers),
    adds one request under its path as documented, never under the path asked."""
    with served(settings_for(tmp_path, player_rate=None)) as client:
        paths = client.get("/openapi.json").json()["paths"]
        assert len(paths) > 30
        for template, operations in paths.items():
            path = re.sub(r"\{[^}]+\}", "x1", template)
            for method in operations:
                method = method.upper()
                before = counted(template, method)
                client.request(method, path)
                assert counted(template, method) - before == 1, (method, template)
        assert observe.route_label({}) == "other"


def counted(route: str, method: str) -> float:
    """Requests counted under ``route`` and ``method``, whatever their status."""
    return sum(
        sample.value
        for family in REGISTRY.collect()
        if family.name == "cardtable_http_requests"
        for sample in family.samples
        if sample.name.endswith("_total")
        and sample.labels.get("route") == route
        and sample.labels.get("method") == method
    )
