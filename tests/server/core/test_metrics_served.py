"""`cardtable serve --workers 2 --log-format json` on PostgreSQL, as a real process (one start
for this file): `/metrics`, read with prometheus_client's own parser, agrees with the requests
this test made, whichever of the two workers served them and whichever is scraped; and every
line the server writes is one JSON object, the access lines with the request id (the
request's own ``X-Request-ID``, or a new one) that the answer carries back.

Nothing here bounds time: each wait is for a condition (a log line, a counter), with a
generous deadline only so that a broken server fails instead of hanging.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.postgres import fresh_schema
from tests.support.serve_process import ServeProcess

T = TypeVar("T")
PATIENCE = 120.0
"""Seconds a wait goes on before the test fails (the condition, not a speed, is checked)."""
CONTINUE = "/api/continue"
MOVES = "/api/poker-squares/games/{game_id}/moves"


@pytest.fixture(scope="module")
def server(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    root: Path = tmp_path_factory.mktemp("metrics-served")
    with fresh_schema(postgres_url) as url:
        process = ServeProcess(
            root / "data", root / "serve.log", url, workers=2, args=["--log-format", "json"]
        )
        try:
            process.start()
            yield process
        finally:
            process.stop()


def lines(server: ServeProcess) -> list[str]:
    """The server's complete output lines so far (a line still being written is left out)."""
    text = server.output()
    return text[: text.rfind("\n") + 1].splitlines()


def records(server: ServeProcess) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines(server)]


def wait_for(what: str, probe: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + PATIENCE
    while True:
        found = probe()
        if found is not None:
            return found
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def access_line(server: ServeProcess, request_id: str) -> dict[str, Any] | None:
    for record in records(server):
        if record["logger"] == "uvicorn.access" and record.get("request_id") == request_id:
            return record
    return None


def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = httpx.get(f"{base}/metrics", timeout=30)
    assert answer.status_code == 200, answer.text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def requests_key(route: str, method: str, status: int) -> tuple[str, tuple[tuple[str, str], ...]]:
    labels = {"route": route, "method": method, "status": str(status)}
    return "cardtable_http_requests_total", tuple(sorted(labels.items()))


def test_metrics_agree_with_the_requests_made_across_both_workers(server: ServeProcess) -> None:
    sent: Counter[tuple[str, str, int]] = Counter()
    ids: list[str] = []

    def call(method: str, path: str, route: str, **kwargs: Any) -> httpx.Response:
        # A new connection each time: the kernel hands each to whichever worker accepts it.
        request_id = f"metrics-{len(ids)}"
        headers = {"X-Request-ID": request_id, **kwargs.pop("headers", {})}
        with httpx.Client(base_url=server.base, timeout=30) as client:
            answer = client.request(method, path, headers=headers, **kwargs)
        assert answer.headers["x-request-id"] == request_id
        ids.append(request_id)
        sent[(route, method, answer.status_code)] += 1
        return answer

    player = call("POST", "/api/players", "/api/players").json()["player_id"]
    me = {"X-Player-Id": player}

    def workers_seen() -> set[int]:
        served = {r.get("request_id"): r["pid"] for r in records(server)}
        return {served[i] for i in ids if i in served}

    # Until both workers have served some of this test's requests (their access lines say
    # which process wrote them).
    for _ in range(40):
        for _ in range(5):
            assert call("GET", CONTINUE, CONTINUE, headers=me).status_code == 200
            assert call("GET", "/api/no-such-thing", "other").status_code == 404
        wait_for("the access lines", lambda: ids[-1] if access_line(server, ids[-1]) else None)
        if len(workers_seen()) == 2:
            break
    assert len(workers_seen()) == 2, "every request went to one worker"
    deal = call("POST", "/api/poker-squares/games", "/api/poker-squares/games", headers=me, json={})
    game = deal.json()
    placed = 0
    for col in range(5):
        path = f"/api/poker-squares/games/{game['id']}/moves"
        body = {"version": game["version"], "row": 0, "col": col}
        answer = call("POST", path, MOVES, headers=me, json=body)
        assert answer.status_code == 200, answer.text
        game = answer.json()
        placed += 1
    stale = {"version": 1, "row": 1, "col": 0}
    assert call("POST", path, MOVES, headers=me, json=stale).status_code == 409

    expected = {requests_key(*key): float(n) for key, n in sent.items()}
    moves_key = ("cardtable_moves_total", (("by", "person"), ("game", "poker_squares")))
    expected[moves_key] = float(placed)

    def all_counted() -> dict[Any, float] | None:
        # A worker counts a request just after answering it: scrape until every count is
        # in (each scrape lands on either worker; both read every worker's values).
        samples = scrape(server.base)
        got = {key: samples.get(key, 0.0) for key in expected}
        return got if all(got[key] >= n for key, n in expected.items()) else None

    counted = wait_for("every request counted", all_counted)
    assert counted == expected
    # Each latency histogram counted its requests too, and the gauges are there.
    samples = scrape(server.base)
    continues = sum(n for (route, _, _), n in sent.items() if route == CONTINUE)
    count_key = ("cardtable_http_request_duration_seconds_count", (("route", CONTINUE),))
    assert samples[count_key] == continues
    bucket = (
        "cardtable_http_request_duration_seconds_bucket",
        (("le", "+Inf"), ("route", CONTINUE)),
    )
    assert samples[bucket] == continues
    assert samples[("cardtable_live_sockets", ())] == 0
    assert samples[("cardtable_search_queue", ())] == 0
    assert samples[("cardtable_store_transaction_seconds_count", (("kind", "write"),))] > 0


def test_every_line_is_json_and_carries_the_request_id(server: ServeProcess) -> None:
    given = httpx.get(f"{server.base}/healthz", headers={"X-Request-ID": "abc-123"}, timeout=30)
    assert given.status_code == 200 and given.headers["x-request-id"] == "abc-123"
    line = wait_for("the access line of abc-123", lambda: access_line(server, "abc-123"))
    assert (line["method"], line["path"], line["status"]) == ("GET", "/healthz", 200)
    assert line["client"] == "127.0.0.1" and line["level"] == "INFO"
    assert isinstance(line["duration_ms"], float) and line["time"].endswith("Z")

    made = httpx.get(f"{server.base}/api/nowhere", timeout=30)
    assert made.status_code == 404
    new_id = made.headers["x-request-id"]
    assert len(new_id) == 32 and new_id != "abc-123"
    line = wait_for("the access line of a new id", lambda: access_line(server, new_id))
    assert line["status"] == 404 and line["path"] == "/api/nowhere"

    def both_started() -> list[str] | None:
        # The first worker may answer while the second is still starting (a busy machine).
        output = lines(server)
        pids = {
            r["pid"] for r in map(json.loads, output)
            if str(r.get("message", "")).startswith("Application startup complete")
        }  # fmt: skip
        return output if len(pids) == 2 else None

    output = wait_for("both workers' startup lines", both_started)
    for text in output:
        record = json.loads(text)  # every line, from the supervisor and both workers
        assert {"time", "level", "logger", "message", "pid"} <= set(record), text
    said = [json.loads(text) for text in output]
    assert said[0]["logger"] == "cardtable.serve" and "2 worker processes" in said[0]["message"]
    started = [r for r in said if r["message"].startswith("Application startup complete")]
    assert len({r["pid"] for r in started}) == 2  # both workers log as JSON
