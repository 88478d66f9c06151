"""Expectimax over the next cards with the n-tuple network at the leaves (numba; research).

The shipped search's shape (`hint/search.py` at the interactive budget): every empty cell is
valued one card deep (`look1`: the mean over every unseen next card of the best after-state
the network reaches with it), and the best `two` cells two cards deep (the mean over every
unseen next card of the best of its `width` most promising cells by the network, each valued
by `look1`); a cell's estimate is its deepest value, the highest estimate is played (lowest
cell on ties). Exact averages over the unseen cards: no sampling, no seed.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from training.ntuple import F64, I64, after_features, cell_values, empty_grid, put, see, unsee


@nb.njit(cache=True)
def look1(
    cells: I64, lms: I64, lst: I64, rm: I64, ru: I64, su: I64, mask: int, avail: int,
    total: int, placed: int, w: F64, fk: I64, pts: I64, use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64],
) -> float:  # fmt: skip
    """Mean over the unseen next cards of the best after-state value (`placed` cards lie),
    summed as `search_look.Context.leaves` sums it."""
    if placed >= 25:
        return float(total)
    vals = np.zeros(25)
    gain = np.zeros(25)
    acc = 0.0
    n = 0
    for x in range(52):
        if not (mask >> x) & 1:
            continue
        m2, a2 = see(x, ru, su, mask, avail)
        osum = cell_values(
            cells, lms, lst, rm, ru, su, m2, a2, total, placed, x, w, fk, pts,
            use_pairs, tabs, vals, gain,
        )  # fmt: skip
        unsee(x, ru, su, m2, a2)
        acc += osum + gain.max() + total
        n += 1
    return acc / n


@nb.njit(cache=True)
def signature(cells: I64, lms: I64, lst: I64, cell: int) -> int:
    """`search._signature` as an int: cells with equal ones are the same up to symmetry."""
    sig = 0
    for li in (cell // 5, 5 + cell % 5):
        em = 0
        for k in range(5):
            c = 5 * li + k if li < 5 else 5 * k + (li - 5)
            if cells[c] < 0:
                em |= 1 << k
        sig = ((sig * 8192 + lms[li]) * 6 + lst[li] + 1) * 32 + em
    return sig


@nb.njit(cache=True)
def choose(
    cells: I64, lms: I64, lst: I64, rm: I64, ru: I64, su: I64, mask: int, avail: int,
    total: int, p: int, card: int, w: F64, fk: I64, pts: I64, use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64], two: int, width: int,
    root_pairs: bool,
) -> int:  # fmt: skip
    """The searched cell for `card` (already seen) on a grid holding `p` cards.

    `root_pairs`: the pair weights only at the root (each cell's estimate plus the pair sum
    of its after-state, like issue 31's root correction), the leaves valued by the lines."""
    n_t = tabs[0]
    add = tabs[2]
    # one cell per symmetry class (the lowest), as `search.cell_classes`
    sigs = np.zeros(25, dtype=np.int64)
    rep = np.full(25, -1, dtype=np.int64)
    reps = np.zeros(25, dtype=np.int64)
    nrep = 0
    for c in range(25):
        if cells[c] >= 0:
            continue
        sigs[c] = signature(cells, lms, lst, c)
        for d in range(c):
            if cells[d] < 0 and rep[d] == d and sigs[d] == sigs[c]:
                rep[c] = d
                break
        if rep[c] < 0:
            rep[c] = c
            reps[nrep] = c
            nrep += 1
    est = np.full(25, -np.inf)
    corr = np.zeros(25)
    cur = np.full(55, -1, dtype=np.int64)
    for i in range(nrep):
        c = reps[i]
        c2 = cells.copy()
        l2 = lms.copy()
        s2 = lst.copy()
        r2 = rm.copy()
        g = put(c, card, c2, l2, s2, r2, pts, add, n_t)
        est[c] = look1(
            c2, l2, s2, r2, ru, su, mask, avail, total + g, p + 1, w, fk, pts, use_pairs, tabs
        )
        if root_pairs and p < 24:
            after_features(c2, l2, s2, r2, ru, su, mask, avail, p, fk, True, tabs, cur)
            for q in range(10, 55):
                corr[c] += w[cur[q]]
            est[c] += corr[c]
    order = np.argsort(-est, kind="mergesort")
    vals = np.zeros(25)
    gain = np.zeros(25)
    if nrep > 1:
        for oi in range(min(two, nrep)):
            c = order[oi]
            c2 = cells.copy()
            l2 = lms.copy()
            s2 = lst.copy()
            r2 = rm.copy()
            t2 = total + put(c, card, c2, l2, s2, r2, pts, add, n_t)
            if p + 1 == 25:
                est[c] = float(t2)
                continue
            acc = 0.0
            n = 0
            for x in range(52):
                if not (mask >> x) & 1:
                    continue
                m2, a2 = see(x, ru, su, mask, avail)
                # the cells ranked as the shipped lookahead ranks them: by gain (stable)
                cell_values(
                    c2, l2, s2, r2, ru, su, m2, a2, t2, p + 1, x, w, fk, pts,
                    use_pairs, tabs, vals, gain,
                )  # fmt: skip
                cand = np.argsort(-gain, kind="mergesort")
                best = -np.inf
                for k in range(min(width, 25 - p - 1)):
                    d = cand[k]
                    c3 = c2.copy()
                    l3 = l2.copy()
                    s3 = s2.copy()
                    r3 = r2.copy()
                    t3 = t2 + put(d, x, c3, l3, s3, r3, pts, add, n_t)
                    v = look1(
                        c3, l3, s3, r3, ru, su, m2, a2, t3, p + 2, w, fk, pts, use_pairs, tabs
                    )
                    if v > best:
                        best = v
                unsee(x, ru, su, m2, a2)
                acc += best
                n += 1
            est[c] = acc / n + corr[c]
    best_c = -1
    best_v = -np.inf
    for c in range(25):
        if cells[c] >= 0:
            continue
        v = est[rep[c]]
        if v > best_v:
            best_v = v
            best_c = c
    return best_c


@nb.njit(cache=True)
def search_deals(
    decks: I64, w: F64, fk: I64, pts: I64, use_pairs: bool,
    tabs: tuple[I64, I64, I64, I64, I64, I64, I64, I64, I64], two: int, width: int,
    root_pairs: bool,
) -> I64:  # fmt: skip
    """Each deal placed by `choose`; the final totals."""
    n_t = tabs[0]
    add = tabs[2]
    out = np.zeros(decks.shape[0], dtype=np.int64)
    for g in range(decks.shape[0]):
        cells, lms, lst, rm, ru, su = empty_grid()
        mask = (1 << 52) - 1
        avail = 0x1FFF
        total = 0
        for p in range(25):
            card = decks[g, p]
            mask, avail = see(card, ru, su, mask, avail)
            c = choose(
                cells, lms, lst, rm, ru, su, mask, avail, total, p, card, w, fk, pts,
                use_pairs, tabs, two, width, root_pairs,
            )  # fmt: skip
            total += put(c, card, cells, lms, lst, rm, pts, add, n_t)
        out[g] = total
    return out
