"""Server settings, all in one place: where the store lives and the limits the server keeps.

``database_url`` defaults to the environment's ``DATABASE_URL``: a ``postgresql://`` URL selects
PostgreSQL; unset (or empty) means the embedded SQLite file under ``data_dir``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .online_config import OnlineSettings

WEB_DIR = Path(__file__).resolve().parent.parent / "web"


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
    online: OnlineSettings = field(default_factory=OnlineSettings)
    """Online Kings Corner tables: grace period, computer pacing, spectators (docs/online.md)."""
    allow_seed_for_tests: bool = False
    """Test-only: a create request may carry an ``X-Test-Seed`` header that fixes the deal.
    Off by default; it is a header, not a body field, so the public schema is unchanged."""

    @property
    def sqlite_path(self) -> Path:
        return self.data_dir / "cardtable.sqlite3"

    @property
    def uses_postgres(self) -> bool:
        url = self.database_url or ""
        return url.startswith(("postgresql://", "postgres://"))
