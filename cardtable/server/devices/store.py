"""Device credentials and transfer codes (docs/devices.md) over the store's SQL.

A credential row maps the SHA-256 of one browser's id (or of a recovery key) to a player;
a transfer code row holds the SHA-256 of a code, live until ``expires_at`` and claimed once
by a compare-and-set (``UPDATE ... WHERE used_at IS NULL AND expires_at > now``), so two
claims at once, in any processes, have exactly one winner. An unused code dies with the device
that issued it (``created_by``): signing that device out, or signing out everywhere else from
another device, deletes it, and a claim also requires its issuing device to be still signed in
(which covers a code whose issuing request raced its device's sign-out). A new device whose
name another device of the record has is numbered ("Chrome on Linux (2)") in the transaction
that adds it. Times are ISO-8601 UTC text, as everywhere in the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cardtable.server.core.store.base import Tx
from cardtable.server.core.store.migrations import new_device_id
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.core.store.tables import FeatureTables
from cardtable.server.devices.service import distinct_name, iso

_COLUMNS = "cred, player, device, name, kind, created_at, last_used_at, revoked_at"
_ISSUER_IN = (
    "EXISTS (SELECT 1 FROM credentials i WHERE i.device = transfer_codes.created_by "
    "AND i.player = transfer_codes.player AND i.revoked_at IS NULL)"
)
"""The code's issuing device is still signed in."""
CHUNK = 500
"""Credentials per query when a process checks its open live connections."""
OK, REVOKED, GONE = "ok", "revoked", "gone"
FORGOTTEN: list[Callable[[SqlStore, Tx, str], None]] = []
"""Called in the transaction that signs devices of a player out or deletes the record, with
the store and that player: what another feature keeps per device goes with it (push
subscriptions)."""


@dataclass(frozen=True)
class Credential:
    cred: str
    player: str
    device: str
    name: str
    kind: str
    created_at: str
    last_used_at: str
    revoked_at: str | None


def _credential(row: Sequence[Any]) -> Credential:
    return Credential(*row)


