"""Issue-31 experiment: a whole-grid correction of the Poker Squares evaluator.

The line values cannot see lines competing for the same unseen cards; `whole_grid.features`
describes that competition, and a `WholeGrid` adds ``weights[placed] @ features`` to an
after-state's value. This script learns and measures it:

    python -m research.ps_whole_grid play --table american --games 20000 --seed 1 --out am.npz
    python -m research.ps_whole_grid fit --table american --data am.npz --out w-am.npz
    python -m research.ps_whole_grid compare --table american --weights w-am.npz --budget 9 \\
        --deals bench/deals/ps-1000.txt --limit 200
    python -m research.ps_whole_grid cpu --table american --weights w-am.npz --budget 9

`play` places every card of random deals with the shipped engine at `--budget` (0: greedy on
the shipped evaluator, the line values plus the table's fullness correction), optionally with
a whole-grid correction already (`--weights`), and records each after-state before the last
card: its features, its number of cards, the evaluator's value and the game's final score.
`fit` solves, for each number of cards, a ridge regression of the residual (final score
minus the evaluator's value) on the features (`--ridge`, the bias unpenalised), and prints
the residual variance it removes on the last tenth of the games (held out); the bias
column is kept only for a correction at the leaves (at the root it changes no choice).
`compare` plays the deals with the shipped engine (A) and with the correction (B), sharing
the search while both grids are equal (root corrections), and prints ``<id> <B> <A>`` lines
and the paired difference (`--baseline`: A's scores from an earlier run); `cpu` measures
`search.analyse` (hint + estimates) per position with `time.process_time`, A and
B alternately on the same positions.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import (
    analyse,
    best_cell,
    cell_classes,
    plan,
    root_corrections,
    static_estimate,
)
from cardtable.poker_squares.hint.search_look import look2_values, look_values
from cardtable.poker_squares.hint.whole_grid import FEATURES, N_FEATURES, WholeGrid, features


def _weights(table: str, path: Path | None) -> WholeGrid | None:
    return None if path is None else WholeGrid.from_bytes(table, path.read_bytes())


def play(args: argparse.Namespace) -> None:
    vt = load_values(args.table)
    pts = line_points(args.table)
    whole = _weights(args.table, args.weights)
    rng = random.Random(args.seed)
    xs: list[list[float]] = []
    ts: list[int] = []
    vs: list[float] = []
    ls: list[float] = []
    ys: list[float] = []
    gs: list[int] = []
    t0 = time.process_time()
    for g in range(args.games):
        deck = rng.sample(range(52), 25)
        pos = Position()
        n0 = len(ys)
        for p, card in enumerate(deck):
            pos.see(card)
            if p < 24 and args.epsilon > 0 and rng.random() < args.epsilon:
                cell = rng.choice(pos.empties())
            else:
                _, cell = analyse(pos, card, vt, pts, args.budget, whole=whole)
            if p < 24 and args.look:
                ls.append(look_values(pos, card, [cell], vt, pts)[0][cell])
            pos.put(cell, card, pts)
            if p < 24:
                xs.append(features(pos))
                ts.append(pos.placed)
                vs.append(static_estimate(pos, vt))
                ys.append(0.0)
                gs.append(g)
        for i in range(n0, len(ys)):
            ys[i] = float(pos.total)
        if (g + 1) % 1000 == 0:
            mean = float(np.mean(ys[::24]))
            print(
                f"games {g + 1} mean {mean:.2f} cpu {time.process_time() - t0:.0f}s",
                file=sys.stderr,
            )
    np.savez_compressed(
        args.out,
        x=np.array(xs, dtype=np.float32),
        t=np.array(ts, dtype=np.int8),
        v=np.array(vs, dtype=np.float32),
        look=np.array(ls, dtype=np.float32),
        y=np.array(ys, dtype=np.float32),
        game=np.array(gs, dtype=np.int32),
    )
    print(f"{args.games} games, {len(ys)} after-states, {time.process_time() - t0:.0f} s CPU")


def ridge(x: np.ndarray, r: np.ndarray, lam: float) -> np.ndarray:
    """Ridge regression of r on x (column 0 is the unpenalised bias)."""
    a = x.T @ x
    pen = np.full(x.shape[1], lam)
    pen[0] = 0.0
    a[np.diag_indices_from(a)] += pen
    return np.asarray(np.linalg.solve(a, x.T @ r), dtype=np.float64)


def fit(args: argparse.Namespace) -> None:
    weights = np.zeros((25, N_FEATURES))
    before = after = 0.0
    n_test = 0
    for path in args.data:
        if not path.exists():
            raise SystemExit(f"no such file {path}")
    parts = [np.load(p) for p in args.data]
    x = np.concatenate([z["x"] for z in parts]).astype(np.float64)
    t = np.concatenate([z["t"] for z in parts]).astype(np.int64)
    base = "v" if args.target == "static" else "look"
    r = np.concatenate([z["y"] - z[base] for z in parts]).astype(np.float64)
    game = np.concatenate([z["game"] + 10_000_000 * i for i, z in enumerate(parts)])
    keep = [0] + [
        i for i, name in enumerate(FEATURES) if i and any(name.startswith(p) for p in args.only)
    ]
    x = x[:, keep]
    held = (game % 10) == 9
    for placed in range(1, 25):
        sel = t == placed
        tr = sel & ~held
        te = sel & held
        w = ridge(x[tr], r[tr], args.ridge)
        before += float(np.sum((r[te] - r[tr].mean()) ** 2))
        after += float(np.sum((r[te] - x[te] @ w) ** 2))
        n_test += int(te.sum())
        weights[placed, keep] = ridge(x[sel], r[sel], args.ridge)
    if not args.at_leaves:
        # At the root the bias, each time's mean residual, moves every cell's estimate alike
        # (changes no choice), and the lookahead's estimates carry their own level. At the
        # leaves it is kept: the lookahead compares after-states of different times (one
        # and two cards ahead), so the corrected values must be level at every time.
        weights[:, 0] = 0.0
    print(
        f"held-out residual mean square: bias only {before / n_test:.2f}, "
        f"with features {after / n_test:.2f} ({n_test} after-states)"
    )
    args.out.write_bytes(WholeGrid(args.table, weights, at_leaves=args.at_leaves).to_bytes())
    print(f"wrote {args.out}")


def _both(
    pos: Position, card: int, vt: ValueTable, pts: list[int], budget: int, whole: WholeGrid
) -> tuple[int, int]:
    """The cells `search.analyse` chooses without (A) and with (B) the correction, from one
    one-card lookahead and the union of both players' two-card candidates."""
    classes = cell_classes(pos)
    reps = list(classes)
    if budget <= 0 or whole.at_leaves:
        _, a = analyse(pos, card, vt, pts, budget)
        _, b = analyse(pos, card, vt, pts, budget, whole=whole)
        return a, b
    corr = root_corrections(pos, card, reps, whole, pts)
    est, gains, ctx = look_values(pos, card, reps, vt, pts)
    est_b = {c: est[c] + corr[c] for c in reps}
    k, width = plan(budget, len(reps))
    top_a = sorted(reps, key=lambda c: (-est[c], c))[:k]
    top_b = sorted(reps, key=lambda c: (-est_b[c], c))[:k]
    if len(reps) > 1:
        deep = look2_values(pos, card, sorted(set(top_a) | set(top_b)), gains, ctx, width, vt, pts)
        est_a = dict(est)
        for c in top_a:
            est_a[c] = deep[c]
        for c in top_b:
            est_b[c] = deep[c] + corr[c]
    else:
        est_a = est
    return best_cell(est_a), best_cell(est_b)


