"""The store: where players, games (state JSON and move log) and results are kept.

`open_store(settings)` returns a `Store`: SQLite under ``settings.data_dir`` by default, or
PostgreSQL when ``settings.database_url`` is a ``postgresql://`` URL.
"""

from __future__ import annotations

from cardtable.server.core.settings import Settings
from cardtable.server.core.store.base import (
    Caller,
    Change,
    GameRecord,
    Result,
    ResultRecord,
    StaleVersion,
    Store,
    StoreBusy,
    StoreError,
)


def open_store(settings: Settings) -> Store:
    """Connect (and create the tables if needed). Raises `StoreError` when it cannot."""
    if settings.uses_postgres:
        from cardtable.server.core.store.postgres import PostgresStore

        assert settings.database_url is not None
        return PostgresStore(settings.database_url, pool_size=settings.pg_pool_size)
    if settings.database_url:
        raise StoreError("DATABASE_URL must be a postgresql:// URL (unset it to use SQLite)")
    from cardtable.server.core.store.sqlite import SqliteStore

    return SqliteStore(settings.sqlite_path, busy_ms=settings.sqlite_busy_ms)


__all__ = [
    "Caller",
    "Change",
    "GameRecord",
    "Result",
    "ResultRecord",
    "StaleVersion",
    "Store",
    "StoreBusy",
    "StoreError",
    "open_store",
]