class DeviceStore(FeatureTables):
    what = "device credentials"

    def _forgotten(self, tx: Tx, player: str) -> None:
        for hook in FORGOTTEN:
            hook(self.sql, tx, player)

    # -- resolving a credential (every request) ----------------------------------------
    def resolve(self, cred: str) -> Credential | None:
        """The credential row (revoked or not); one read by primary key."""
        rows = self._rows(f"SELECT {_COLUMNS} FROM credentials WHERE cred = ?", (cred,))
        return _credential(rows[0]) if rows else None

    def standing(self, creds: Sequence[str]) -> dict[str, str]:
        """Each of ``creds``: `OK` (a device credential still signed in), `REVOKED` (signed
        out) or `GONE` (no such device credential: its record was deleted). One query per
        `CHUNK` credentials: what a process's live connections are checked with."""
        found: dict[str, str] = {}
        unique = sorted(set(creds))
        for start in range(0, len(unique), CHUNK):
            chunk = unique[start : start + CHUNK]
            marks = ", ".join("?" * len(chunk))
            rows = self._rows(
                f"SELECT cred, revoked_at FROM credentials WHERE kind = 'device' "
                f"AND cred IN ({marks})",
                chunk,
            )
            found.update((r[0], OK if r[1] is None else REVOKED) for r in rows)
        return {c: found.get(c, GONE) for c in unique}

    def adopt(self, cred: str, at: datetime) -> Credential | None:
        """A player created without a credential row (by a process of the code before
        migration 8 still running beside a newer one): its first credential, ``cred =
        player``, made now. None when there is no such player."""
        if not self.sql.has_player(cred):  # a read: unknown ids never take the write lock
            return None
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                f"INSERT INTO credentials ({_COLUMNS}) SELECT ?, ?, ?, ?, ?, ?, ?, NULL "
                "WHERE EXISTS (SELECT 1 FROM players WHERE id = ?) ON CONFLICT (cred) DO NOTHING",
                (cred, cred, new_device_id(), "Browser", "device", iso(at), iso(at), cred),
            )
        return self.resolve(cred)

    def touch(self, cred: str, at: datetime, older_than: datetime) -> None:
        """Record a use, only if the last recorded one is older than ``older_than``."""
        with self.sql.transaction() as tx:
            self._exec(
                tx,
                "UPDATE credentials SET last_used_at = ? WHERE cred = ? AND last_used_at < ?",
                (iso(at), cred, iso(older_than)),
            )

    # -- devices -----------------------------------------------------------------------
    def add(self, player: str, cred: str, name: str, kind: str, at: datetime) -> Credential:
        """A new credential of ``player``; a device's ``name`` numbered when another device of
        the record has it (`_distinct`)."""
        with self.sql.transaction() as tx:
            if kind == "device":
                name = self._distinct(tx, player, name)
            row = (cred, player, new_device_id(), name, kind, iso(at), iso(at), None)
            self._exec(tx, f"INSERT INTO credentials ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       row)  # fmt: skip
        return _credential(row)

    def _distinct(self, tx: Tx, player: str, name: str) -> str:
        """``name`` as `distinct_name` numbers it among the names of ``player``'s devices
        still signed in (read in the transaction that adds the new one)."""
        taken = self._exec(
            tx,
            "SELECT name FROM credentials WHERE player = ? AND kind = 'device' "
            "AND revoked_at IS NULL",
            (player,),
        ).fetchall()
        return distinct_name(name, (r[0] for r in taken))

    def devices(self, player: str) -> list[Credential]:
        """The player's credentials still valid, oldest first."""
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM credentials WHERE player = ? AND revoked_at IS NULL "
            "ORDER BY created_at, device",
            (player,),
        )
        return [_credential(r) for r in rows]

    def rename(self, cred: str, name: str) -> None:
        with self.sql.transaction() as tx:
            self._exec(tx, "UPDATE credentials SET name = ? WHERE cred = ?", (name, cred))

    def revoke(self, player: str, device: str, at: datetime) -> bool:
        """Sign one device of ``player`` out, with the unused transfer codes it issued; False
        when it has no such valid device."""
        with self.sql.transaction() as tx:
            n = self._exec(
                tx,
                "UPDATE credentials SET revoked_at = ? WHERE player = ? AND device = ? "
                "AND revoked_at IS NULL",
                (iso(at), player, device),
            ).rowcount
            self._exec(
                tx,
                "DELETE FROM transfer_codes WHERE player = ? AND created_by = ? "
                "AND used_at IS NULL",
                (player, device),
            )
            self._forgotten(tx, player)
        return bool(n == 1)

    def revoke_others(self, player: str, cred: str, at: datetime) -> int:
        """Sign every other credential of ``player`` out (recovery keys too), with every
        unused transfer code that another device issued; how many credentials."""
        with self.sql.transaction() as tx:
            n = self._exec(
                tx,
                "UPDATE credentials SET revoked_at = ? WHERE player = ? AND cred <> ? "
                "AND revoked_at IS NULL",
                (iso(at), player, cred),
            ).rowcount
            self._exec(
                tx,
                "DELETE FROM transfer_codes WHERE player = ? AND used_at IS NULL AND "
                "created_by NOT IN (SELECT device FROM credentials WHERE cred = ?)",
                (player, cred),
            )
            self._forgotten(tx, player)
        return int(n)

    # -- transfer codes ----------------------------------------------------------------
    def new_code(
        self, player: str, code: str, device: str, at: datetime, expires: datetime
    ) -> None:
        """A live code for ``player`` (its hash), replacing the player's unused ones."""
        with self.sql.transaction() as tx:
            self._exec(
                tx, "DELETE FROM transfer_codes WHERE player = ? AND used_at IS NULL", (player,)
            )
            self._exec(
                tx,
                "INSERT INTO transfer_codes (code, player, created_by, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (code, player, device, iso(at), iso(expires)),
            )

    def live_code(self, player: str, at: datetime) -> tuple[str, str] | None:
        """(code hash, expires_at) of the player's live code, if any."""
        rows = self._rows(
            "SELECT code, expires_at FROM transfer_codes WHERE player = ? AND used_at IS NULL "
            f"AND expires_at > ? AND {_ISSUER_IN} ORDER BY created_at DESC LIMIT 1",
            (player, iso(at)),
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def claim_code(self, code: str, cred: str, name: str, at: datetime) -> Credential | None:
        """Claim a live code and make ``cred`` a device of its player (``name`` numbered as
        `add` numbers it), in one transaction; None (nothing written) when the code is
        unknown, used or expired, or its issuing device has been signed out."""
        with self.sql.transaction() as tx:
            row = self._exec(
                tx,
                "SELECT player FROM transfer_codes WHERE code = ? AND used_at IS NULL "
                f"AND expires_at > ? AND {_ISSUER_IN}",
                (code, iso(at)),
            ).fetchone()
            if row is None:
                return None
            device = new_device_id()
            won = self._exec(
                tx,
                "UPDATE transfer_codes SET used_at = ?, used_by = ? WHERE code = ? "
                f"AND used_at IS NULL AND expires_at > ? AND {_ISSUER_IN}",
                (iso(at), device, code, iso(at)),
            ).rowcount
            if won != 1:  # another claim took it between the read and this write
                return None
            name = self._distinct(tx, row[0], name)
            new = (cred, row[0], device, name, "device", iso(at), iso(at), None)
            self._exec(
                tx, f"INSERT INTO credentials ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", new
            )
        return _credential(new)

    # -- the whole record --------------------------------------------------------------
    def delete_player(self, player: str) -> None:
        """Every credential, recovery key and transfer code of ``player``."""
        with self.sql.transaction() as tx:
            self._exec(tx, "DELETE FROM transfer_codes WHERE player = ?", (player,))
            self._exec(tx, "DELETE FROM credentials WHERE player = ?", (player,))
            self._forgotten(tx, player)
