"""The daily archive's table (migration 17, docs/daily.md "The archive"): a player's practice
on past dates, one row per player, table and date, with the deal last dealt from the archive
(until its result is read: `game_id`, then NULL) and the best total. It is never read by a
board or a streak. Written in ``?`` SQL that SQLite and PostgreSQL both accept.

Rows per player are bounded by the dates that have a deal (two tables, one row per date);
`DailyStore.delete_player` deletes them with the player's other daily rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardtable.server.core.store.sql import now
from cardtable.server.core.store.tables import FeatureTables


@dataclass(frozen=True)
class Practice:
    day: str
    best: int | None
    plays: int


class ArchiveStore(FeatureTables):
    what = "the daily archive"

    def dealt(self, player: str, variant: str, day: str, game_id: str) -> None:
        """The player was dealt ``day``'s deal from the archive as ``game_id``."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "INSERT INTO daily_practice (player, variant, day, game_id, best, plays, "
                "played_at) VALUES (?, ?, ?, ?, NULL, 1, ?) "
                "ON CONFLICT (player, variant, day) DO UPDATE SET game_id = excluded.game_id, "
                "plays = daily_practice.plays + 1, played_at = excluded.played_at",
                (player, variant, day, game_id, now()),
            )

    def pending(self, player: str) -> list[tuple[str, str, str]]:
        """(variant, day, game id) of the archive deals whose result is not read yet."""
        rows = self._rows(
            "SELECT variant, day, game_id FROM daily_practice "
            "WHERE player = ? AND game_id IS NOT NULL",
            (player,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def finish(self, player: str, variant: str, day: str, game_id: str, total: int | None) -> None:
        """The deal ``game_id`` ended with ``total`` (None: replaced unfinished): kept as the
        best when it is, and never read again. A compare-and-set on the game id, so two
        readers never count one deal twice and a newer deal of the day is left alone."""
        where = "WHERE player = ? AND variant = ? AND day = ? AND game_id = ?"
        key = (player, variant, day, game_id)
        with self.sql.transaction() as tx:
            if total is None:
                self._exec(tx, f"UPDATE daily_practice SET game_id = NULL {where}", key)
                return
            self._exec(
                tx,
                "UPDATE daily_practice SET game_id = NULL, best = CASE "
                f"WHEN best IS NULL OR best < ? THEN ? ELSE best END {where}",
                (total, total, *key),
            )

    def month(self, player: str, variant: str, first: str, last: str) -> dict[str, Practice]:
        """The player's practice at ``variant`` on the dates ``first``..``last``."""
        rows = self._rows(
            "SELECT day, best, plays FROM daily_practice "
            "WHERE player = ? AND variant = ? AND day >= ? AND day <= ?",
            (player, variant, first, last),
        )
        return {r[0]: Practice(r[0], None if r[1] is None else int(r[1]), int(r[2])) for r in rows}

    def deal_days(self, variant: str, first: str, last: str) -> list[str]:
        """The dates ``first``..``last`` that have a deal stored at ``variant``."""
        rows = self._rows(
            "SELECT day FROM daily_deals WHERE variant = ? AND day >= ? AND day <= ? ORDER BY day",
            (variant, first, last),
        )
        return [r[0] for r in rows]

    def first_day(self, variant: str) -> str | None:
        """The first date with a deal at ``variant``: the archive goes back that far."""
        rows = self._rows("SELECT MIN(day) FROM daily_deals WHERE variant = ?", (variant,))
        return rows[0][0] if rows else None
