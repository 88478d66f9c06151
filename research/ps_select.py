"""Rank Poker Squares value tables by greedy play on many random deals (not the benchmark's).

    python -m research.ps_select --table american /tmp/ps20/am-3m-s*.npz
    python -m research.ps_select --table british --deals 20000 --seed 90001 a.npz b.npz

Tables trained alike with different seeds differ by a few points (docs/hint-engine.md,
"Batch trainer"), and averaging them fails (step 12), so the way to use the spread is to
choose one. Every table (and the shipped one, listed first as A) places the cards of the same
`--deals` random deals greedily on its own values (`train_batch.play_batch`, epsilon 0: the
trainer's policy, which is the hint at budget 0 up to ties), and the script prints each
table's mean and its paired difference from A with the standard error. The deals come from
`--seed`, so a choice made here is not fitted to `bench/deals/ps-1000.txt`, where the chosen
table is then compared at the interactive budget (`research.ps_tables`).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from training.train_batch import Store, play_batch

CHUNK = 2000


def store_of(vt: ValueTable) -> Store:
    """The trainer's hash table holding `vt`'s fine and coarse values."""
    store = Store(horizon=1)
    keys = np.array(sorted(vt.fine), dtype=np.int64)
    slots = store.insert(keys)
    store.values[slots] = [vt.fine[k] for k in keys.tolist()]
    for ck, v in vt.coarse.items():
        store.coarse[ck] = v
    return store


def greedy_scores(vt: ValueTable, deals: int, seed: int) -> np.ndarray:
    """Final totals of `deals` random deals (from `seed`) placed greedily on `vt`."""
    rng = np.random.Generator(np.random.PCG64(seed))
    pts = np.array(line_points(vt.table), dtype=np.int64)
    store = store_of(vt)
    out = []
    for first in range(0, deals, CHUNK):
        n = min(CHUNK, deals - first)
        decks = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (n, 1)), axis=1)[:, :25]
        zeros = np.zeros((25, n))
        totals, _, _ = play_batch(store, decks, np.zeros(n), np.ones((25, n)), zeros, pts)
        out.append(totals)
    return np.concatenate(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=90_001)
    ap.add_argument("values", nargs="+", type=Path, help="value-table files (.npz)")
    args = ap.parse_args(argv)
    a = greedy_scores(load_values(args.table), args.deals, args.seed)
    print(f"shipped mean {a.mean():.2f}", flush=True)
    for path in args.values:
        vt = ValueTable.from_bytes(args.table, path.read_bytes())
        b = greedy_scores(vt, args.deals, args.seed)
        d = b - a
        se = d.std(ddof=1) / math.sqrt(d.size)
        print(
            f"{path} mean {b.mean():.2f} paired difference {d.mean():+.2f} se {se:.2f}", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
