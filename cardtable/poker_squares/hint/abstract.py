"""Hand abstraction for the hint engine: partial lines as small integer keys, and their values.

A line (row or column) holding 0-5 cards is summarised NARL-style (Neller et al., EAAI-16):

- whether it is a row or a column (the learned play keeps rows and columns for different plans),
- a time bucket (how many cards are on the grid),
- the rank-count pattern (pair, two pair, trips...),
- for each group of equal counts, how many cards of those ranks are still unseen,
- flush potential: one suit so far, and how many cards of that suit are unseen,
- straight potential: how many 5-rank windows still fit and can still be filled,
- straight-flush / royal potential: whether the exact missing cards are all unseen.

`line_key` packs this into one int; `ValueTable` maps keys to learned expected final points of
the line, falling back to a coarser key for rare states. A table may also carry a fullness
correction (issue 16, docs/hint-engine.md "Step 16"): a learned g(h) added to an
after-state's value, h (`fullness_key`) being how many cards its rows and its columns hold,
sorted; it ships for the British table only, where it measured a gain at the interactive
budget. Cards are ints 0-51
(`Card.index`: suit * 13 + rank - 1); ranks are 1-13 (Ace 1). A multiset of ranks is an int id
(`MS_*` tables, `MS_ADD` adds a rank), so the inner loops touch only ints and lists.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib import resources
from io import BytesIO
from itertools import combinations_with_replacement

import numpy as np

from cardtable.poker_squares.hands import TABLES, classify_ranks

MIXED = 4
"""Suit state of a line whose cards are not all one suit (-1: empty, 0-3: one suit)."""

TIME_BUCKETS = 25
TB: list[int] = list(range(25))
"""Time bucket of a key by the number of cards on the grid before the card being placed."""
_PATTERNS: dict[tuple[int, ...], int] = {
    (): 0,
    (1,): 1,
    (2,): 2,
    (1, 1): 3,
    (3,): 4,
    (2, 1): 5,
    (1, 1, 1): 6,
    (4,): 7,
    (3, 1): 8,
    (2, 2): 9,
    (2, 1, 1): 10,
    (1, 1, 1, 1): 11,
}
N_PATTERNS = 12
RC = 13  # radix of one group's unseen count (0-12)
RCODES = RC**4
FC = 12  # flush code: 0 mixed, 1 + min(unseen of the suit, 10)
SC = 6  # live straight windows 0-5
SF = 3  # 0 none, 1 straight flush live, 2 royal live

WINDOWS: tuple[tuple[int, ...], ...] = (
    *(tuple(range(lo, lo + 5)) for lo in range(1, 10)),
    (10, 11, 12, 13, 1),
)
_ROYAL = WINDOWS[-1]


def _rank_mask(ranks: tuple[int, ...] | set[int]) -> int:
    m = 0
    for r in ranks:
        m |= 1 << (r - 1)
    return m


# --- rank multisets ---------------------------------------------------------------------
_MS_LIST: list[tuple[int, ...]] = [
    ranks
    for n in range(6)
    for ranks in combinations_with_replacement(range(1, 14), n)
    if not ranks or max(Counter(ranks).values()) <= 4
]
MS_ID: dict[tuple[int, ...], int] = {ms: i for i, ms in enumerate(_MS_LIST)}
MS_EMPTY = MS_ID[()]
MS_N: list[int] = [len(ms) for ms in _MS_LIST]
MS_PAT: list[int] = []
MS_GROUPS: list[tuple[tuple[int, ...], ...]] = []
MS_WMASKS: list[tuple[int, ...]] = []
MS_ROYAL: list[int] = []
MS_ADD: list[int] = []
"""MS_ADD[ms * 14 + rank]: the multiset with one more card of `rank` (-1 if impossible)."""

for _ms in _MS_LIST:
    _cnt = Counter(_ms)
    _pat = tuple(sorted(_cnt.values(), reverse=True))
    MS_PAT.append(_PATTERNS.get(_pat, 0))
    _groups = []
    for _k in sorted(set(_cnt.values()), reverse=True):
        _groups.append(tuple(sorted(r for r in _cnt if _cnt[r] == _k)))
    MS_GROUPS.append(tuple(_groups))
    _wm: list[int] = []
    _royal = -1
    if _ms and len(_cnt) == len(_ms):
        for _w in WINDOWS:
            if set(_ms) <= set(_w):
                _miss = _rank_mask(set(_w) - set(_ms))
                _wm.append(_miss)
                if _w == _ROYAL:
                    _royal = _miss
    MS_WMASKS.append(tuple(_wm))
    MS_ROYAL.append(_royal)
    for _r in range(14):
        if _r == 0 or len(_ms) == 5 or _cnt[_r] == 4:
            MS_ADD.append(-1)
        else:
            MS_ADD.append(MS_ID[tuple(sorted((*_ms, _r)))])


@cache
def line_points(table: str) -> list[int]:
    """Points of a complete line: index ms * 2 + flush (0 for incomplete multisets)."""
    points = TABLES[table]
    out = [0] * (2 * len(_MS_LIST))
    for i, ms in enumerate(_MS_LIST):
        if len(ms) == 5:
            out[2 * i] = points[classify_ranks(ms, False)]
            if len(set(ms)) == 5:
                out[2 * i + 1] = points[classify_ranks(ms, True)]
    return out


def line_key(
    is_col: int, tb: int, ms: int, st: int, ru: list[int], su: list[int], avail: int, mask: int
) -> int:
    """The abstract key of an incomplete line.

    `ru[rank]` / `su[suit]`: unseen cards by rank and suit; `avail`: rank mask of ranks with an
    unseen card; `mask`: bit set of unseen card indices. `tb` is the time bucket.
    """
    head = (is_col * TIME_BUCKETS + tb) * N_PATTERNS + MS_PAT[ms]
    if ms == MS_EMPTY:
        return head * RCODES * FC * SC * SF
    rcode = 0
    for g in MS_GROUPS[ms]:
        t = 0
        for r in g:
            t += ru[r]
        rcode = rcode * RC + t
    sc = 0
    sf = 0
    wms = MS_WMASKS[ms]
    for w in wms:
        if w & avail == w:
            sc += 1
    if st < MIXED:
        u = su[st]
        fc = 1 + (u if u < 10 else 10)
        if sc:
            sav = (mask >> (13 * st)) & 0x1FFF
            for w in wms:
                if w & sav == w:
                    sf = 1
                    break
            rm = MS_ROYAL[ms]
            if rm >= 0 and rm & sav == rm:
                sf = 2
    else:
        fc = 0
    return (((head * RCODES + rcode) * FC + fc) * SC + sc) * SF + sf


def coarse_key(key: int) -> int:
    """The fallback key: pattern, row/column, time, and only whether flush/straight are open."""
    key //= SF
    sc = key % SC
    key //= SC
    fc = key % FC
    key //= FC * RCODES
    return (key * 2 + (fc > 0)) * 2 + (sc > 0)


class ValueTable:
    """Learned expected final points of an incomplete line, by abstract key."""

    __slots__ = ("coarse", "fine", "fullness", "games", "table")

    def __init__(
        self,
        table: str,
        fine: dict[int, float],
        coarse: dict[int, float],
        games: int = 0,
        fullness: dict[int, float] | None = None,
    ) -> None:
        self.table = table
        self.fine = fine
        self.coarse = coarse
        self.games = games
        self.fullness = fullness
        """`fullness_key` -> points added to an after-state's value (None: no correction)."""

    def value(self, key: int) -> float:
        v = self.fine.get(key)
        if v is None:
            v = self.coarse.get(coarse_key(key), 0.0)
        return v

    @classmethod
    def from_counts(
        cls,
        table: str,
        values: dict[int, float],
        counts: dict[int, int],
        *,
        min_count: int = 1,
        games: int = 0,
    ) -> ValueTable:
        """Keep keys seen at least `min_count` times; coarse values are count-weighted means."""
        sums: dict[int, float] = {}
        weights: dict[int, int] = {}
        fine: dict[int, float] = {}
        for k, v in values.items():
            n = counts[k]
            if n >= min_count:
                fine[k] = v
            ck = coarse_key(k)
            sums[ck] = sums.get(ck, 0.0) + v * n
            weights[ck] = weights.get(ck, 0) + n
        coarse = {ck: sums[ck] / weights[ck] for ck in sums}
        return cls(table, fine, coarse, games)

    def to_bytes(self) -> bytes:
        buf = BytesIO()
        fk = np.array(sorted(self.fine), dtype=np.int64)
        ck = np.array(sorted(self.coarse), dtype=np.int64)
        np.savez_compressed(
            buf,
            fine_keys=fk,
            fine_values=np.array([self.fine[k] for k in fk.tolist()], dtype=np.float32),
            coarse_keys=ck,
            coarse_values=np.array([self.coarse[k] for k in ck.tolist()], dtype=np.float32),
            meta=np.array([self.games], dtype=np.int64),
        )
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, table: str, data: bytes) -> ValueTable:
        with np.load(BytesIO(data)) as z:
            fine = dict(zip(z["fine_keys"].tolist(), z["fine_values"].tolist(), strict=True))
            coarse = dict(zip(z["coarse_keys"].tolist(), z["coarse_values"].tolist(), strict=True))
            games = int(z["meta"][0])
        return cls(table, fine, coarse, games)


