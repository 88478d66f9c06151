"""Token buckets kept in the store, for the limits that must hold across server processes:
guesses of transfer codes and recovery keys per client address, and codes and recovery keys
issued per player (docs/devices.md, "Limits"; docs/api.md, "Guessing a transfer code").

A bucket is one row, keyed by the limit's name and the SHA-256 of the limited key (an
address is not kept in the clear). A take reads the row and writes it back with a
compare-and-set on its revision, so two takes at once, in any processes, never spend one
token twice; a take that keeps losing that race is refused (the limit fails closed). A
missing row is a full bucket: each take first deletes its limit's rows that have been idle
long enough to be full again, so the table holds only the keys limited lately. Times are
seconds since the epoch (the clock every process shares; an app's injected clock in tests).
"""

from __future__ import annotations

import hashlib

from cardtable.server.core.ratelimit import spend
from cardtable.server.core.store.tables import FeatureTables

TRIES = 32
"""Compare-and-set attempts before a take is refused: each lost attempt means another take
won, so 32 takes of one key at the same moment all get an answer."""


class StoredLimits(FeatureTables):
    what = "stored rate limits"

    def take(self, name: str, key: str, rate: float, burst: int, now: float) -> float:
        """0.0 when ``key`` may go ahead under limit ``name`` (one token taken); else the
        seconds until a token is back. ``rate`` tokens a second refill a bucket of
        ``burst``."""
        hashed = hashlib.sha256(key.encode()).hexdigest()
        full_again = now - burst / rate  # a row last written before this is a full bucket
        for _ in range(TRIES):
            with self.sql.transaction() as tx:
                self._exec(
                    tx, "DELETE FROM rate_limits WHERE name = ? AND at < ?", (name, full_again)
                )
                row = self._exec(
                    tx,
                    "SELECT tokens, at, rev FROM rate_limits WHERE name = ? AND key = ?",
                    (name, hashed),
                ).fetchone()
                if row is None:
                    made = self._exec(
                        tx,
                        "INSERT INTO rate_limits (name, key, tokens, at, rev) "
                        "VALUES (?, ?, ?, ?, 0) ON CONFLICT (name, key) DO NOTHING",
                        (name, hashed, burst - 1.0, now),
                    ).rowcount
                    if made == 1:
                        return 0.0
                    continue  # another take made the row first: read it again
                tokens, wait = spend(float(row[0]), now - float(row[1]), rate, burst)
                won = self._exec(
                    tx,
                    "UPDATE rate_limits SET tokens = ?, at = ?, rev = rev + 1 "
                    "WHERE name = ? AND key = ? AND rev = ?",
                    (tokens, max(now, float(row[1])), name, hashed, int(row[2])),
                ).rowcount
                if won == 1:
                    return wait
        return 1.0 / rate
