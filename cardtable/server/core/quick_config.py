"""Quick-play settings (part of `cardtable.server.Settings`; docs/quickplay.md): the fill
time, the rating range and how it widens, the quick tables' own settings, and the bounds on
hostile clients."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class QuickSettings:
    fill_seconds: float = 20.0
    """When the player who has waited longest for a table has waited this long, the table
    is made with the persons who fit and computers in the other seats."""
    gap_points: float = 150.0
    """The rating gap (points) two players may have when they have just joined."""
    gap_per_second: float = 25.0
    """Points the acceptable gap widens per second the longer waiter has waited."""
    poll_seconds: float = 1.0
    """How often each process's matcher looks at the queue when nothing woke it."""
    tables_per_round: int = 50
    """Tables one matcher round makes at most (the next round goes on)."""
    stale_seconds: float = 30.0
    """A waiting player whose page has not asked for the status this long is not seated (the
    page asks every 2 s): a closed tab does not leave a person at a table with no one there.
    The row stays until retention, so a page that comes back is matched again at once."""
    seen_every: float = 5.0
    """The status stamps a waiting row as seen at most this often (a write per poll otherwise)."""
    unseen_hold_seconds: float = 600.0
    """A waiting row not seen this long is deleted by the retention sweep."""
    seated_seconds: float = 600.0
    """How long ``GET /api/quick-play`` answers "seated" before the player opens the table."""
    rounds: int = 1
    """Rounds of a quick-play match."""
    turn_timer: float | None = 60.0
    """A quick table's turn timer (seconds): strangers are not left waiting on someone."""
    stand_in: str = "normal"
    """The computer that plays for an away person at a quick table."""
    per_address: int = 4
    """Players of one client address waiting at once (a household, not a farm of records)."""
    join_rate: float = 6 / 60
    """Joins per second one player may make, sustained (kept in the store)."""
    join_burst: int = 6
    address_rate: float = 1.0
    """Joins per second from one client address, sustained (per process)."""
    address_burst: int = 30
    leave_rate: float = 1 / 60
    """Leaves per second that count nothing against a player, sustained (kept in the store):
    leaving faster than this `leave_burst` times starts a cool-down."""
    leave_burst: int = 3
    cooldown_seconds: float = 60.0
    """How long a player who left the queue too often in a row may not join again."""
    read_rate: float = 2.0
    """Status and block-list reads per second one player may make, sustained (per process)."""
    read_burst: int = 30
    repeat_pairs: int = 3
    """Tables two persons may be seated together in a day and still be rated."""
    max_blocks: int = 200
    """Blocks one player keeps (the oldest go first)."""
    history_hours: float = 48.0
    """How long who sat at which quick table is kept (blocks, repeated pairs)."""