def compare(args: argparse.Namespace) -> None:
    vt = load_values(args.table)
    pts = line_points(args.table)
    whole = _weights(args.table, args.weights)
    assert whole is not None
    deals = read_deals(args.deals)[args.first - 1 : args.first - 1 + args.limit]
    known: dict[str, int] = {}
    if args.baseline is not None:
        for line in args.baseline.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0].isdigit():
                known[parts[0]] = int(parts[2])
    diffs: list[float] = []
    sa = sb = 0
    t0 = time.process_time()
    for n, (ident, names) in enumerate(deals, 1):
        cards = [Card.parse(c).index for c in names[:25]]
        pa = Position()
        pb = Position()
        for card in cards:
            pa.see(card)
            pb.see(card)
            if ident in known:
                _, b = analyse(pb, card, vt, pts, args.budget, whole=whole)
                pb.put(b, card, pts)
                continue
            if pa.cells == pb.cells:
                a, b = _both(pa, card, vt, pts, args.budget, whole)
                if args.check and n <= 3:
                    assert a == analyse(pa, card, vt, pts, args.budget)[1]
                    assert b == analyse(pb, card, vt, pts, args.budget, whole=whole)[1]
            else:
                _, a = analyse(pa, card, vt, pts, args.budget)
                _, b = analyse(pb, card, vt, pts, args.budget, whole=whole)
            pa.put(a, card, pts)
            pb.put(b, card, pts)
        a_total = known.get(ident, pa.total)
        sa += a_total
        sb += pb.total
        diffs.append(pb.total - a_total)
        print(ident, pb.total, a_total, flush=True)
        if n % 50 == 0:
            print(f"{n} deals, {time.process_time() - t0:.0f}s CPU", file=sys.stderr)
    m = len(diffs)
    d = float(np.mean(diffs))
    se = float(np.std(diffs, ddof=1)) / math.sqrt(m) if m > 1 else 0.0
    print(
        f"compare shipped mean {sa / m:.2f} whole-grid mean {sb / m:.2f} "
        f"paired difference {d:+.2f} se {se:.2f} games {m}"
    )


