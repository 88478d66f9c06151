"""Issue-16 experiment: a card-independent fullness correction g(h) on the Poker Squares evaluator.

The learned evaluator values an after-state as the points of its complete lines plus the sum of
the other lines' learned values; it cannot see interactions between lines. This adds g(h), where
h is NARL's "hand size frequency vector": the sorted numbers of cards in the 5 rows and in the
5 columns (card-independent, so in a lookahead it would cost one scalar per cell). g is the mean
residual, final score minus the after-state's value under the shipped tables, over the
after-states of greedy self-play (budget 0, uncorrected) with the shipped engine's tables,
shrunk towards the mean residual at the same number of placed cards (`SHRINK` pseudo-games).

    python -m research.ps_fullness learn --table american --games 50000 --seed 1 --out g-am.npz
    python -m research.ps_fullness compare --table american --corr g-am.npz \\
        --deals bench/deals/ps-1000.txt

`compare` plays every deal with the engine's `analyse` (at `--budget`, default 0) twice: on
the shipped line values alone and with the correction file added, through the engine's own
mechanism (`ValueTable.fullness`, which `search.static_estimate` and
`search_look.Context.leaves` add to each after-state), and prints the paired difference and its
standard error. Results are in research/NOTEBOOK.md (issue 16, "Steps tried" and "Step 16").
The British correction ships (`cardtable/poker_squares/data/fullness-british.npz`); the
American one did not gain and is kept here (`research/data/fullness-american.npz`).
"""

from __future__ import annotations

import math
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_ADD,
    MS_N,
    TB,
    ValueTable,
    fullness_key,
    line_key,
    line_points,
    load_values,
    read_fullness,
)
from cardtable.poker_squares.hint.position import COL_OF, ROW_OF, Position
from cardtable.poker_squares.hint.search import analyse, static_estimate
from cardtable.poker_squares.hint.search_look import look_values
from research.experiment_cli import games_command, subcommands

SHRINK = 200.0
"""Pseudo-count pulling a fullness key's residual towards its time's mean residual."""


Seen = list[tuple[int, float]]
"""(fullness key, static value) of a game's after-states before the last card."""


def self_play(vt: ValueTable, pts: list[int], rng: random.Random) -> tuple[Seen, int]:
    """One greedy game on the uncorrected evaluator: its after-states and its final score."""
    deck = list(range(52))
    rng.shuffle(deck)
    pos = Position()
    fine = vt.fine
    value = vt.value
    lms = pos.lms
    lst = pos.lst
    cells = pos.cells
    seen: Seen = []
    for p in range(25):
        card = deck[p]
        pos.see(card)
        r = card % 13 + 1
        s = card // 13
        tb = TB[p]
        olds = [0.0] * 10
        news = [0.0] * 10
        d = [-1e9] * 10
        for li in range(10):
            ms = lms[li]
            if MS_N[ms] == 5:
                continue
            is_col = 1 if li >= 5 else 0
            st = lst[li]
            k = line_key(is_col, tb, ms, st, pos.ru, pos.su, pos.avail, pos.mask)
            old = fine.get(k)
            if old is None:
                old = value(k)
            ms2 = MS_ADD[ms * 14 + r]
            st2 = s if st == -1 else (st if st == s else MIXED)
            if MS_N[ms2] == 5:
                new = float(pts[2 * ms2 + (st2 != MIXED)])
            else:
                k = line_key(is_col, tb, ms2, st2, pos.ru, pos.su, pos.avail, pos.mask)
                v = fine.get(k)
                new = value(k) if v is None else v
            olds[li] = old
            news[li] = new
            d[li] = new - old
        best = -1e18
        cell = -1
        for c in range(25):
            if cells[c] < 0:
                v = d[ROW_OF[c]] + d[COL_OF[c]]
                if v > best:
                    best = v
                    cell = c
        est = pos.total + sum(olds) + best
        pos.put(cell, card, pts)
        if p < 24:
            seen.append((fullness_key(cells), est))
    return seen, pos.total


def placed_of(key: int) -> int:
    n = 0
    for _ in range(5):
        n += key % 6
        key //= 6
    return n


def look_play(vt: ValueTable, pts: list[int], rng: random.Random) -> tuple[Seen, int]:
    """One game with every card placed by the one-card lookahead (`search_look.look_values`
    over every empty cell, uncorrected): its after-states and its final score."""
    deck = rng.sample(range(52), 25)
    pos = Position()
    seen: Seen = []
    for p, card in enumerate(deck):
        pos.see(card)
        empty = [c for c in range(25) if pos.cells[c] < 0]
        values, _, _ = look_values(pos, card, empty, vt, pts)
        pos.put(max(empty, key=lambda c: values[c]), card, pts)
        if p < 24:
            seen.append((fullness_key(pos.cells), static_estimate(pos, vt)))
    return seen, pos.total


POLICIES = {"greedy": self_play, "look1": look_play}


def _play_many(
    job: tuple[str, str, int, int, Path | None],
) -> tuple[dict[int, float], dict[int, int]]:
    table, policy, games, seed, values = job
    vt = load_values(table) if values is None else ValueTable.from_bytes(table, values.read_bytes())
    plain = ValueTable(table, vt.fine, vt.coarse, vt.games)  # residuals of the line values
    pts = line_points(table)
    rng = random.Random(seed)
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    t0 = time.monotonic()
    for g in range(games):
        seen, total = POLICIES[policy](plain, pts, rng)
        for k, est in seen:  # the residual: what the game made beyond the static value
            sums[k] = sums.get(k, 0.0) + total - est
            counts[k] = counts.get(k, 0) + 1
        if (g + 1) % 10000 == 0:
            print(
                f"{table} seed {seed} games {g + 1} {time.monotonic() - t0:.0f}s", file=sys.stderr
            )
    return sums, counts


