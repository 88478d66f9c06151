"""What the server counts, for `/metrics` (observe.py) in the Prometheus text format
(docs/operating.md, "Watch", lists every name; counters end in ``_total`` there).

With one process the metrics live in `prometheus_client`'s default registry. Under
`cardtable serve --workers N` each worker is a process of its own: the supervisor makes a
private directory and names it in ``PROMETHEUS_MULTIPROC_DIR`` before it starts the workers
(`multiprocess_dir`), so `prometheus_client` keeps every worker's values in files there (the
variable must be set before the worker creates its first metric: workers are *spawned*, so
they have it from their start), `exposition` sums them at scrape time, whichever worker is
scraped, and the supervisor drops a gone worker's gauges (`worker_gone`). Counters and
histograms of a worker that died stay in the sums, as Prometheus expects of counters.

- ``cardtable_http_requests_total{route,method,status}``, ``cardtable_http_request_duration_
  seconds{route}``: every HTTP request by its route's template (observe.py);
- ``cardtable_moves_total{game,by}``: moves committed, by game and by a person or computer;
- ``cardtable_live_sockets``: live-channel connections open (online/live.py);
  ``cardtable_live_closed_total{reason}``: the ones the server closed, by the close frame's
  reason (docs/online.md "Closing codes");
- ``cardtable_search_queue``, ``cardtable_search_busy``: requests waiting for a search slot,
  and searches running (admission.py);
- ``cardtable_refused_total{reason}``: requests refused for load or over a limit (429, 503,
  409 ``busy``), by reason (`REASONS`);
- ``cardtable_waits_refused_total{what,reason}``: requests refused instead of waiting for
  work being computed for someone else (``replay``; ``player``: the caller already has
  `kc_replay.WAITING_PER_PLAYER` waiting, ``total``: the process has `kc_replay.WAITING`);
- ``cardtable_store_transaction_seconds{kind}``, ``cardtable_store_errors_total{error}``:
  the store's transactions and reads, and its failures (store/sql.py);
- ``cardtable_retention_sweeps_total{outcome}``, ``cardtable_retention_deleted_total{what}``:
  the retention sweep and what retention deleted (retention.py, store/sql.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""Where a worker keeps its values under `--workers` (prometheus_client's variable)."""

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds: 5 ms (a read answered from memory) to 10 s (the request deadline)."""
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds: half a millisecond (a SQLite read) to the PostgreSQL pool's 1.5 s wait and beyond."""

HTTP_REQUESTS = Counter(
    "cardtable_http_requests",
    "HTTP requests answered, by route template, method and status",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "cardtable_http_request_duration_seconds",
    "Time from a request's arrival at the app to the end of its answer, by route template",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
MOVES = Counter(
    "cardtable_moves", "Moves committed to the store, by game and by whom", ["game", "by"]
)
LIVE_OPEN = Gauge(
    "cardtable_live_sockets", "Live-channel connections open", multiprocess_mode="livesum"
)
LIVE_CLOSED = Counter(
    "cardtable_live_closed", "Live connections the server closed, by reason", ["reason"]
)
SEARCH_QUEUE = Gauge(
    "cardtable_search_queue",
    "Requests waiting for a search slot (hints, strong computer steps)",
    multiprocess_mode="livesum",
)
SEARCH_BUSY = Gauge(
    "cardtable_search_busy",
    "Searches running in the search pool (or in a request thread without one)",
    multiprocess_mode="livesum",
)
REFUSED = Counter(
    "cardtable_refused", "Requests refused for load or over a limit, by reason", ["reason"]
)
WAITS_REFUSED = Counter(
    "cardtable_waits_refused",
    "Requests refused rather than wait for work being computed, by what and why",
    ["what", "reason"],
)
STORE_SECONDS = Histogram(
    "cardtable_store_transaction_seconds",
    "Time a store transaction (write) or reading cursor (read) was held, by kind",
    ["kind"],
    buckets=STORE_BUCKETS,
)
STORE_ERRORS = Counter(
    "cardtable_store_errors", "Store failures (database errors, unreachable, busy)", ["error"]
)
RETENTION_SWEEPS = Counter(
    "cardtable_retention_sweeps", "Retention sweeps looked for, by outcome", ["outcome"]
)
RETENTION_DELETED = Counter(
    "cardtable_retention_deleted", "Rows the retention work deleted, by what", ["what"]
)

REASONS = frozenset(
    {
        # Rate limits (429 rate_limited), in-process token buckets: `TokenBuckets.reason`.
        "player_rate", "signup_rate", "hint_rate", "live_handshake_rate",
        "online_lookup_rate", "online_lookups_rate", "online_join_rate", "online_create_rate",
        "online_table_rate", "online_qr_rate",
        # Reactions per device (online/reactions.py), kept in the store.
        "online_reaction_rate",
        # The quick-play queue (quickplay/service.py): joins and reads per player and per
        # address, waiting players per address, and the cool-down after leaving in a loop.
        "quick_join_rate", "quick_address_rate", "quick_read_rate", "quick_per_address",
        "quick_cooldown",
        # Rate limits kept in the store (runtime.stored_limit).
        "claim_rate", "transfer_rate", "recovery_rate", "site_claims_rate", "site_lookups_rate",
        # The search pool (admission.py): 503 unavailable, 409 busy, 429 one at a time.
        "search_queue_full", "search_wait", "search_pool_broken", "search_game_busy",
        "spare_one_at_a_time", "spare_full", "spare_wait",
        # Waits for work computed for someone else (kc_replay.py).
        "replay_waits_player", "replay_waits_total", "replay_busy",
        # Per-player queues and caps.
        "review_queue_full", "online_open_tables",
        # The connection cap (core/serving.py): a new connection answered 503.
        "connections_full",
        # Counted for a reason missing from this list (a bug; a test looks for one).
        "other",
    }
)  # fmt: skip
"""Every ``reason`` of ``cardtable_refused_total`` (docs/operating.md, "Watch")."""


def count_refusal(reason: str) -> None:
    """Count one refusal of `REASONS` (any other as ``other``: the label stays bounded)."""
    REFUSED.labels(reason=reason if reason in REASONS else "other").inc()


def exposition() -> tuple[bytes, str]:
    """The metrics as the Prometheus text format (body, content type): this process's, or,
    with ``PROMETHEUS_MULTIPROC_DIR`` set, every worker's summed."""
    if os.environ.get(MULTIPROC_DIR):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


@contextlib.contextmanager
def multiprocess_dir() -> Iterator[str]:
    """For the supervisor of `--workers`, before it starts them: a new private directory
    named in ``PROMETHEUS_MULTIPROC_DIR`` (a leftover one would add a previous run's
    values), removed with the variable at the end."""
    before = os.environ.get(MULTIPROC_DIR)
    path = tempfile.mkdtemp(prefix="cardtable-metrics-")
    os.environ[MULTIPROC_DIR] = path
    try:
        yield path
    finally:
        if before is None:
            os.environ.pop(MULTIPROC_DIR, None)
        else:
            os.environ[MULTIPROC_DIR] = before
        shutil.rmtree(path, ignore_errors=True)


def worker_gone(pid: int) -> None:
    """A worker process has exited: its gauges leave the sums (its counters stay)."""
    path = os.environ.get(MULTIPROC_DIR)
    if path:
        mark_process_dead(pid, path)  # type: ignore[no-untyped-call]


PUSH_SENT = Counter(
    "cardtable_push_sent",
    "Web Push notifications sent to push services, by outcome (delivered, retry, gone, "
    "dropped, failed)",
    ["outcome"],
)
