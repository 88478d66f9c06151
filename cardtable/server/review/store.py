"""Stored reviews (migration 4, docs/review.md): one row per (game, part) holding the progress
of the review while some process computes it, then the finished review as JSON text.

A computation is owned: `claim` writes a random ``owner`` and a lease deadline
(``lease_until``, epoch seconds) with compare-and-set, so of several processes asked at once
exactly one computes; each step renews the lease (`progress`), and a row whose lease ran out
(its process stopped) can be claimed again by any process. Every process reads the same row,
so a request served anywhere sees the same progress. Written over `SqlStore`'s public
transaction and reading cursors, in ``?`` SQL both SQLite and PostgreSQL accept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cardtable.server.core.store.base import JSON
from cardtable.server.core.store.sql import now
from cardtable.server.core.store.tables import FeatureTables

RUNNING = "running"
DONE = "done"
FAILED = "failed"


@dataclass(frozen=True)
class ReviewRow:
    version: int
    """The game's version when the review began (a finished game never changes)."""
    budget: int
    status: str
    done: int
    total: int
    owner: str
    lease_until: float
    result: JSON | None


class ReviewStore(FeatureTables):
    what = "reviews"

    def load(self, game_id: str, part: str) -> ReviewRow | None:
        with self.sql.reading() as tx:
            row = self._exec(
                tx,
                "SELECT version, budget, status, done, total, owner, lease_until, result "
                "FROM reviews WHERE game_id = ? AND part = ?",
                (game_id, part),
            ).fetchone()
        if row is None:
            return None
        result = None if row[7] is None else json.loads(row[7])
        return ReviewRow(
            int(row[0]), int(row[1]), row[2], int(row[3]), int(row[4]), row[5], float(row[6]),
            result,
        )  # fmt: skip

    def claim(
        self,
        game_id: str,
        part: str,
        *,
        version: int,
        budget: int,
        total: int,
        owner: str,
        at: float,
        lease: float,
        seen: ReviewRow | None,
    ) -> bool:
        """Take the computation of this review for ``owner``: True when this call got it.

        ``seen`` is the row as the caller read it (None: no row). A new row is inserted;
        an existing one is taken over only if it is still exactly as seen (its owner and
        lease), so of two processes acting on the same row at once only one succeeds.
        """
        stamp = now()
        with self.sql.transaction() as tx:
            if seen is None:
                cur = self._exec(
                    tx,
                    "INSERT INTO reviews (game_id, part, version, budget, status, done, total, "
                    "owner, lease_until, result, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, NULL, ?, ?) "
                    "ON CONFLICT (game_id, part) DO NOTHING",
                    (game_id, part, version, budget, RUNNING, total, owner, at + lease, stamp,
                     stamp),
                )  # fmt: skip
            else:
                cur = self._exec(
                    tx,
                    "UPDATE reviews SET version = ?, budget = ?, status = ?, done = 0, total = ?, "
                    "owner = ?, lease_until = ?, result = NULL, updated_at = ? "
                    "WHERE game_id = ? AND part = ? AND owner = ? AND lease_until = ?",
                    (version, budget, RUNNING, total, owner, at + lease, stamp, game_id, part,
                     seen.owner, seen.lease_until),
                )  # fmt: skip
            return bool(cur.rowcount == 1)

    def progress(
        self, game_id: str, part: str, *, owner: str, done: int, at: float, lease: float
    ) -> bool:
        """Record ``done`` steps and renew the lease; False when ``owner`` lost the row."""
        with self.sql.transaction() as tx:
            cur = self._exec(
                tx,
                "UPDATE reviews SET done = ?, lease_until = ?, updated_at = ? "
                "WHERE game_id = ? AND part = ? AND owner = ? AND status = ?",
                (done, at + lease, now(), game_id, part, owner, RUNNING),
            )
            return bool(cur.rowcount == 1)

    def finish(
        self, game_id: str, part: str, *, owner: str, status: str, result: JSON | None
    ) -> bool:
        """Store the finished review (or the failure, ``result`` then names why)."""
        text = None if result is None else json.dumps(result, separators=(",", ":"))
        with self.sql.transaction() as tx:
            cur = self._exec(
                tx,
                "UPDATE reviews SET status = ?, done = total, result = ?, updated_at = ? "
                "WHERE game_id = ? AND part = ? AND owner = ? AND status = ?",
                (status, text, now(), game_id, part, owner, RUNNING),
            )
            return bool(cur.rowcount == 1)