def cpu(args: argparse.Namespace) -> None:
    """CPU per `search.analyse` (hint + estimates), A (shipped) and B (with the correction)
    alternately on the positions of B's games on the deals."""
    vt = load_values(args.table)
    pts = line_points(args.table)
    whole = _weights(args.table, args.weights)
    deals = read_deals(args.deals)[args.first - 1 : args.first - 1 + args.limit]
    times: dict[str, list[float]] = {"A": [], "B": []}
    for i, (_, names) in enumerate(deals):
        pos = Position()
        for j, card in enumerate(Card.parse(c).index for c in names[:25]):
            pos.see(card)
            order = ("A", "B") if (i + j) % 2 == 0 else ("B", "A")
            cell = -1
            for who in order:
                t0 = time.process_time()
                _, best = analyse(
                    pos, card, vt, pts, args.budget, whole=whole if who == "B" else None
                )
                times[who].append(time.process_time() - t0)
                if who == "B":
                    cell = best
            pos.put(cell, card, pts)
    load = Path("/proc/loadavg").read_text().split()[:3] if os.path.exists("/proc/loadavg") else []
    for who, ts in times.items():
        ms = np.array(ts) * 1000
        print(
            f"{who} {args.table} budget {args.budget} positions {len(ms)} mean {ms.mean():.1f} ms "
            f"p95 {np.percentile(ms, 95):.1f} ms max {ms.max():.1f} ms load {' '.join(load)}"
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play")
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget", type=int, default=0)
    p.add_argument("--epsilon", type=float, default=0.0)
    p.add_argument("--weights", type=Path, default=None)
    p.add_argument("--look", action="store_true", help="also record the one-card lookahead value")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("fit")
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--data", type=Path, nargs="+", required=True)
    p.add_argument("--ridge", type=float, default=100.0)
    p.add_argument(
        "--at-leaves",
        action="store_true",
        help="the search adds it to every after-state (needs --only rows cols)",
    )
    p.add_argument(
        "--target",
        choices=("static", "look"),
        default="static",
        help="the residual of the evaluator's value (default) or of the one-card lookahead's",
    )
    p.add_argument(
        "--only",
        nargs="+",
        default=[""],
        metavar="PREFIX",
        help="fit only the features whose names start with one of these (default: all)",
    )
    p.add_argument("--out", type=Path, required=True)
    for name in ("compare", "cpu"):
        p = sub.add_parser(name)
        p.add_argument("--table", choices=sorted(TABLES), required=True)
        p.add_argument("--weights", type=Path, required=True)
        p.add_argument("--budget", type=int, default=9)
        p.add_argument("--deals", type=Path, default=Path("bench/deals/ps-1000.txt"))
        p.add_argument("--first", type=int, default=901 if name == "cpu" else 1)
        p.add_argument("--limit", type=int, default=10 if name == "cpu" else 200)
        if name == "compare":
            p.add_argument("--check", action="store_true")
            p.add_argument(
                "--baseline",
                type=Path,
                default=None,
                help="an earlier compare's output: the shipped engine's scores (A) are read "
                "from it for the deals it has (A is deterministic), not played again",
            )
    args = ap.parse_args(argv)
    {"play": play, "fit": fit, "compare": compare, "cpu": cpu}[args.cmd](args)


if __name__ == "__main__":
    main()