def merge(
    parts: list[tuple[dict[int, float], dict[int, int]]],
) -> tuple[dict[int, float], dict[int, int]]:
    """The residual sums and counts of several processes' games, added up key by key."""
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for part_sums, part_counts in parts:
        for k, v in part_sums.items():
            sums[k] = sums.get(k, 0.0) + v
            counts[k] = counts.get(k, 0) + part_counts[k]
    return sums, counts


def learn(
    table: str,
    games: int,
    seed: int,
    policy: str = "greedy",
    jobs: int = 1,
    values: Path | None = None,
) -> tuple[dict[int, float], dict[int, int]]:
    """Self-play `games` games from `seed` with `policy`: shrunk residual per key, and key
    counts. With `jobs` > 1 the games are split over that many processes, job j playing
    from seed `seed * 1000 + j`. `values`: the line values to play and correct (a table
    file; default the shipped ones)."""
    if jobs == 1:
        parts = [_play_many((table, policy, games, seed, values))]
    else:
        work = [
            (table, policy, games // jobs + (j < games % jobs), seed * 1000 + j, values)
            for j in range(jobs)
        ]
        with multiprocessing.Pool(jobs) as pool:
            parts = pool.map(_play_many, work)
    sums, counts = merge(parts)
    tsum: dict[int, float] = {}
    tcnt: dict[int, int] = {}
    for k, s in sums.items():
        p = placed_of(k)
        tsum[p] = tsum.get(p, 0.0) + s
        tcnt[p] = tcnt.get(p, 0) + counts[k]
    g_of = {}
    for k, s in sums.items():
        p = placed_of(k)
        prior = tsum[p] / tcnt[p]
        g_of[k] = (s + SHRINK * prior) / (counts[k] + SHRINK)
    return g_of, counts


def save(path: Path, g_of: dict[int, float], counts: dict[int, int], games: int) -> None:
    keys = np.array(sorted(g_of), dtype=np.int64)
    np.savez_compressed(
        path,
        keys=keys,
        values=np.array([g_of[k] for k in keys.tolist()], dtype=np.float32),
        counts=np.array([counts[k] for k in keys.tolist()], dtype=np.int64),
        meta=np.array([games, SHRINK], dtype=np.float64),
    )


def load(path: Path) -> dict[int, float]:
    return read_fullness(path.read_bytes())


def play(cards: list[int], vt: ValueTable, budget: int) -> int:
    """The engine's `analyse` at `budget` on one deal with the table `vt`."""
    pts = line_points(vt.table)
    pos = Position()
    for card in cards[:25]:
        pos.see(card)
        _, best = analyse(pos, card, vt, pts, budget)
        pos.put(best, card, pts)
    return pos.total


def compare(
    table: str,
    corr_path: Path,
    deals: Path,
    first: int,
    limit: int | None,
    budget: int,
    baseline: Path | None = None,
) -> int:
    shipped = load_values(table)
    plain = ValueTable(table, shipped.fine, shipped.coarse, shipped.games)
    corrected = ValueTable(table, shipped.fine, shipped.coarse, shipped.games, load(corr_path))
    diffs: list[int] = []
    base: list[int] = []
    chosen = read_deals(deals)[first - 1 :]
    known: dict[str, int] = {}
    if baseline is not None:
        # `<id> ... <baseline score>` lines of an earlier run with the same tables and budget
        # (the baseline is deterministic); other lines are ignored.
        for line in baseline.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[-1].isdigit():
                known[parts[0]] = int(parts[-1])
    for deal_id, names in chosen[:limit]:
        cards = [Card.parse(n).index for n in names]
        a = known[deal_id] if deal_id in known else play(cards, plain, budget)
        b = play(cards, corrected, budget)
        base.append(a)
        diffs.append(b - a)
        print(deal_id, b, a, flush=True)
    n = len(diffs)
    dm = sum(diffs) / n
    sd = math.sqrt(sum((x - dm) ** 2 for x in diffs) / (n - 1)) if n > 1 else 0.0
    am = sum(base) / n
    print(
        f"fullness {table} budget {budget} games {n} uncorrected mean {am:.2f} corrected mean "
        f"{am + dm:.2f} paired difference {dm:+.2f} se {sd / math.sqrt(n):.2f}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap, sub = subcommands(__doc__)
    lp = games_command(sub, "learn", games=50000, jobs=1)
    lp.add_argument("--policy", choices=sorted(POLICIES), default="greedy")
    lp.add_argument("--values", type=Path, default=None, help="line values (default shipped)")
    cp = sub.add_parser("compare")
    cp.add_argument("--table", choices=sorted(TABLES), required=True)
    cp.add_argument("--corr", type=Path, required=True)
    cp.add_argument("--deals", type=Path, default=Path("bench/deals/ps-1000.txt"))
    cp.add_argument("--first", type=int, default=1, help="first deal (1-based position)")
    cp.add_argument("--limit", type=int, default=None)
    cp.add_argument("--budget", type=int, default=0)
    cp.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="reuse the uncorrected scores (last number per line) of an earlier run",
    )
    args = ap.parse_args(argv)
    if args.cmd == "learn":
        g_of, counts = learn(args.table, args.games, args.seed, args.policy, args.jobs, args.values)
        save(args.out, g_of, counts, args.games)
        print(f"wrote {args.out} ({len(g_of)} keys)", file=sys.stderr)
        return 0
    return compare(
        args.table, args.corr, args.deals, args.first, args.limit, args.budget, args.baseline
    )


if __name__ == "__main__":
    sys.exit(main())
