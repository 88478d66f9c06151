"""`FeatureTables`: a feature's own tables beside the game store (online tables, daily deals,
statistics, reviews), written over `SqlStore`'s public transaction and reading cursors in
``?`` SQL that both SQLite and PostgreSQL accept (rewritten to the store's placeholder)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardtable.server.core.store.base import Store, StoreError, Tx
from cardtable.server.core.store.sql import SqlStore


class FeatureTables:
    what = "this feature"
    """Named in the error when the store is not an SQL store."""

    def __init__(self, store: Store) -> None:
        if not isinstance(store, SqlStore):  # pragma: no cover - every store is one
            raise StoreError(f"{self.what}: only the SQL stores keep them")
        self.sql = store

    def _q(self, sql: str) -> str:
        p = self.sql.placeholder
        return sql if p == "?" else sql.replace("?", p)

    def _exec(self, tx: Tx, sql: str, params: Sequence[Any] = ()) -> Tx:
        tx.execute(self._q(sql), tuple(params))
        return tx

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self.sql.reading() as tx:
            return self._exec(tx, sql, params).fetchall()
