"""Learn an n-tuple network evaluator of Poker Squares after-states by TD(0) self-play (numba).

    python -m training.ntuple --table american --games 1000000 --seed 1 \\
        --out /tmp/ntuple/am-pairs.npz [--resume]

Research for issue 43 (the method of 2048 players: Szubert & Jaskowski 2014, Yeh et al. 2016).
The value of an after-state is

    points of its complete lines
    + sum over the ten incomplete lines of w_line[line key]        (the shipped tables' part)
    + sum over the 45 pairs of lines of w_pair[kind, stage, a, b, rel]

- *line key*: `abstract.line_key` (row/column, time, rank pattern, unseen completers, flush
  and straight potential), looked up in the shipped table's fine keys, else its coarse key:
  the line part starts as the shipped engine (`--cold`: the same keys with zero weights).
- *pair*: two lines, each reduced to a coarse class `ck` (`CK_N` = 289: rank pattern, flush
  live tight/plenty, unseen cards of the top rank group 0-3+, a straight window live; 288 a
  complete line), the kind (row-row, column-column, row-column), the stage (cards on the
  grid, 5 buckets) and their relation `rel` (both one suit and the same suit; a rank in
  common apart from the crossing card; for a row and a column, whether their crossing cell is
  empty). Row-row and column-column pairs are symmetric (the smaller class first). So a pair
  can say "this row keeps a pair of 9s while that column collects hearts" or "two rows want
  the same rank".

Self-play is greedy on this value (first cell on ties; with probability epsilon, decaying
linearly to 0 at `--explore-until` of the run, a uniform empty cell, never on the last card),
and after every placement the previous after-state moves towards the new one:
w += alpha * (V(s_t+1) - V(s_t)) on its active weights (`--alpha-line`, `--alpha-pair`), with
V(final) the final total. Games run one after another inside numba, in chunks of
`CHUNK` games whose random generator is seeded by (seed, chunk index), so a run stopped and
resumed (`--resume`: from `--out`'s checkpoint `<out>.ckpt.npz`, written atomically every
`--checkpoint-seconds`) gives the same weights as one straight run.

numba is a training-only dependency (the product never imports this module); the weights
file holds numpy arrays only (`FK` the fine line keys, `W` the weights, `meta`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import (
    FC,
    MIXED,
    MS_EMPTY,
    N_PATTERNS,
    RCODES,
    SC,
    SF,
    TIME_BUCKETS,
    line_points,
    load_values,
)
from training.train_batch import _ADD, _FIT, _GRANK, _GWEIGHT, _N, _PAT, _POP, _RANKS, _WINS

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

N_COARSE = 2 * TIME_BUCKETS * N_PATTERNS * 4
CK_N = 289
CK_FULL = 288
NREL = 8
NSTAGE = 5
NKIND = 3
N_PAIR_W = NKIND * NSTAGE * CK_N * CK_N * NREL
CHUNK = 10_000
_ROYAL_BIT = 1 << 9

GRANK = np.ascontiguousarray(_GRANK)
GWEIGHT = np.ascontiguousarray(_GWEIGHT)


@nb.njit(cache=True)
def line_key(
    is_col: int,
    tb: int,
    ms: int,
    st: int,
    ru: I64,
    su: I64,
    avail: int,
    mask: int,
    pat: I64,
    grank: I64,
    gweight: I64,
    wins_t: I64,
    ranks_t: I64,
    fit: I64,
    pop: I64,
) -> tuple[int, int]:
    """`abstract.line_key` and `coarse_key` of one incomplete line (bit for bit)."""
    head = (is_col * TIME_BUCKETS + tb) * N_PATTERNS + pat[ms]
    rcode = 0
    for j in range(4):
        rcode += ru[grank[j, ms]] * gweight[j, ms]
    wins = wins_t[ms]
    msr = ranks_t[ms]
    sc = pop[wins & fit[avail | msr]]
    fc = 0
    sf = 0
    if 0 <= st < MIXED:
        u = su[st]
        fc = 1 + min(u, 10)
        sav = (mask >> (13 * st)) & 0x1FFF
        sfw = wins & fit[sav | msr]
        if sc > 0 and sfw != 0:
            sf = 1
            if sfw & _ROYAL_BIT:
                sf = 2
    if ms == MS_EMPTY:
        rcode = 0
        fc = 0
        sc = 0
        sf = 0
    key = (((head * RCODES + rcode) * FC + fc) * SC + sc) * SF + sf
    coarse = (head * 2 + (1 if fc > 0 else 0)) * 2 + (1 if sc > 0 else 0)
    return key, coarse


@nb.njit(cache=True)
def line_index(key: int, coarse: int, fk: I64) -> int:
    """Index in W of a line key: its fine key's slot, else its coarse key's."""
    i = np.searchsorted(fk, key)
    if i < fk.shape[0] and fk[i] == key:
        return int(i)
    return int(fk.shape[0] + coarse)


@nb.njit(cache=True)
def coarse_class(
    ms: int, st: int, ru: I64, su: I64, avail: int, n_t: I64, pat: I64, grank: I64,
    gweight: I64, wins_t: I64, ranks_t: I64, fit: I64,
) -> int:  # fmt: skip
    """The pair tuples' class of a line (0-287, `CK_FULL` complete)."""
    n = n_t[ms]
    if n == 5:
        return CK_FULL
    if n == 0:
        return 0
    fs = 0
    if 0 <= st < MIXED:
        need = 5 - n
        u = su[st]
        if u >= 2 * need:
            fs = 2
        elif u >= need:
            fs = 1
    top = gweight[0, ms]
    rb = 0
    for j in range(4):
        if grank[j, ms] > 0 and gweight[j, ms] == top:
            rb += ru[grank[j, ms]]
    rb = min(rb, 3)
    sl = 1 if (wins_t[ms] & fit[avail | ranks_t[ms]]) != 0 else 0
    return int(((pat[ms] * 3 + fs) * 4 + rb) * 2 + sl)


