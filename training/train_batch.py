"""Learn the hint engine's line-value tables by self-play, many games at once with numpy.

    python -m training.train_batch --table american --games 3000000 --seed 1 \\
        --out /tmp/am-3m.npz

The same learning as `train.py` (Monte Carlo self-play, epsilon-greedy over the abstract line
keys of `abstract`, running-mean values with a step floor of 1/`--horizon`), vectorised: a
batch of `--batch` games is played in lock-step, placement by placement, with the keys of
every line of every game computed by array arithmetic (`line_keys`, the twin of
`abstract.line_key`, bit for bit) and their values gathered from a hash table (`Store`,
numpy arrays with linear probing). Within
a batch the policy reads the table as it stood when the batch began (`train.py` updates
after every game); after the batch, every after-state key that occurred moves towards its
line's final points (`Store.merge`). The coarse fallback values are refreshed every 2,000
games or every batch, whichever is rarer.

The output is an `abstract.ValueTable` (same file format, `min_count` pruning and coarse
values as `ValueTable.from_counts`), so the search, the hint and `research/ps_tables.py` read
it unchanged. The same (table, games, seed, batch, epsilon, horizon, min_count) give the same
bytes; they do NOT give `train.py`'s table for the same seed (a different random generator,
drawn in a different order, and batched updates). Nothing is written unless `--out` says
where: the shipped tables in `cardtable/poker_squares/data/` are never overwritten by default.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from cardtable.poker_squares.hint.abstract import (
    FC,
    MIXED,
    MS_ADD,
    MS_EMPTY,
    MS_GROUPS,
    MS_N,
    MS_PAT,
    MS_ROYAL,
    MS_WMASKS,
    N_PATTERNS,
    RC,
    RCODES,
    SC,
    SF,
    TIME_BUCKETS,
    WINDOWS,
    ValueTable,
    line_points,
)
from training.cli import training_args, write_table

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

DEFAULT_BATCH = 2000
"""Games per lock-step batch (measured in docs/hint-engine.md, "Batch trainer")."""
REFRESH_EVERY = 2000
"""Games between rebuilds of the coarse fallback values (as `train.py`)."""

# --- per-multiset lookup arrays (from abstract's tables) ---------------------------------
_NMS = len(MS_N)
_SLOTS = 4  # at most 4 distinct ranks in an incomplete line
_PAT = np.array(MS_PAT, dtype=np.int64)
_N = np.array(MS_N, dtype=np.int64)
_ADD = np.array(MS_ADD, dtype=np.int64).reshape(_NMS, 14)
_GRANK = np.zeros((_SLOTS, _NMS), dtype=np.int64)
"""Ranks of the multiset's groups, slot by slot (padding: rank 0 with weight 0)."""
_GWEIGHT = np.zeros((_SLOTS, _NMS), dtype=np.int64)
"""Weight of each rank's unseen count in the group code: RC ** (groups after its group)."""
_RANKS = np.zeros(_NMS, dtype=np.int64)
"""Rank mask (bit rank - 1) of the multiset's ranks."""
_WINS = np.zeros(_NMS, dtype=np.int64)
"""Straight windows (bit i: abstract.WINDOWS[i]; bit 9 the royal one) that hold the
multiset and can be completed: the windows whose missing ranks are in MS_WMASKS[ms]."""
_WIN_MASKS = [sum(1 << (r - 1) for r in w) for w in WINDOWS]
for _ms, _groups in enumerate(MS_GROUPS):
    _j = 0
    for _gi, _g in enumerate(_groups):
        for _r in _g:
            if MS_N[_ms] < 5:
                _GRANK[_j, _ms] = _r
                _GWEIGHT[_j, _ms] = RC ** (len(_groups) - 1 - _gi)
                _j += 1
            _RANKS[_ms] |= 1 << (_r - 1)
    for _wi, _wm in enumerate(_WIN_MASKS):
        if _RANKS[_ms] & _wm == _RANKS[_ms] and _wm & ~_RANKS[_ms] in MS_WMASKS[_ms]:
            _WINS[_ms] |= 1 << _wi
    assert int(_WINS[_ms]).bit_count() == len(MS_WMASKS[_ms])
    assert (MS_ROYAL[_ms] >= 0) == bool(_WINS[_ms] >> (len(WINDOWS) - 1))
