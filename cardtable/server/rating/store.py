"""The rating's tables (migration 15, docs/rating.md "What is stored"):

- ``ratings``: one row per rated player: ``mu``, ``sigma``, rated matches, the name they
  last played a rated match under, and when (``updated_at``, ISO UTC: the board's window);
- ``rating_history``: one row per player and rated match (their place, the table's size,
  the rating after it), for the chart;
- ``rated_matches``: one row per (table, match number) rated, written in the rating's
  transaction, so a match is rated once whichever process saved its end;
- ``rating_leavers``: who left a rated match before it ended (their seat may have gone to a
  computer since), so they are rated last.

Written inside the online table's save transaction (`rate.Rater`) and read by the routes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.server.core.store.base import Tx
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.rating.scale import MU, SIGMA

HISTORY = 200
"""History points one answer carries at most (the newest)."""
BOARD = 50
"""Rows of the public board."""


@dataclass(frozen=True)
class Rating:
    player: str
    mu: float
    sigma: float
    matches: int
    name: str | None
    updated_at: str


@dataclass(frozen=True)
class Point:
    at: str
    mu: float
    sigma: float
    place: int
    players: int


_RATING = "player, mu, sigma, matches, name, updated_at"


def _rating(r: Sequence[Any]) -> Rating:
    name = None if r[4] is None else str(r[4])
    return Rating(str(r[0]), float(r[1]), float(r[2]), int(r[3]), name, str(r[5]))


class RatingStore(FeatureTables):
    what = "ratings"

    def ratings(
        self, players: Sequence[str], tx: Tx | None = None, *, suffix: str = ""
    ) -> dict[str, Rating]:
        """The stored ratings of ``players`` (those never rated are absent)."""
        if not players:
            return {}
        marks = ", ".join("?" for _ in players)
        sql = f"SELECT {_RATING} FROM ratings WHERE player IN ({marks}){suffix}"
        rows = self._rows(sql, players) if tx is None else self._exec(tx, sql, players).fetchall()
        return {str(r[0]): _rating(r) for r in rows}

    def claim(self, tx: Tx, key: str, match_no: int, at: str) -> bool:
        """Mark match ``match_no`` of table ``key`` rated; False when it already was."""
        cur = self._exec(
            tx,
            "INSERT INTO rated_matches (table_key, match_no, rated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (table_key, match_no) DO NOTHING",
            (key, match_no, at),
        )
        return bool(cur.rowcount == 1)

    def put(self, tx: Tx, r: Rating, *, key: str, match_no: int, place: int, players: int) -> None:
        """Write ``r`` (the rating after match ``match_no`` of table ``key``) and its history."""
        self._exec(
            tx,
            f"INSERT INTO ratings ({_RATING}) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (player) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
            "matches = excluded.matches, name = excluded.name, "
            "updated_at = excluded.updated_at",
            (r.player, r.mu, r.sigma, r.matches, r.name, r.updated_at),
        )
        self._exec(
            tx,
            "INSERT INTO rating_history (player, table_key, match_no, place, players, mu, sigma, "
            "at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (player, table_key, match_no) DO NOTHING",
            (r.player, key, match_no, place, players, r.mu, r.sigma, r.updated_at),
        )

    def locked(self, tx: Tx, players: Sequence[str], at: str) -> dict[str, Rating]:
        """The ratings of ``players`` inside ``tx``, a new player's for those never rated,
        their rows locked until ``tx`` ends (PostgreSQL: two tables ending at once for one
        player update it one after the other; SQLite's write lock already does)."""
        for p in sorted(players):
            self._exec(
                tx,
                f"INSERT INTO ratings ({_RATING}) VALUES (?, ?, ?, 0, NULL, ?) "
                "ON CONFLICT (player) DO NOTHING",
                (p, MU, SIGMA, at),
            )
        lock = " FOR UPDATE" if self.sql.dialect == "postgresql" else ""
        return self.ratings(players, tx, suffix=" ORDER BY player" + lock)

    def note_leaver(self, tx: Tx, key: str, match_no: int, seat: int, player: str,
                    name: str | None) -> None:  # fmt: skip
        """``player`` left seat ``seat`` of match ``match_no`` of table ``key`` before its end."""
        self._exec(
            tx,
            "INSERT INTO rating_leavers (table_key, match_no, seat, player, name) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_key, match_no, seat) DO NOTHING",
            (key, match_no, seat, player, name),
        )

    def leavers(self, tx: Tx, key: str, match_no: int) -> dict[int, tuple[str, str | None]]:
        """Seat -> (player, name) of those who left match ``match_no`` of table ``key``."""
        rows = self._exec(
            tx,
            "SELECT seat, player, name FROM rating_leavers WHERE table_key = ? AND match_no = ?",
            (key, match_no),
        ).fetchall()
        return {int(r[0]): (str(r[1]), None if r[2] is None else str(r[2])) for r in rows}

    def forget_leavers(self, tx: Tx, key: str, match_no: int) -> None:
        """Match ``match_no`` of table ``key`` is rated: who left it is no longer needed."""
        self._exec(
            tx, "DELETE FROM rating_leavers WHERE table_key = ? AND match_no = ?", (key, match_no)
        )

    def delete_player(self, player: str) -> None:
        """Everything the rating keeps of ``player`` ("delete my data")."""
        with self.sql.transaction() as tx:
            for table in ("ratings", "rating_history", "rating_leavers"):
                self._exec(tx, f"DELETE FROM {table} WHERE player = ?", (player,))

    def history(self, player: str) -> list[Point]:
        """``player``'s rated matches, oldest first (the newest `HISTORY`)."""
        rows = self._rows(
            "SELECT at, mu, sigma, place, players FROM rating_history WHERE player = ? "
            "ORDER BY at DESC, table_key, match_no LIMIT ?",
            (player, HISTORY),
        )
        return [
            Point(str(r[0]), float(r[1]), float(r[2]), int(r[3]), int(r[4])) for r in reversed(rows)
        ]

    def board(self, since: str, below_sigma: float) -> list[Rating]:
        """The settled ratings (``sigma`` below ``below_sigma``) of players rated at or after
        ``since``, best first (the top `BOARD`)."""
        rows = self._rows(
            f"SELECT {_RATING} FROM ratings WHERE updated_at >= ? AND sigma < ? "
            "ORDER BY mu DESC, player LIMIT ?",
            (since, below_sigma, BOARD),
        )
        return [_rating(r) for r in rows]