@nb.njit(cache=True)
def pair_index(i: int, j: int, ck: I64, st: I64, rm: I64, cells: I64, stage: int, base: int) -> int:
    """Index in W of the pair (line i, line j), i < j."""
    same = 1 if (st[i] == st[j] and 0 <= st[i] < MIXED) else 0
    shared = rm[i] & rm[j]
    if i < 5 and j >= 5:
        kind = 2
        cross = cells[5 * i + (j - 5)]
        cross_empty = 1 if cross < 0 else 0
        if cross >= 0:
            shared &= ~(1 << (cross % 13))
        a = ck[i]
        b = ck[j]
    else:
        kind = 0 if i < 5 else 1
        cross_empty = 0
        a = min(ck[i], ck[j])
        b = max(ck[i], ck[j])
    rel = same + 2 * (1 if shared != 0 else 0) + 4 * cross_empty
    return int(base + ((((kind * NSTAGE + stage) * CK_N + a) * CK_N + b) * NREL + rel))


@nb.njit(cache=True)
def cell_values(
    cells: I64,
    lms: I64,
    lst: I64,
    rm: I64,
    ru: I64,
    su: I64,
    mask: int,
    avail: int,
    total: int,
    p: int,
    card: int,
    w: F64,
    fk: I64,
    pts: I64,
    use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
    out: F64,
    gain: F64,
) -> float:
    """The network's value of the after-state of `card` (already seen: not in ru, su, mask,
    avail) on every empty cell of a grid holding `p` cards (`out`; -inf for the filled cells),
    and the same split as the shipped lookahead splits it (`search_look.Context.leaves`): the
    returned sum of the lines' values now, plus `gain[cell]` (what the two lines it changes
    gain, and with the pairs, what the pairs gain), plus the total.

    `out` sums the line values in line order after the total, as `search.static_estimate`
    does, so with zero pair weights both are the shipped evaluator's to the bit."""
    n_t, pat, add, grank, gweight, wins_t, ranks_t, fit, pop = tabs
    base = fk.shape[0] + N_COARSE
    r = card % 13 + 1
    s = card // 13
    stage = min(p // 5, NSTAGE - 1)
    lval = np.zeros(10)
    ck = np.zeros(10, dtype=np.int64)
    pv = np.zeros((10, 10))
    ck1 = np.zeros(10, dtype=np.int64)
    st1 = np.zeros(10, dtype=np.int64)
    rm1 = np.zeros(10, dtype=np.int64)
    lv1 = np.zeros(10)
    for li in range(10):
        ms = lms[li]
        if n_t[ms] < 5:
            k, c = line_key(
                1 if li >= 5 else 0, p, ms, lst[li], ru, su, avail, mask,
                pat, grank, gweight, wins_t, ranks_t, fit, pop,
            )  # fmt: skip
            lval[li] = w[line_index(k, c, fk)]
        ck[li] = coarse_class(
            ms, lst[li], ru, su, avail, n_t, pat, grank, gweight, wins_t, ranks_t, fit
        )
    psum = 0.0
    if use_pairs and p < 24:
        for i in range(10):
            for j in range(i + 1, 10):
                v = w[pair_index(i, j, ck, lst, rm, cells, stage, base)]
                pv[i, j] = v
                pv[j, i] = v
                psum += v
    osum = 0.0
    for li in range(10):
        osum += lval[li]
    for cell in range(25):
        if cells[cell] >= 0:
            out[cell] = -np.inf
            gain[cell] = -np.inf
            continue
        ri = cell // 5
        ci = 5 + cell % 5
        tot = total
        for li in range(10):
            lv1[li] = lval[li]
            ck1[li] = ck[li]
            st1[li] = lst[li]
            rm1[li] = rm[li]
        dl = np.zeros(2)
        for side in range(2):
            li = ri if side == 0 else ci
            ms2 = add[lms[li], r]
            st2 = s if lst[li] == -1 else (lst[li] if lst[li] == s else MIXED)
            st1[li] = st2
            rm1[li] = rm[li] | (1 << (r - 1))
            if n_t[ms2] == 5:
                got = pts[2 * ms2 + (1 if st2 != MIXED else 0)]
                tot += got
                dl[side] = float(got) - lval[li]
                lv1[li] = 0.0
                ck1[li] = CK_FULL
            else:
                k, c = line_key(
                    1 if li >= 5 else 0, p, ms2, st2, ru, su, avail, mask,
                    pat, grank, gweight, wins_t, ranks_t, fit, pop,
                )  # fmt: skip
                lv1[li] = w[line_index(k, c, fk)]
                dl[side] = lv1[li] - lval[li]
                ck1[li] = coarse_class(
                    ms2, st2, ru, su, avail, n_t, pat, grank, gweight, wins_t, ranks_t, fit
                )
        gain[cell] = dl[0] + dl[1]
        v = float(tot)
        if p < 24:
            for li in range(10):
                v += lv1[li]
            if use_pairs:
                ps = psum
                for j in range(10):
                    if j != ri:
                        ps -= pv[ri, j]
                    if j != ci and j != ri:
                        ps -= pv[ci, j]
                cells[cell] = card
                for j in range(10):
                    if j != ri:
                        a, b = (ri, j) if ri < j else (j, ri)
                        ps += w[pair_index(a, b, ck1, st1, rm1, cells, stage, base)]
                    if j != ci and j != ri:
                        a, b = (ci, j) if ci < j else (j, ci)
                        ps += w[pair_index(a, b, ck1, st1, rm1, cells, stage, base)]
                cells[cell] = -1
                v += ps
                gain[cell] += ps - psum
        out[cell] = v
    return osum


@nb.njit(cache=True)
def see(card: int, ru: I64, su: I64, mask: int, avail: int) -> tuple[int, int]:
    """Turn a card: ru and su in place; the new (mask, avail)."""
    r = card % 13 + 1
    ru[r] -= 1
    su[card // 13] -= 1
    mask &= ~(1 << card)
    if ru[r] == 0:
        avail &= ~(1 << (r - 1))
    return mask, avail


@nb.njit(cache=True)
def unsee(card: int, ru: I64, su: I64, mask: int, avail: int) -> tuple[int, int]:
    """Undo `see`."""
    r = card % 13 + 1
    ru[r] += 1
    su[card // 13] += 1
    return mask | (1 << card), avail | (1 << (r - 1))


@nb.njit(cache=True)
def put(
    cell: int, card: int, cells: I64, lms: I64, lst: I64, rm: I64, pts: I64, add: I64, n_t: I64
) -> int:
    """Place a card (arrays in place); the points of the lines it completes."""
    r = card % 13 + 1
    s = card // 13
    cells[cell] = card
    gained = 0
    for li in (cell // 5, 5 + cell % 5):
        ms2 = add[lms[li], r]
        st2 = s if lst[li] == -1 else (lst[li] if lst[li] == s else MIXED)
        lms[li] = ms2
        lst[li] = st2
        rm[li] |= 1 << (r - 1)
        if n_t[ms2] == 5:
            gained += pts[2 * ms2 + (1 if st2 != MIXED else 0)]
    return gained


@nb.njit(cache=True)
def after_features(
    cells: I64, lms: I64, lst: I64, rm: I64, ru: I64, su: I64, mask: int, avail: int, p: int,
    fk: I64, use_pairs: bool, tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
    cur: I64,
) -> None:  # fmt: skip
    """The active weights (indices in W; -1 none) of the after-state of placement `p`:
    cur[0:10] the lines, cur[10:55] the pairs; all -1 once the grid is full."""
    n_t, pat, _add, grank, gweight, wins_t, ranks_t, fit, pop = tabs
    cur[:] = -1
    if p >= 24:
        return
    ck = np.zeros(10, dtype=np.int64)
    for li in range(10):
        ms = lms[li]
        if n_t[ms] < 5:
            k, c = line_key(
                1 if li >= 5 else 0, p, ms, lst[li], ru, su, avail, mask,
                pat, grank, gweight, wins_t, ranks_t, fit, pop,
            )  # fmt: skip
            cur[li] = line_index(k, c, fk)
        ck[li] = coarse_class(
            ms, lst[li], ru, su, avail, n_t, pat, grank, gweight, wins_t, ranks_t, fit
        )
    if use_pairs:
        base = fk.shape[0] + N_COARSE
        stage = min(p // 5, NSTAGE - 1)
        q = 10
        for i in range(10):
            for j in range(i + 1, 10):
                cur[q] = pair_index(i, j, ck, lst, rm, cells, stage, base)
                q += 1


@nb.njit(cache=True)
def empty_grid() -> tuple[I64, I64, I64, I64, I64, I64]:
    """A deal's start: (cells, line multisets, line suit states, line rank masks, unseen
    cards by rank, unseen cards by suit)."""
    cells = np.full(25, -1, dtype=np.int64)
    lms = np.full(10, MS_EMPTY, dtype=np.int64)
    lst = np.full(10, -1, dtype=np.int64)
    rm = np.zeros(10, dtype=np.int64)
    ru = np.full(14, 4, dtype=np.int64)
    ru[0] = 0
    su = np.full(4, 13, dtype=np.int64)
    return cells, lms, lst, rm, ru, su


@nb.njit(cache=True)
def play_game(
    deck: I64,
    w: F64,
    fk: I64,
    pts: I64,
    eps: float,
    alpha_line: float,
    alpha_pair: float,
    use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
) -> int:
    """Play one deal greedily on the network (epsilon-greedy); learn by TD(0) if an alpha
    is > 0. Returns the final total."""
    n_t = tabs[0]
    add = tabs[2]
    cells, lms, lst, rm, ru, su = empty_grid()
    mask = (1 << 52) - 1
    avail = 0x1FFF
    total = 0
    learn = alpha_line > 0.0 or alpha_pair > 0.0
    prev = np.full(55, -1, dtype=np.int64)
    cur = np.full(55, -1, dtype=np.int64)
    prev_total = 0
    has_prev = False
    vals = np.zeros(25)
    gain = np.zeros(25)
    for p in range(25):
        card = deck[p]
        mask, avail = see(card, ru, su, mask, avail)
        cell_values(
            cells, lms, lst, rm, ru, su, mask, avail, total, p, card, w, fk, pts,
            use_pairs, tabs, vals, gain,
        )  # fmt: skip
        best = -1
        best_v = -np.inf
        for cell in range(25):
            if cells[cell] < 0 and vals[cell] > best_v:
                best_v = vals[cell]
                best = cell
        if p < 24 and eps > 0.0 and np.random.random() < eps:
            pick = np.random.randint(25 - p)
            for cell in range(25):
                if cells[cell] < 0:
                    if pick == 0:
                        best = cell
                        break
                    pick -= 1
        total += put(best, card, cells, lms, lst, rm, pts, add, n_t)
        if not learn:
            continue
        after_features(cells, lms, lst, rm, ru, su, mask, avail, p, fk, use_pairs, tabs, cur)
        v_new = float(total)
        for q in range(55):
            if cur[q] >= 0:
                v_new += w[cur[q]]
        if has_prev:
            v_old = float(prev_total)
            for q in range(55):
                if prev[q] >= 0:
                    v_old += w[prev[q]]
            delta = v_new - v_old
            for q in range(55):
                if prev[q] >= 0:
                    w[prev[q]] += (alpha_line if q < 10 else alpha_pair) * delta
        prev[:] = cur
        prev_total = total
        has_prev = True
    return total


@nb.njit(cache=True)
def train_chunk(
    w: F64,
    fk: I64,
    pts: I64,
    games: int,
    seed: int,
    eps_start: float,
    eps_end: float,
    alpha_line: float,
    alpha_pair: float,
    use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
) -> I64:
    """`games` self-play games from `seed`, exploration linear from eps_start to eps_end."""
    np.random.seed(seed)
    out = np.zeros(games, dtype=np.int64)
    for g in range(games):
        deck = np.random.permutation(52)[:25].astype(np.int64)
        eps = eps_start + (eps_end - eps_start) * g / max(games, 1)
        out[g] = play_game(deck, w, fk, pts, eps, alpha_line, alpha_pair, use_pairs, tabs)
    return out


@nb.njit(cache=True)
def play_deals(
    decks: I64,
    w: F64,
    fk: I64,
    pts: I64,
    use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
) -> I64:
    """Greedy play (budget 0) of each deal (rows of `decks`); the final totals."""
    out = np.zeros(decks.shape[0], dtype=np.int64)
    for g in range(decks.shape[0]):
        out[g] = play_game(decks[g], w, fk, pts, 0.0, 0.0, 0.0, use_pairs, tabs)
    return out


def tables() -> tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64]:
    """The per-multiset lookup arrays the kernels read."""
    return (
        np.ascontiguousarray(_N),
        np.ascontiguousarray(_PAT),
        np.ascontiguousarray(_ADD),
        GRANK,
        GWEIGHT,
        np.ascontiguousarray(_WINS),
        np.ascontiguousarray(_RANKS),
        np.ascontiguousarray(_FIT),
        np.ascontiguousarray(_POP),
    )


def initial_weights(table: str, *, cold: bool = False, pairs: bool = True) -> tuple[I64, F64]:
    """(fine keys, weights): the shipped table's line values (zero if `cold`), zero pairs."""
    vt = load_values(table)
    fk = np.array(sorted(vt.fine), dtype=np.int64)
    n = fk.shape[0] + N_COARSE + (N_PAIR_W if pairs else 0)
    w = np.zeros(n, dtype=np.float64)
    if not cold:
        w[: fk.shape[0]] = [vt.fine[k] for k in fk.tolist()]
        for ck, v in vt.coarse.items():
            w[fk.shape[0] + ck] = v
    return fk, w


def save_atomic(path: Path, fk: I64, w: F64, meta: I64, cpu: F64) -> None:
    """np.savez to `path` via a .part file and a rename."""
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:
        np.savez(f, FK=fk, W=w, meta=meta, cpu=cpu)
    os.replace(part, path)


def load_weights(path: Path) -> tuple[I64, F64, bool]:
    """(fine keys, weights, uses pairs) of a weights or checkpoint file."""
    with np.load(path) as z:
        fk = z["FK"]
        w = z["W"].astype(np.float64)
    return fk, w, w.shape[0] > fk.shape[0] + N_COARSE


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.02)
    ap.add_argument("--explore-until", type=float, default=0.5)
    ap.add_argument("--alpha-line", type=float, default=0.0005)
    ap.add_argument("--alpha-pair", type=float, default=0.002)
    ap.add_argument("--no-pairs", action="store_true", help="line weights only (the control)")
    ap.add_argument("--cold", action="store_true", help="start the line weights at zero")
    ap.add_argument("--checkpoint-seconds", type=float, default=180.0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    ckpt = args.out.with_name(args.out.name + ".ckpt.npz")
    pts = np.array(line_points(args.table), dtype=np.int64)
    tabs = tables()
    done = 0
    cpu_before = 0.0
    if args.resume and ckpt.exists():
        with np.load(ckpt) as z:
            fk = z["FK"]
            w = z["W"]
            done = int(z["meta"][0])
            cpu_before = float(z["cpu"][0])
        print(f"resumed at {done} games", file=sys.stderr, flush=True)
    else:
        fk, w = initial_weights(args.table, cold=args.cold, pairs=not args.no_pairs)
    use_pairs = not args.no_pairs
    cpu0 = time.process_time()
    last = time.monotonic()
    explore = max(1, int(args.games * args.explore_until))
    recent: list[float] = []

    def write(path: Path) -> None:
        meta = np.array([done, args.seed, args.games], dtype=np.int64)
        cpu = np.array([cpu_before + time.process_time() - cpu0])
        save_atomic(path, fk, w, meta, cpu)

    while done < args.games:
        n = min(CHUNK, args.games - done)
        e0 = args.epsilon * max(0.0, 1.0 - done / explore)
        e1 = args.epsilon * max(0.0, 1.0 - (done + n) / explore)
        scores = train_chunk(
            w, fk, pts, n, args.seed * 1_000_003 + done // CHUNK, e0, e1,
            args.alpha_line, args.alpha_pair, use_pairs, tabs,
        )  # fmt: skip
        done += n
        recent.append(float(scores.mean()))
        if done % 100_000 == 0 or done == args.games:
            cpu = cpu_before + time.process_time() - cpu0
            print(
                f"{args.table} games {done} eps {e1:.3f} mean(last {len(recent) * CHUNK}) "
                f"{np.mean(recent):.2f} cpu {cpu:.0f}s",
                file=sys.stderr,
                flush=True,
            )
            recent.clear()
        if time.monotonic() - last > args.checkpoint_seconds:
            write(ckpt)
            last = time.monotonic()
    write(ckpt)
    write(args.out)
    print(
        f"wrote {args.out} cpu {cpu_before + time.process_time() - cpu0:.0f}s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
