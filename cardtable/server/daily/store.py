"""The daily deal's tables (migrations 6 and 7, docs/daily.md): the day's seed per table (a
provably fair seed and salt since migration 7, docs/fairness.md), one entry
per player, day and table, the ranked scores counted per total, and display names.

Written over `SqlStore`'s public transaction and reading cursors, in ``?`` SQL that both
SQLite and PostgreSQL accept (rewritten to the store's placeholder).

An entry is the player's first attempt of the day at that table. It starts ``open`` and is
settled once its game is over (`settle`, run when the player next reads anything daily or
their statistics): ``counted`` when the deal was finished unassisted, ``practice`` when it
used a hint or undo, ``lost`` when the game was replaced by another deal before it ended.
A counted entry is ``ranked`` (on the board) when its player id was created before the first
time zone reached the date (`days.opens_at`); ranking adds one to `daily_scores` for its total
in the same transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, get_args

from cardtable.fairness import Fair
from cardtable.server.core import retention
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import StoreError
from cardtable.server.core.store.base import JSON
from cardtable.server.core.store.sql import now
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.daily import days
from cardtable.server.games.public import PointTable

BOARD = 100


@dataclass(frozen=True)
class Deal:
    day: str
    variant: str
    seed: int
    """The integer seed of a deal drawn before fair seeds (0 for a fair deal)."""
    commitment: str | None
    fair: Fair | None = None
    """The day's server seed and salt, withheld from players until the day is over."""


@dataclass(frozen=True)
class Entry:
    day: str
    variant: str
    game_id: str
    eligible: bool
    status: str  # "creating", "open", "counted", "practice", "lost", "review"
    ranked: bool
    total: int | None
    lines: list[str | None] | None
    finished_at: str | None


@dataclass(frozen=True)
class Settled:
    """What a finished game says about an entry: its total, hands per line and practice."""

    total: int
    lines: list[str | None] | None
    """None: the game could not be read back (held unchecked, `routes._settle`)."""
    practice: bool
    finished_at: str


@dataclass(frozen=True)
class Row:
    rank: int
    name: str | None
    total: int
    mine: bool


_ENTRY = "day, variant, game_id, eligible, status, ranked, total, lines, finished_at"


def _entry(r: Sequence[Any]) -> Entry:
    return Entry(
        day=r[0],
        variant=r[1],
        game_id=r[2],
        eligible=bool(r[3]),
        status=r[4],
        ranked=bool(r[5]),
        total=None if r[6] is None else int(r[6]),
        lines=None if r[7] is None else json.loads(r[7]),
        finished_at=r[8],
    )


