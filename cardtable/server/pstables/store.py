"""The Poker Squares tables in the store (migration 16): a row per table of the same shape as an
online table's, kept by the same code (`OnlineStore` over ``ps_tables`` and ``ps_presence``:
compare-and-set saves, room codes, deadlines and back-off, retention, presence), and a row per
placement (``ps_placements``).

A placement is one ``INSERT``: its key is (table, deal, seat, card) and a second key is
(table, deal, seat, cell), so a card is placed once per seat however many requests and
drivers race for it, and never on a filled cell, without touching the table's row: players
placing the same card write different rows and never wait for each other's compare-and-set.

A table's version as devices see it (`Record.version`) is the row's version plus the number
of placements saved at the table: both only grow, and every change adds one to one of them,
so a device can tell a newer table from the one it has.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from cardtable.server.core import retention
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store.base import JSON
from cardtable.server.online.public import OnlineStore, RoomRecord, expire_tables, load_state
from cardtable.server.pstables.room import LOBBY, OVER, PLAYING, Placed


@dataclass(frozen=True)
class Placement:
    seat: int
    card: int
    cell: int
    hint: str | None
    """None: the player's own; else why the hint placed it ("timer" or "away")."""
    at: float


@dataclass(frozen=True)
class Record:
    """A table as read in one statement: its row and the placements of its current deal."""

    row: RoomRecord
    placements: tuple[Placement, ...]
    count: int
    """Placements saved at this table, every deal together."""

    @property
    def key(self) -> str:
        return self.row.key

    @property
    def version(self) -> int:
        return self.row.version + self.count

    def placed(self) -> Placed:
        return self._placed

    @cached_property
    def _placed(self) -> Placed:
        cells: dict[int, list[int]] = {}
        for p in sorted(self.placements, key=lambda p: p.card):
            cells.setdefault(p.seat, []).append(p.cell)
        return Placed(cells)


class PSStore(OnlineStore):
    what = "poker squares tables"
    rows = "ps_tables"
    presence_rows = "ps_presence"
    seen_version = "t.version + (SELECT COUNT(*) FROM ps_placements c WHERE c.table_id = t.id)"

    def stage_of(self, state: JSON, *, keep_code: bool) -> str:
        phase = state.get("phase")
        if not keep_code or phase == OVER:
            return "over"
        return "play" if phase == PLAYING else LOBBY

    def read(self, key: str) -> Record | None:
        """The table and its current deal's placements, in one statement (one snapshot):
        the row first, then the placements of the table's newest deal with any."""
        rows = self._rows(
            "SELECT 0, t.code, t.version, t.state, "
            "(SELECT COUNT(*) FROM ps_placements c WHERE c.table_id = t.id), 0, 0, 0, NULL, 0 "
            "FROM ps_tables t WHERE t.id = ? "
            "UNION ALL SELECT 1, NULL, p.deal, NULL, 0, p.seat, p.card, p.cell, p.hint, p.at "
            "FROM ps_placements p WHERE p.table_id = ? AND p.deal = "
            "(SELECT MAX(d.deal) FROM ps_placements d WHERE d.table_id = ?)",
            (key, key, key),
        )
        first = next((r for r in rows if int(r[0]) == 0), None)
        if first is None:
            return None
        row = RoomRecord(key, first[1], int(first[2]), load_state(first[3]))
        deal = row.state.get("deal")
        # The newest deal with placements; a deal just dealt has none yet.
        placements = tuple(
            Placement(int(r[5]), int(r[6]), int(r[7]), r[8], float(r[9]))
            for r in rows
            if int(r[0]) == 1 and r[2] == deal
        )
        return Record(row, placements, int(first[4]))

    def place(self, key: str, deal: int, placements: Iterable[Placement]) -> list[Placement]:
        """Insert ``placements`` (one transaction); those saved, the others already had their
        card or cell taken."""
        saved = []
        with self.sql.transaction() as tx:
            for p in placements:
                changed = self._exec(
                    tx,
                    "INSERT INTO ps_placements (table_id, deal, seat, card, cell, hint, at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (key, deal, p.seat, p.card, p.cell, p.hint, p.at),
                ).rowcount
                if changed == 1:
                    saved.append(p)
        return saved

    def set_due(self, key: str, version: int, due_at: float | None) -> None:
        """Store the next deadline of a row still at ``version`` (no new version: nothing a
        device sees changed)."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE ps_tables SET due_at = ? WHERE id = ? AND version = ?",
                (due_at, key, version),
            )

    def _delete(self, tx: Any, keys: Any) -> None:
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ", ".join("?" * len(chunk))
            self._exec(tx, f"DELETE FROM ps_placements WHERE table_id IN ({marks})", chunk)
        super()._delete(tx, keys)


def expire(runtime: Runtime, now: float) -> int:
    """The retention sweep's part for these tables: the online tables' rules
    (`OnlineSettings.lobby_hours`, `finished_hours`, `idle_hours`) over these rows."""
    return expire_tables(runtime, now, PSStore)


retention.expires("poker squares tables", expire)
