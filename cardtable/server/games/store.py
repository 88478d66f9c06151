"""A player's statistics, history, export and deletion over the store's own tables (players,
games, moves, finishes, reviews), read and written with `SqlStore`'s public cursors.

Retention (docs/reliability.md) bounds what is kept: result rows (`finishes`) for totals,
means and results, and the newest finished games' states for what only a state holds (the
hands made in a Poker Squares deal, the rounds and rule set of a Kings Corner match).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cardtable.server.core.store.base import JSON, GameRecord
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.games.shown import shown

FINISHES = 5000
"""Result rows read at most per kind (the store keeps no more per player by default)."""
STATES = 200
"""Finished games' states read at most per kind."""


def _json(text: Any) -> JSON:
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Finish:
    game_id: str
    kind: str
    variant: str
    total: int | None
    practice: bool
    summary: JSON
    finished_at: str


class StatsStore(FeatureTables):
    what = "statistics"

    def created_at(self, player: str) -> str | None:
        rows = self._rows("SELECT created_at FROM players WHERE id = ?", (player,))
        return rows[0][0] if rows else None

    def finishes(self, player: str, kind: str, limit: int = FINISHES) -> list[Finish]:
        """The player's results of ``kind``, newest first (the first finish of each game)."""
        rows = self._rows(
            "SELECT game_id, kind, variant, total, practice, summary, finished_at FROM finishes "
            "WHERE player = ? AND kind = ? AND n = 1 ORDER BY finished_at DESC, game_id LIMIT ?",
            (player, kind, limit),
        )
        return [
            Finish(r[0], r[1], r[2], None if r[3] is None else int(r[3]), bool(r[4]),
                   _json(r[5]), r[6])
            for r in rows
        ]  # fmt: skip

    def finished_states(self, player: str, kind: str, limit: int = STATES) -> dict[str, JSON]:
        """Game id -> saved state of the player's newest finished games of ``kind``."""
        rows = self._rows(
            "SELECT id, state FROM games WHERE player = ? AND kind = ? AND finished = 1 "
            "ORDER BY updated_at DESC, id LIMIT ?",
            (player, kind, limit),
        )
        return {r[0]: _json(r[1]) for r in rows}

    def first_finish(self, game_id: str, player: str) -> Finish | None:
        rows = self._rows(
            "SELECT game_id, kind, variant, total, practice, summary, finished_at FROM finishes "
            "WHERE game_id = ? AND player = ? AND n = 1",
            (game_id, player),
        )
        if not rows:
            return None
        r = rows[0]
        total = None if r[3] is None else int(r[3])
        return Finish(r[0], r[1], r[2], total, bool(r[4]), _json(r[5]), r[6])

    def export(self, player: str) -> JSON:
        """Everything the store's own tables hold for the player, each game as its player may
        see it (`shown`: an unfinished game's view, never its state)."""
        created = self._rows("SELECT created_at FROM players WHERE id = ?", (player,))
        games = self._rows(
            "SELECT id, kind, version, state, finished, current, created_at, updated_at "
            "FROM games WHERE player = ? ORDER BY created_at, id",
            (player,),
        )
        moves: dict[str, list[JSON]] = {}
        for game_id, entry in self._rows(
            "SELECT m.game_id, m.entry FROM moves m JOIN games g ON g.id = m.game_id "
            "WHERE g.player = ? ORDER BY m.game_id, m.version, m.idx",
            (player,),
        ):
            moves.setdefault(game_id, []).append(_json(entry))
        finishes = self._rows(
            "SELECT game_id, n, kind, variant, total, practice, summary, finished_at "
            "FROM finishes WHERE player = ? ORDER BY finished_at, game_id, n",
            (player,),
        )
        records = [
            GameRecord(g[0], player, g[1], int(g[2]), _json(g[3]), bool(g[4]), bool(g[5]),
                       g[6], g[7])
            for g in games
        ]  # fmt: skip
        return {
            "created_at": created[0][0] if created else None,
            "games": [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "version": r.version,
                    "finished": r.finished,
                    "current": r.current,
                    "created_at": r.created_at,
                    "updated_at": r.updated_at,
                    # Never the saved state of an unfinished game: what its player may see.
                    **shown(r, moves.get(r.id, [])),
                }
                for r in records
            ],
            "results": [
                {
                    "game_id": f[0],
                    "n": int(f[1]),
                    "kind": f[2],
                    "variant": f[3],
                    "total": f[4],
                    "practice": bool(f[5]),
                    "summary": _json(f[6]),
                    "finished_at": f[7],
                }
                for f in finishes
            ],
        }

    def delete_player(self, player: str) -> None:
        """The player's games (with their moves and reviews), results and the id itself."""
        with self.sql.transaction() as tx:
            ids = [
                r[0]
                for r in self._exec(
                    tx, "SELECT id FROM games WHERE player = ?", (player,)
                ).fetchall()
            ]
            for start in range(0, len(ids), 100):
                chunk = ids[start : start + 100]
                marks = ", ".join("?" * len(chunk))
                for table, column in (("moves", "game_id"), ("reviews", "game_id")):
                    self._exec(tx, f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
            self._exec(tx, "DELETE FROM games WHERE player = ?", (player,))
            self._exec(tx, "DELETE FROM finishes WHERE player = ?", (player,))
            self._exec(tx, "DELETE FROM players WHERE id = ?", (player,))
