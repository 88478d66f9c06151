"""Which waiting players sit down together (docs/quickplay.md, "Matching"). Pure: the queue
as read from the store, the blocked pairs and the time now in; the tables to make out.

For each rules preset, the player who has waited longest is the anchor: the others who fit
(the same preset, a table size they accept, within the rating gap, no block with anyone
already chosen) are taken nearest rating first. A full table is made at once (an anchor of
"any" takes a full four at once, and a full three or two once it has waited
`QuickSettings.settle_seconds`, so that people who arrive together can fill a bigger table).
Once the anchor has waited `QuickSettings.fill_seconds`, the table with the most persons
that fit is made, computers in the other seats. Then the next longest waiter not yet placed
is the anchor, and so on.

The gap widens with waiting: ``gap_points + gap_per_second * waited`` (the anchor's wait),
150 points at first (about 70:30 odds between settled players on the rating's scale, where
400 points are 10:1), 400 after 10 s, 650 at the 20 s fill.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cardtable.server.core.quick_config import QuickSettings

SIZES = (4, 3, 2)
"""The table sizes an "any" player accepts, most persons first."""
SETTLE_SECONDS = 5.0
"""How long an anchor of "any" waits for a full four before a full three or two will do."""


@dataclass(frozen=True)
class Waiter:
    """A waiting player, as the queue keeps them."""

    player: str
    ticket: str
    """Drawn at each join: a row that left and came back is another row."""
    cred: str
    players: int | None
    """The table size wanted; None: any."""
    preset: str
    rating: float
    name: str
    address: str
    """A hash of the client address."""
    joined_at: float


@dataclass(frozen=True)
class Group:
    """A table to make: its persons (the anchor first) and its size."""

    members: tuple[Waiter, ...]
    size: int

    @property
    def computers(self) -> int:
        return self.size - len(self.members)


def gap(waited: float, s: QuickSettings) -> float:
    """The rating gap acceptable after ``waited`` seconds."""
    return s.gap_points + s.gap_per_second * max(0.0, waited)


def groups(
    waiters: Sequence[Waiter], blocked: set[frozenset[str]], now: float, s: QuickSettings
) -> list[Group]:
    """The tables to make now from ``waiters``, no player in two of them."""
    out: list[Group] = []
    used: set[str] = set()
    order = sorted(waiters, key=lambda w: (w.joined_at, w.player))
    for anchor in order:
        if anchor.player in used:
            continue
        pool = [
            w for w in order
            if w.player not in used and w.player != anchor.player and w.preset == anchor.preset
        ]  # fmt: skip
        group = table_for(anchor, pool, blocked, now, s)
        if group is not None:
            out.append(group)
            used.update(m.player for m in group.members)
    return out


def table_for(
    anchor: Waiter, pool: Iterable[Waiter], blocked: set[frozenset[str]], now: float,
    s: QuickSettings,
) -> Group | None:  # fmt: skip
    """The table ``anchor`` sits at now, or None (it waits on)."""
    waited = now - anchor.joined_at
    pool = list(pool)
    options = [
        (size, _pick(anchor, pool, size, blocked, gap(waited, s))) for size in _sizes(anchor)
    ]
    settled = anchor.players is not None or waited >= SETTLE_SECONDS
    for size, chosen in options:
        if len(chosen) == size and (size == 4 or settled):
            return Group(tuple(chosen), size)
    if waited >= s.fill_seconds:
        size, chosen = max(options, key=lambda o: (len(o[1]), -o[0]))
        return Group(tuple(chosen), size)
    return None


def _sizes(w: Waiter) -> tuple[int, ...]:
    return SIZES if w.players is None else (w.players,)


def _pick(
    anchor: Waiter, pool: Sequence[Waiter], size: int, blocked: set[frozenset[str]], limit: float
) -> list[Waiter]:
    fits = sorted(
        (w for w in pool if w.players in (None, size) and abs(w.rating - anchor.rating) <= limit),
        key=lambda w: (abs(w.rating - anchor.rating), w.joined_at, w.player),
    )
    chosen = [anchor]
    for w in fits:
        if len(chosen) == size:
            break
        if any(frozenset((w.player, c.player)) in blocked for c in chosen):
            continue
        chosen.append(w)
    return chosen


def strength_for(ratings: Sequence[float], strengths: Sequence[str],
                 rating_of: Callable[[str], float]) -> str:  # fmt: skip
    """The computer strength whose fixed rating is nearest the persons' mean rating."""
    mean = sum(ratings) / len(ratings)
    return min(strengths, key=lambda st: (abs(rating_of(st) - mean), st))


def rated(members: Sequence[Waiter], pairs: dict[frozenset[str], int], most: int) -> bool:
    """Whether the table counts for ratings (contract 4): not when two persons share a client
    address or a device, nor when two of them already sat together at ``most`` quick tables
    in the last day (``pairs``)."""
    addresses = [m.address for m in members]
    creds = [m.cred for m in members]
    if len(set(addresses)) < len(addresses) or len(set(creds)) < len(creds):
        return False
    return all(n < most for n in pairs.values())