class DailyStore(FeatureTables):
    what = "the daily deal"

    # -- the day's deal ------------------------------------------------------------------
    def deal(self, day: str, variant: str) -> Deal:
        """The day's deal at ``variant``, drawn on first use: a fair seed and salt, committed
        at once. The first process to insert the row wins and every other one reads it."""
        found = self.stored(day, variant)
        if found is not None:
            return found
        fair = Fair.new()
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "INSERT INTO daily_deals (day, variant, seed, commitment, fair_seed, fair_salt, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (day, variant) DO NOTHING",
                (day, variant, 0, fair.commitment, fair.seed, fair.salt, now()),
            )
        found = self.stored(day, variant)
        if found is None:  # pragma: no cover - the row was just written
            raise StoreError("the daily deal was not saved")
        return found

    def stored(self, day: str, variant: str) -> Deal | None:
        """The day's deal if it has been drawn (it is drawn when first asked for)."""
        rows = self._rows(
            "SELECT seed, commitment, fair_seed, fair_salt FROM daily_deals "
            "WHERE day = ? AND variant = ?",
            (day, variant),
        )
        if not rows:
            return None
        seed, commitment, fair_seed, fair_salt = rows[0]
        fair = None if fair_seed is None else Fair(fair_seed, fair_salt, withheld=True)
        return Deal(day, variant, int(seed), commitment, fair)

    # -- entries -------------------------------------------------------------------------
    def entry(self, player: str, day: str, variant: str) -> Entry | None:
        rows = self._rows(
            f"SELECT {_ENTRY} FROM daily_entries WHERE day = ? AND variant = ? AND player = ?",
            (day, variant, player),
        )
        return _entry(rows[0]) if rows else None

    def claim(self, player: str, day: str, variant: str, eligible: bool) -> bool:
        """Start the player's first attempt (status ``creating``); False when there is one."""
        with self.sql.transaction() as tx:
            return (
                self._exec(
                    tx,
                    "INSERT INTO daily_entries (day, variant, player, game_id, eligible, status, "
                    "ranked, started_at) VALUES (?, ?, ?, '', ?, 'creating', 0, ?) "
                    "ON CONFLICT (day, variant, player) DO NOTHING",
                    (day, variant, player, int(eligible), now()),
                ).rowcount
                == 1
            )

    def attach(self, player: str, day: str, variant: str, game_id: str) -> None:
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE daily_entries SET game_id = ?, status = 'open' "
                "WHERE day = ? AND variant = ? AND player = ? AND status = 'creating'",
                (game_id, day, variant, player),
            )

    def open_entries(self, player: str) -> list[Entry]:
        rows = self._rows(
            f"SELECT {_ENTRY} FROM daily_entries WHERE player = ? AND status = 'open'", (player,)
        )
        return [_entry(r) for r in rows]

    def finished_open(self, day: str, variant: str, limit: int) -> list[str]:
        """Players whose open entry's deal has a result (the board index finds the entries
        still without a total)."""
        rows = self._rows(
            "SELECT e.player FROM daily_entries e JOIN finishes f "
            "ON f.game_id = e.game_id AND f.n = 1 "
            "WHERE e.day = ? AND e.variant = ? AND e.ranked = 0 AND e.total IS NULL "
            "AND e.status = 'open' LIMIT ?",
            (day, variant, limit),
        )
        return [r[0] for r in rows]

    def close(self, player: str, entry: Entry, settled: Settled | None) -> None:
        """Settle an open entry: counted or practice with its result, or lost (``None``)."""
        with self.sql.transaction() as tx:
            if settled is None:
                self._exec(
                    tx,
                    "UPDATE daily_entries SET status = 'lost' "
                    "WHERE day = ? AND variant = ? AND player = ? AND status = 'open'",
                    (entry.day, entry.variant, player),
                )
                return
            status = "practice" if settled.practice else "counted"
            ranked = status == "counted" and entry.eligible
            changed = self._exec(
                tx,
                "UPDATE daily_entries SET status = ?, ranked = ?, total = ?, lines = ?, "
                "finished_at = ? WHERE day = ? AND variant = ? AND player = ? AND status = 'open'",
                (status, int(ranked), settled.total, json.dumps(settled.lines),
                 settled.finished_at, entry.day, entry.variant, player),
            ).rowcount  # fmt: skip
            if changed == 1 and ranked:
                self._exec(
                    tx,
                    "INSERT INTO daily_scores (day, variant, total, n) VALUES (?, ?, ?, 1) "
                    "ON CONFLICT (day, variant, total) DO UPDATE SET n = daily_scores.n + 1",
                    (entry.day, entry.variant, settled.total),
                )

    def hold(self, player: str, entry: Entry, settled: Settled) -> None:
        """Settle an open entry as held for review (`fairplay`): status ``review``, its total
        and lines kept, never ranked, so it adds nothing to the score counts."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE daily_entries SET status = 'review', ranked = 0, total = ?, lines = ?, "
                "finished_at = ? WHERE day = ? AND variant = ? AND player = ? AND status = 'open'",
                (settled.total, json.dumps(settled.lines), settled.finished_at,
                 entry.day, entry.variant, player),
            )  # fmt: skip

    def history(self, player: str, limit: int) -> list[Entry]:
        rows = self._rows(
            f"SELECT {_ENTRY} FROM daily_entries WHERE player = ? "
            "ORDER BY day DESC, variant LIMIT ?",
            (player, limit),
        )
        return [_entry(r) for r in rows]

    def counted_days(self, player: str) -> list[str]:
        """Days (newest first) on which the player has a counted daily at any table."""
        rows = self._rows(
            "SELECT DISTINCT day FROM daily_entries WHERE player = ? AND status = 'counted' "
            "ORDER BY day DESC",
            (player,),
        )
        return [r[0] for r in rows]

    # -- the board -----------------------------------------------------------------------
    def top(self, day: str, variant: str, player: str | None, limit: int = BOARD) -> list[Row]:
        """The best ``limit`` ranked entries: total (highest first), then who finished first.
        Equal totals share a rank."""
        rows = self._rows(
            "SELECT e.total, e.player, n.name FROM daily_entries e "
            "LEFT JOIN player_names n ON n.player = e.player "
            "WHERE e.day = ? AND e.variant = ? AND e.ranked = 1 "
            "ORDER BY e.total DESC, e.finished_at, e.player LIMIT ?",
            (day, variant, limit),
        )
        out: list[Row] = []
        rank = 0
        previous: int | None = None
        for i, (total, who, name) in enumerate(rows):
            if total != previous:
                rank, previous = i + 1, total
            out.append(Row(rank=rank, name=name, total=int(total), mine=who == player))
        return out

    def counts(self, day: str, variant: str) -> list[tuple[int, int]]:
        """(total, players) for every ranked total of the day, lowest first."""
        rows = self._rows(
            "SELECT total, n FROM daily_scores WHERE day = ? AND variant = ? AND n > 0 "
            "ORDER BY total",
            (day, variant),
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    def rank(self, day: str, variant: str, total: int) -> tuple[int, int, int]:
        """(rank, players ranked, players at or below ``total``) from the score counts."""
        rows = self._rows(
            "SELECT COALESCE(SUM(CASE WHEN total > ? THEN n ELSE 0 END), 0), "
            "COALESCE(SUM(n), 0) FROM daily_scores WHERE day = ? AND variant = ?",
            (total, day, variant),
        )
        above, everyone = int(rows[0][0]), int(rows[0][1])
        return above + 1, everyone, everyone - above

    def days(self, variant: str, before: str, limit: int) -> list[str]:
        """Earlier days that have a deal at ``variant``, newest first."""
        rows = self._rows(
            "SELECT day FROM daily_deals WHERE variant = ? AND day < ? ORDER BY day DESC LIMIT ?",
            (variant, before, limit),
        )
        return [r[0] for r in rows]

    # -- names and the player's data -----------------------------------------------------
    def name(self, player: str) -> str | None:
        rows = self._rows("SELECT name FROM player_names WHERE player = ?", (player,))
        return rows[0][0] if rows else None

    def set_name(self, player: str, name: str | None) -> None:
        with self.sql.transaction() as tx:
            self._exec(tx, "DELETE FROM player_names WHERE player = ?", (player,))
            if name is not None:
                self._exec(
                    tx, "INSERT INTO player_names (player, name) VALUES (?, ?)", (player, name)
                )

    def export(self, player: str) -> JSON:
        return {
            "display_name": self.name(player),
            "daily": [
                {
                    "day": e.day,
                    "table": e.variant,
                    "game_id": e.game_id,
                    "status": e.status,
                    "ranked": e.ranked,
                    "total": e.total,
                    "lines": e.lines,
                    "finished_at": e.finished_at,
                }
                for e in self.history(player, 100_000)
            ],
            "daily_archive": [
                {"day": r[0], "table": r[1], "best": r[2], "plays": int(r[3])}
                for r in self._rows(
                    "SELECT day, variant, best, plays FROM daily_practice WHERE player = ? "
                    "ORDER BY day, variant",
                    (player,),
                )
            ],
        }

    def delete_player(self, player: str) -> None:
        """Everything the daily keeps of the player, their ranked scores taken off the counts."""
        with self.sql.transaction() as tx:
            ranked = self._exec(
                tx,
                "SELECT day, variant, total FROM daily_entries WHERE player = ? AND ranked = 1",
                (player,),
            ).fetchall()
            for day, variant, total in ranked:
                self._exec(
                    tx,
                    "UPDATE daily_scores SET n = n - 1 WHERE day = ? AND variant = ? AND total = ?",
                    (day, variant, total),
                )
            self._exec(tx, "DELETE FROM daily_entries WHERE player = ?", (player,))
            self._exec(tx, "DELETE FROM daily_practice WHERE player = ?", (player,))
            self._exec(tx, "DELETE FROM player_names WHERE player = ?", (player,))


def draw_upcoming(runtime: Runtime, now: float) -> int:
    """The retention sweep's upkeep for the daily deal (it deletes nothing): the deals of the
    date no time zone has reached yet are drawn and committed, so each date's commitment is
    out about a day before UTC+14 reaches it even when nobody reads the daily then
    (docs/daily.md, "Your own midnight"). Drawing twice changes nothing (`DailyStore.deal`)."""
    day = days.after(days.newest(datetime.fromtimestamp(now, UTC)))
    daily = DailyStore(runtime.store)
    for table in get_args(PointTable):
        daily.deal(day, table)
    return 0


retention.expires("daily upcoming deals", draw_upcoming)