def data_name(table: str) -> str:
    return f"values-{table}.npz"


def fullness_name(table: str) -> str:
    return f"fullness-{table}.npz"


def fullness_key(cells: list[int]) -> int:
    """NARL's hand-size frequency vector of a grid (`cells`: -1 for empty): the sorted card
    counts of the rows, then of the columns, as one base-6 int."""
    rows = sorted(sum(1 for c in range(5 * i, 5 * i + 5) if cells[c] >= 0) for i in range(5))
    cols = sorted(sum(1 for c in range(i, 25, 5) if cells[c] >= 0) for i in range(5))
    return sorted_counts_key(rows) * 6**5 + sorted_counts_key(cols)


def sorted_counts_key(counts: list[int]) -> int:
    """Five sorted card counts (0-5) as a base-6 int: half of a `fullness_key`."""
    k = 0
    for n in counts:
        k = k * 6 + n
    return k


def read_fullness(data: bytes) -> dict[int, float]:
    """A fullness correction file (`research/ps_fullness.py learn` writes it)."""
    with np.load(BytesIO(data)) as z:
        return dict(zip(z["keys"].tolist(), z["values"].tolist(), strict=True))


@cache
def load_values(table: str) -> ValueTable:
    """The shipped value table of a point table (cached); empty if none ships yet."""
    if table not in TABLES:
        raise ValueError(f"unknown point table {table!r} (known: {', '.join(TABLES)})")
    data = resources.files("cardtable.poker_squares").joinpath("data")
    res = data.joinpath(data_name(table))
    if not res.is_file():
        return ValueTable(table, {}, {})
    vt = ValueTable.from_bytes(table, res.read_bytes())
    corr = data.joinpath(fullness_name(table))
    if corr.is_file():
        vt.fullness = read_fullness(corr.read_bytes())
    return vt