_FIT = np.zeros(1 << 13, dtype=np.int64)
"""_FIT[ranks]: the straight windows whose ranks all lie in the rank mask `ranks`."""
for _wi, _wm in enumerate(_WIN_MASKS):
    _FIT |= np.where(np.arange(1 << 13) & _wm == _wm, 1 << _wi, 0)
_POP = np.array([i.bit_count() for i in range(1 << len(WINDOWS))], dtype=np.int64)
_ROYAL_BIT = 1 << (len(WINDOWS) - 1)
N_COARSE = 2 * TIME_BUCKETS * N_PATTERNS * 4
"""Size of the coarse key space (`coarse_keys` < N_COARSE)."""

ROW = np.array([c // 5 for c in range(25)], dtype=np.int64)
COL = np.array([5 + c % 5 for c in range(25)], dtype=np.int64)
_IS_COL = np.array([0] * 5 + [1] * 5, dtype=np.int64)


def line_keys(
    is_col: I64,
    tb: I64 | int,
    ms: I64,
    st: I64,
    ru: I64,
    su: I64,
    avail: I64,
    mask: I64,
    game: I64 | None = None,
) -> tuple[I64, I64]:
    """`abstract.line_key` of many lines at once (the same int64 keys, bit for bit), and
    their `abstract.coarse_key`s.

    Per line (1-d arrays of one length, or scalars): `is_col`, `tb`, `ms` (multiset id of
    fewer than 5 cards), `st` (suit state). Per game: `ru` (games, 14) and `su` (games, 4)
    unseen counts by rank and suit, `avail` and `mask` (games,). `game` maps each line to its
    game's row (default: line i belongs to game i).
    """
    if game is None:
        game = np.arange(ms.shape[0], dtype=np.int64)
    head = (is_col * TIME_BUCKETS + tb) * N_PATTERNS + _PAT[ms]
    # Group code: each rank's unseen count times 13 ** (number of later groups).
    ruf = ru.ravel()
    base = game * ru.shape[1]
    rcode = ruf[base + _GRANK[0][ms]] * _GWEIGHT[0][ms]
    for j in range(1, _SLOTS):
        rcode += ruf[base + _GRANK[j][ms]] * _GWEIGHT[j][ms]
    # A window holding the line's ranks can still be filled iff its missing ranks are
    # available, i.e. all its ranks lie in (available ranks | the line's ranks).
    wins = _WINS[ms]
    msr = _RANKS[ms]
    sc = _POP[wins & _FIT[avail[game] | msr]]
    one_suit = (st >= 0) & (st < MIXED)
    s = np.clip(st, 0, 3)
    u = su.ravel()[game * su.shape[1] + s]
    fc = one_suit * (1 + np.minimum(u, 10))
    sav = (mask[game] >> (13 * s)) & 0x1FFF
    sfw = wins & _FIT[sav | msr]
    # 1 if a straight flush is live, 2 if the royal one is (it is one of the windows).
    sf = ((sfw != 0) * 1 + ((sfw & _ROYAL_BIT) != 0)) * (one_suit & (sc > 0))
    # An empty line has rcode, fc, sc and sf 0, so this is also its key (head * unit).
    key = (((head * RCODES + rcode) * FC + fc) * SC + sc) * SF + sf
    coarse = (head * 2 + (fc > 0)) * 2 + (sc > 0)
    return key, coarse


def coarse_keys(keys: I64) -> I64:
    """`abstract.coarse_key` of many keys at once."""
    k = keys // SF
    sc = k % SC
    k = k // SC
    fc = k % FC
    k = k // (FC * RCODES)
    return ((k * 2 + (fc > 0)) * 2 + (sc > 0)).astype(np.int64)


_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing


class Store:
    """Learned values by key: an open-addressing hash table (linear probing) of int64 keys
    with float64 running means and int64 counts per slot, kept at most a quarter full."""

    def __init__(self, horizon: int, bits: int = 16) -> None:
        self.horizon = horizon
        self.bits = bits
        self.slot_keys: I64 = np.full(1 << bits, -1, dtype=np.int64)
        self.values: F64 = np.zeros(1 << bits, dtype=np.float64)
        self.counts: I64 = np.zeros(1 << bits, dtype=np.int64)
        self.size = 0
        self.coarse: F64 = np.zeros(N_COARSE, dtype=np.float64)

    def items(self) -> tuple[I64, F64, I64]:
        """(keys, values, counts), sorted by key."""
        sl = np.flatnonzero(self.slot_keys >= 0)
        sl = sl[np.argsort(self.slot_keys[sl])]
        return self.slot_keys[sl], self.values[sl], self.counts[sl]

    def _home(self, q: I64) -> I64:
        h = (q.astype(np.uint64) * _HASH_MUL) >> np.uint64(64 - self.bits)
        return h.astype(np.int64)

    def find(self, q: I64) -> I64:
        """The slot of each key, -1 where the key is not stored."""
        wrap = (1 << self.bits) - 1
        slot = self._home(q)
        t = self.slot_keys[slot]
        res = np.where(t == q, slot, -1)
        idx = np.flatnonzero((t >= 0) & (t != q))  # collided: probe on
        slot = slot[idx]
        qq = q[idx]
        while idx.size:
            slot = (slot + 1) & wrap
            t = self.slot_keys[slot]
            hit = t == qq
            res[idx[hit]] = slot[hit]
            go = (t >= 0) & ~hit
            idx = idx[go]
            slot = slot[go]
            qq = qq[go]
        return res

    def insert(self, u: I64) -> I64:
        """Add distinct keys not yet stored (value 0, count 0); their slots."""
        while 4 * (self.size + u.shape[0]) > (1 << self.bits):
            self._grow()
        wrap = (1 << self.bits) - 1
        res = np.full(u.shape[0], -1, dtype=np.int64)
        idx = np.arange(u.shape[0])
        slot = self._home(u)
        while idx.size:
            free = self.slot_keys[slot] < 0
            # Of the keys wanting one free slot, the first takes it; the rest probe on.
            fi = np.flatnonzero(free)
            _, first = np.unique(slot[fi], return_index=True)
            win = fi[first]
            self.slot_keys[slot[win]] = u[idx[win]]
            res[idx[win]] = slot[win]
            go = np.ones(idx.size, dtype=bool)
            go[win] = False
            slot = np.where(free, slot, (slot + 1) & wrap)[go]
            idx = idx[go]
        self.size += u.shape[0]
        return res

    def _grow(self) -> None:
        """Twice the slots, the same keys, values and counts (and coarse values)."""
        keys, values, counts = self.items()
        self.bits += 1
        self.slot_keys = np.full(1 << self.bits, -1, dtype=np.int64)
        self.values = np.zeros(1 << self.bits, dtype=np.float64)
        self.counts = np.zeros(1 << self.bits, dtype=np.int64)
        self.size = 0
        sl = self.insert(keys)
        self.values[sl] = values
        self.counts[sl] = counts

    def refresh(self) -> None:
        """Coarse fallback values: count-weighted means of the fine values (`from_counts`)."""
        keys, values, counts = self.items()
        ck = coarse_keys(keys)
        w = np.bincount(ck, weights=counts, minlength=N_COARSE)
        s = np.bincount(ck, weights=values * counts, minlength=N_COARSE)
        self.coarse = np.where(w > 0, s / np.maximum(w, 1), 0.0)

    def lookup(self, q: I64, cq: I64) -> F64:
        """Value of each key `q`: the fine value if known, else the coarse fallback of its
        coarse key `cq` (0 if none)."""
        sl = self.find(q)
        return np.where(sl >= 0, self.values[sl], self.coarse[cq])

    def merge(self, keys: I64, targets: I64) -> None:
        """Move each key towards the mean of its new targets (see `merged`)."""
        sl = self.find(keys)
        miss = sl < 0
        if miss.any():
            u, inv = np.unique(keys[miss], return_inverse=True)
            sl[miss] = self.insert(u)[inv]
        m = np.bincount(sl, minlength=1 << self.bits)
        t = np.flatnonzero(m)
        m = m[t]
        g = np.bincount(sl, weights=targets, minlength=1 << self.bits)[t] / m
        self.values[t] = merged(self.values[t], self.counts[t], g, m, self.horizon)
        self.counts[t] += m


def merged(old: F64, n: I64, g: F64, m: I64, horizon: int) -> F64:
    """A key's value after `m` observations with mean `g`, given `n` earlier ones (mean `old`).

    `train.py` takes observation number c (counting from 1) with step 1/min(c, horizon): an
    exact mean up to `horizon` observations, then steps of 1/horizon. Here the first
    k = min(m, horizon - n) new observations join the exact mean, and each of the other
    m - k moves the value 1/horizon of the way to g, i.e. all together
    v + (1 - (1 - 1/horizon) ** (m - k)) * (g - v). This equals the sequential rule when every
    observation is g, and treats the batch's observations as exchangeable (their order within
    a lock-step batch is arbitrary anyway).
    """
    k = np.clip(horizon - n, 0, m)
    v = old + (g - old) * (k / np.maximum(n + k, 1))
    step = 1.0 - (1.0 - 1.0 / horizon) ** (m - k)
    out: F64 = v + step * (g - v)
    return out


def play_batch(
    store: Store,
    decks: I64,
    eps: F64,
    u_explore: F64,
    u_cell: F64,
    pts: I64,
) -> tuple[I64, I64, I64]:
    """Play len(decks) games in lock-step with `train.Trainer.play`'s policy.

    `decks` (games, >= 25): card indices in order; `eps` (games,): exploration rate;
    `u_explore`, `u_cell` (25, games): uniform draws deciding exploration and its cell.
    Returns (final totals, after-state keys (25, games, 10) with -1 for none, final points
    of each line (games, 10)).
    """
    b = decks.shape[0]
    ar = np.arange(b)
    game = np.repeat(ar, 10)
    is_col = np.tile(_IS_COL, b)
    lms = np.full((b, 10), MS_EMPTY, dtype=np.int64)
    lst = np.full((b, 10), -1, dtype=np.int64)
    ru = np.zeros((b, 14), dtype=np.int64)
    ru[:, 1:] = 4
    su = np.full((b, 4), 13, dtype=np.int64)
    mask = np.full(b, (1 << 52) - 1, dtype=np.int64)
    avail = np.full(b, 0x1FFF, dtype=np.int64)
    filled = np.zeros((b, 25), dtype=bool)
    rec = np.full((25, b, 10), -1, dtype=np.int64)
    for p in range(25):
        card = decks[:, p].astype(np.int64)
        r = card % 13 + 1
        s = card // 13
        ru[ar, r] -= 1
        su[ar, s] -= 1
        mask &= ~(np.int64(1) << card)
        avail &= ~np.where(ru[ar, r] == 0, np.int64(1) << (r - 1), 0)
        open_ = _N[lms] < 5
        k0, c0 = line_keys(is_col, p, lms.ravel(), lst.ravel(), ru, su, avail, mask, game)
        v0 = store.lookup(k0, c0).reshape(b, 10)
        k0 = np.where(open_, k0.reshape(b, 10), -1)
        ms2 = np.where(open_, _ADD[lms, r[:, None]], MS_EMPTY)
        st2 = np.where(lst == -1, s[:, None], np.where(lst == s[:, None], lst, MIXED))
        done2 = _N[ms2] == 5
        k1, c1 = line_keys(is_col, p, ms2.ravel(), st2.ravel(), ru, su, avail, mask, game)
        v1 = np.where(done2, pts[2 * ms2 + (st2 != MIXED)], store.lookup(k1, c1).reshape(b, 10))
        k1 = np.where(open_ & ~done2, k1.reshape(b, 10), -1)
        d = np.where(open_, v1 - v0, -1e9)
        score = d[:, ROW] + d[:, COL]
        score[filled] = -np.inf
        cell = np.argmax(score, axis=1)
        if p < 24:
            empties = np.nonzero(~filled)[1].reshape(b, 25 - p)
            pick = np.minimum((u_cell[p] * (25 - p)).astype(np.int64), 24 - p)
            cell = np.where(u_explore[p] < eps, empties[ar, pick], cell)
        filled[ar, cell] = True
        row = ROW[cell]
        col = COL[cell]
        after = k0
        for li in (row, col):
            lms[ar, li] = ms2[ar, li]
            lst[ar, li] = st2[ar, li]
            after[ar, li] = k1[ar, li]
        rec[p] = after
    finals = pts[2 * lms + (lst != MIXED)]
    return finals.sum(axis=1), rec, finals


def epsilons(epsilon: float, first: int, count: int, games: int) -> F64:
    """`train.train`'s exploration rate of games first .. first + count - 1 of `games`."""
    explore_until = max(1, int(games * 0.8))
    frac = np.arange(first, first + count, dtype=np.float64) / explore_until
    return np.where(frac < 1.0, epsilon * (1.0 - np.minimum(frac, 1.0)) ** 2, 0.0)


def train(
    table: str,
    games: int,
    seed: int,
    *,
    batch: int = DEFAULT_BATCH,
    epsilon: float = 0.5,
    horizon: int = 2000,
    min_count: int = 3,
    log_every: int = 0,
) -> ValueTable:
    """Self-play `games` games from `seed` in batches of `batch`; the learned table.

    `log_every` > 0: a progress line on stderr after the batch that passes each multiple of
    that many games.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    pts = np.array(line_points(table), dtype=np.int64)
    store = Store(horizon)
    start = time.monotonic()
    scores: list[I64] = []
    refreshed = -1
    g0 = 0
    while g0 < games:
        nb = min(batch, games - g0)
        if g0 // REFRESH_EVERY != refreshed:
            refreshed = g0 // REFRESH_EVERY
            store.refresh()
        eps = epsilons(epsilon, g0, nb, games)
        decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (nb, 1)), axis=1)[:, :25]
        u_explore = rng.random((25, nb))
        u_cell = rng.random((25, nb))
        totals, rec, finals = play_batch(store, decks, eps, u_explore, u_cell, pts)
        keep = rec >= 0
        targets = np.broadcast_to(finals, rec.shape)[keep]
        store.merge(rec[keep], targets)
        scores.append(totals)
        g1 = g0 + nb
        if log_every > 0 and (g1 // log_every > g0 // log_every or g1 == games):
            chunk = np.concatenate(scores)
            scores.clear()
            print(
                f"{table} games {g1} eps {eps[-1]:.3f} mean(last {chunk.size}) "
                f"{chunk.mean():.1f} keys {store.size} {time.monotonic() - start:.0f}s",
                file=sys.stderr,
                flush=True,
            )
        g0 = g1
    keys, vals, cnts = store.items()
    values = dict(zip(keys.tolist(), vals.tolist(), strict=True))
    counts = dict(zip(keys.tolist(), cnts.tolist(), strict=True))
    return ValueTable.from_counts(table, values, counts, min_count=min_count, games=games)


def main(argv: list[str] | None = None) -> int:
    ap = training_args(__doc__ or "", 1_000_000)
    ap.add_argument("--batch", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--log-every", type=int, default=100_000)
    ap.add_argument("--out", type=Path, required=True, help="the .npz file to write")
    args = ap.parse_args(argv)
    start = time.monotonic()
    vt = train(
        args.table,
        args.games,
        args.seed,
        batch=args.batch,
        epsilon=args.epsilon,
        horizon=args.horizon,
        min_count=args.min_count,
        log_every=args.log_every,
    )
    write_table(vt, args.out, start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
