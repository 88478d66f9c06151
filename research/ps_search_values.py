"""Issue-16 experiment: line values of the policy that is played, the interactive search.

The shipped values estimate what *greedy* play makes of a line; the hint plays the search at
`INTERACTIVE_BUDGET`. Steps 11-15 moved the values towards what the one-card lookahead makes
of each line (+1.41 American, -1.05 British); this does the same with the search itself.

    python -m research.ps_search_values play --table american --games 6000 --jobs 2 --out raw.npz
    python -m research.ps_search_values build --table american --raw raw.npz --horizon 1000 \\
        --out t.npz

`play` places every card of `--games` random deals (job j shuffles from `seed * 1000 + j`)
with the engine's `search.analyse` at `--budget` on the shipped engine (values frozen: one
step of policy evaluation), and records, after each placement, the key of every incomplete
line (`static_estimate`'s keys) with that line's final points: per key the sum and the count.
`build` moves each shipped value towards the mean of its targets as `train.py` would after
`count` observations with step 1/horizon (`train_batch.merged`, the value counting as
`horizon` earlier observations); a key the shipped table lacks takes its mean if seen at
least `--min-count` times. Compare the result with `research.ps_tables`.
"""

from __future__ import annotations

import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET
from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_N,
    TB,
    ValueTable,
    line_key,
    line_points,
    load_values,
)
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from research.experiment_cli import games_command, subcommands
from training.train_batch import merged

Targets = tuple[dict[int, float], dict[int, int]]
"""Per key: the sum of its lines' final points, and how many times it was seen."""


def play_one(
    deck: list[int], vt: ValueTable, pts: list[int], budget: int
) -> tuple[int, list[tuple[int, int]], list[int]]:
    """One deal placed by `analyse`: the final total, the (key, line) of every incomplete
    line after each placement, and each line's final points."""
    pos = Position()
    seen: list[tuple[int, int]] = []
    for p, card in enumerate(deck[:25]):
        pos.see(card)
        _, best = analyse(pos, card, vt, pts, budget)
        pos.put(best, card, pts)
        for li in range(10):
            ms = pos.lms[li]
            if MS_N[ms] < 5:
                is_col = 1 if li >= 5 else 0
                key = line_key(is_col, TB[p], ms, pos.lst[li], pos.ru, pos.su, pos.avail, pos.mask)
                seen.append((key, li))
    finals = [pts[2 * pos.lms[li] + (pos.lst[li] != MIXED)] for li in range(10)]
    return pos.total, seen, finals


def _play_many(job: tuple[str, int, int, int]) -> tuple[Targets, list[int]]:
    table, games, seed, budget = job
    vt = load_values(table)
    pts = line_points(table)
    rng = random.Random(seed)
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    totals: list[int] = []
    t0 = time.monotonic()
    for g in range(games):
        deck = list(range(52))
        rng.shuffle(deck)
        total, seen, finals = play_one(deck, vt, pts, budget)
        totals.append(total)
        for key, li in seen:
            sums[key] = sums.get(key, 0.0) + finals[li]
            counts[key] = counts.get(key, 0) + 1
        if (g + 1) % 250 == 0:
            print(
                f"{table} seed {seed} games {g + 1} mean {sum(totals) / len(totals):.2f} "
                f"{time.monotonic() - t0:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    return (sums, counts), totals


def play(table: str, games: int, seed: int, jobs: int, budget: int) -> tuple[Targets, list[int]]:
    """`games` deals split over `jobs` processes: merged targets, and every game's total."""
    work = [
        (table, games // jobs + (j < games % jobs), seed * 1000 + j, budget) for j in range(jobs)
    ]
    if jobs == 1:
        parts = [_play_many(work[0])]
    else:
        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(_play_many, work)
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    totals: list[int] = []
    for (s, c), t in parts:
        for k, v in s.items():
            sums[k] = sums.get(k, 0.0) + v
            counts[k] = counts.get(k, 0) + c[k]
        totals.extend(t)
    return (sums, counts), totals


def build(table: str, raw: Targets, horizon: int, min_count: int) -> ValueTable:
    """The shipped values moved towards the recorded targets (see the module's text)."""
    vt = load_values(table)
    sums, counts = raw
    values = dict(vt.fine)
    seen = dict.fromkeys(vt.fine, horizon)
    keys = np.array(sorted(sums), dtype=np.int64)
    m = np.array([counts[k] for k in keys.tolist()], dtype=np.int64)
    g = np.array([sums[k] for k in keys.tolist()]) / m
    known = np.array([k in values for k in keys.tolist()])
    old = np.array([values.get(k, 0.0) for k in keys.tolist()])
    n = np.where(known, horizon, 0)
    new = merged(old, n, g, m, horizon)
    for k, v, c in zip(keys.tolist(), new.tolist(), (n + m).tolist(), strict=True):
        values[k] = v
        seen[k] = c
    return ValueTable.from_counts(table, values, seen, min_count=min_count, games=vt.games)


def save_raw(path: Path, raw: Targets, games: int) -> None:
    sums, counts = raw
    keys = np.array(sorted(sums), dtype=np.int64)
    np.savez_compressed(
        path,
        keys=keys,
        sums=np.array([sums[k] for k in keys.tolist()]),
        counts=np.array([counts[k] for k in keys.tolist()], dtype=np.int64),
        games=np.array([games], dtype=np.int64),
    )


def load_raw(path: Path) -> Targets:
    with np.load(path) as z:
        keys = z["keys"].tolist()
        return (
            dict(zip(keys, z["sums"].tolist(), strict=True)),
            dict(zip(keys, z["counts"].tolist(), strict=True)),
        )


def main(argv: list[str] | None = None) -> int:
    ap, sub = subcommands(__doc__)
    pp = games_command(sub, "play", games=6000, jobs=1)
    pp.add_argument("--budget", type=int, default=INTERACTIVE_BUDGET)
    bp = sub.add_parser("build")
    bp.add_argument("--table", choices=sorted(TABLES), required=True)
    bp.add_argument("--raw", type=Path, required=True)
    bp.add_argument("--horizon", type=int, default=1000)
    bp.add_argument("--min-count", type=int, default=3)
    bp.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "play":
        raw, totals = play(args.table, args.games, args.seed, args.jobs, args.budget)
        save_raw(args.out, raw, args.games)
        mean = sum(totals) / len(totals)
        print(f"wrote {args.out} ({len(raw[0])} keys; games' mean {mean:.2f})", file=sys.stderr)
        return 0
    vt = build(args.table, load_raw(args.raw), args.horizon, args.min_count)
    args.out.write_bytes(vt.to_bytes())
    print(f"wrote {args.out} ({len(vt.fine)} keys)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
