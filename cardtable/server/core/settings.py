"""Server settings, all in one place: where the store lives and the limits the server keeps.

``database_url`` defaults to the environment's ``DATABASE_URL``: a ``postgresql://`` URL selects
PostgreSQL; unset (or empty) means the embedded SQLite file under ``data_dir``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.push_config import PushSettings
from cardtable.server.core.quick_config import QuickSettings

WEB_DIR = Path(__file__).resolve().parents[2] / "web"


@dataclass(frozen=True)
class Settings:
    """Everything `create_app` needs. The defaults serve the site from ./data on SQLite."""

    data_dir: Path = Path("data")
    database_url: str | None = field(default_factory=lambda: os.environ.get("DATABASE_URL") or None)
    web_dir: Path = WEB_DIR
    """The static site (index.html, ...) served at "/"; missing means every page is 404."""
    max_body_bytes: int = 16 * 1024
    """Request bodies above this answer 413 ``too_large``; every real body is far smaller."""
    hint_budget: int | None = None
    """Budget of the Poker Squares hint: two-card lookahead pairs, 0 for the learned evaluator
    alone (docs/hint-engine.md); None means the hint engine's interactive budget."""
    log_recent: int = 60
    """How many recent Kings Corner steps a response carries (the full log stays in the store)."""
    sqlite_busy_ms: int = 10_000
    pg_pool_size: int = 8
    player_rate: float | None = 50.0
    """Requests per second one player id may make, sustained (None: no limit). A person
    clicking fast makes a few; a page polling computer steps about five."""
    player_burst: int = 300
    """Requests one player id may make at once before ``player_rate`` applies."""
    signup_rate: float | None = 1.0
    """New player ids per second from one client address, sustained (None: no limit)."""
    signup_burst: int = 120
    """New player ids one client address may create at once (a page makes one)."""
    claim_rate: float | None = 10 / 60
    """Transfer-code claims and recovery restores per second from one client address,
    sustained (None: no limit): 10 a minute, the guessing limit of docs/devices.md."""
    claim_burst: int = 10
    transfer_rate: float | None = 6 / 3600
    """Transfer codes one player may make per second, sustained: 6 an hour."""
    transfer_burst: int = 6
    recovery_rate: float | None = 6 / 3600
    """Recovery keys one player may make per second, sustained: 6 an hour."""
    recovery_burst: int = 6
    search_rate: float | None = 2.0
    """Hints per second one player id may ask for, sustained (None: no limit); a person asks
    for at most one per card (docs/reliability.md, "Admission")."""
    search_burst: int = 20
    max_searches: int = field(default_factory=lambda: _spare_cpus())
    """Searches running at once in this process; beyond it a request waits (below) or gets
    503 ``unavailable``. Default: one fewer than the CPUs (at least 1), so searches never take
    the CPU the other requests need."""
    search_queue: int = 8
    """Searches that may wait for a slot at once; more are refused at once (503)."""
    search_wait: float = 2.0
    """Seconds a search waits for a slot before it is refused (503)."""
    search_processes: int = field(default_factory=lambda: _spare_cpus())
    """Worker processes that run the searches (0: in the request's own thread)."""
    review_running: int = 2
    """Poker Squares reviews computed at once in this process (each step in the search pool,
    `review/jobs.py`); the next to start is taken from the players waiting in turn, so one
    player's reviews never hold back another's (docs/reliability.md, "Admission")."""
    review_queue: int = 3
    """Reviews one player may have waiting in this process beside the one running (a player
    runs one at a time); a further one is refused with 429 ``rate_limited``."""
    max_unfinished_games: int = 20
    """Unfinished games one player keeps per kind (the current one and the newest replaced
    ones); older replaced unfinished games are deleted by the retention sweep."""
    max_finished_games: int = 200
    """Finished games one player keeps per kind with their state and move log; older ones
    lose both (their `finishes` row, the result, stays for the score board and history)."""
    max_finishes: int = 5000
    """Result rows one player keeps per kind (the newest, plus each best total); older ones
    are deleted."""
    idle_player_days: float | None = 180.0
    """An anonymous player not seen for this many days is deleted with everything it has
    (None: never)."""
    sweep_seconds: float | None = 600.0
    """How often the retention sweep runs (one process of many; None: never)."""
    max_connections: int | None = None
    """Open connections `cardtable serve` keeps, HTTP and live together (None: from the
    file-descriptor limit, `serving.default_max_connections`). `serving.connection_budgets`
    gives `OnlineSettings.max_live` (default half) to live sockets and the rest to HTTP,
    where beyond its share the longest idle connection is closed, or the new one gets 503."""
    request_timeout: float = 10.0
    """Seconds a connection has to send a whole request (head and body) after it opens or
    after its previous answer; a slower one is closed."""
    keep_alive_timeout: int = 5
    """Seconds an idle keep-alive connection stays open."""
    forwarded_allow_ips: tuple[str, ...] = ()
    """Addresses (or networks) of reverse proxies whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed; empty (the default): nobody's, the client address is
    the connection's peer. ``("*",)`` trusts everyone: only behind a proxy that is the sole
    way in."""
    metrics_allow: tuple[str, ...] = ("127.0.0.1", "::1")
    """Client addresses or networks that may read ``/metrics`` (core/observe.py): the
    address the server believes (a trusted proxy's forwarded client, not the proxy's own);
    empty: nobody. The default: this machine only."""
    online: OnlineSettings = field(default_factory=OnlineSettings)
    """Online Kings Corner tables: grace period, computer pacing, spectators (docs/online.md)."""
    push: PushSettings = field(default_factory=PushSettings)
    """Web Push notifications: VAPID key, push services, sending bounds (docs/online.md)."""
    quick: QuickSettings = field(default_factory=QuickSettings)
    """Quick play: the fill time, the rating range, the hostile-client bounds
    (docs/quickplay.md)."""
    allow_seed_for_tests: bool = False
    """Test-only: a create request may carry an ``X-Test-Seed`` header that fixes the deal.
    Off by default; it is a header, not a body field, so the public schema is unchanged."""
    site_lookup_rate: float | None = 1.0
    """Room-code lookups per second for the whole site, every server process together (kept
    in the store), sustained; None: no such ceiling. Over the per-address, per-code and
    per-process limits (`OnlineSettings`). About 3 lookups start a table (one per guest), so
    1/s is some 1,200 tables an hour joined by code; a guesser with any number of addresses
    gets 86,400 guesses a day of 31^6 codes (docs/online.md, "Abuse limits")."""
    site_lookup_burst: int = 60
    """Room-code lookups the whole site answers at once before ``site_lookup_rate`` applies
    (a class of 30 typing one code)."""
    site_claim_rate: float | None = 1.0
    """Transfer-code claims per second for the whole site, every server process together
    (kept in the store), sustained; None: no such ceiling. Over the per-address
    ``claim_rate``: 3,600 new devices an hour; a guesser with any number of addresses gets
    86,400 guesses a day of 31^8 codes (docs/devices.md, "Limits")."""
    site_claim_burst: int = 60
    """Transfer-code claims the whole site answers at once before ``site_claim_rate``."""

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "cardtable.sqlite3"

    @property
    def uses_postgres(self) -> bool:
        url = self.database_url or ""
        return url.startswith(("postgresql://", "postgres://"))


def _spare_cpus() -> int:
    return max(1, (os.cpu_count() or 2) - 1)
