"""Issue-31 experiment: the whole-grid correction fitted on decisions, not on states.

`research.ps_whole_grid` fits the correction to the residual of each after-state (final score
minus the evaluator's value) across states. That mixes how good a position is with what a
choice changes: a correction right on average over states can still reorder the few cells
one card may go to. Here the data are decisions. At a few placements of each self-play game,
every cell the card could go to (one per symmetry class) is tried, and each after-state is
played out to the end greedily on the shipped evaluator with the same continuations (common
random numbers: the game's own next cards, and ``--rollouts - 1`` more drawn from the unseen
cards). The fit then uses only differences between the cells of one decision: the features,
the evaluator's values and the returns are centred within each decision, and for each
number of cards a ridge regression fits the centred return minus the centred value on the
centred features (``--target look``: the one-card lookahead's values instead of the
evaluator's, the estimates the interactive search starts from). Levels between decisions
cancel, so what the weights learn is what ranks the cells of one card.

    python -m research.ps_decisions play --table american --games 3000 --seed 1 --out d-am.npz
    python -m research.ps_decisions fit --table american --data d-am.npz --out w-am-dec.npz
    python -m research.ps_whole_grid compare --table american --weights w-am-dec.npz \\
        --budget 0 --limit 1000

The weights are a root correction (`WholeGrid`, ``at_leaves`` False): `search.analyse` adds
them to each cell's estimate. Everything reads the view only (grid and unseen cards).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse, cell_classes, static_estimate
from cardtable.poker_squares.hint.search_look import look_values
from cardtable.poker_squares.hint.whole_grid import FEATURES, N_FEATURES, WholeGrid, features


def rollout(pos: Position, cont: list[int], vt: ValueTable, pts: list[int]) -> int:
    """The final total of `pos` (an after-state) when `cont` are the next cards, each placed
    greedily on the evaluator (budget 0)."""
    q = pos.copy()
    for card in cont:
        q.see(card)
        _, cell = analyse(q, card, vt, pts, 0)
        q.put(cell, card, pts)
    return q.total


def unseen(pos: Position) -> list[int]:
    return [c for c in range(52) if pos.mask >> c & 1]


def decision(
    pos: Position,
    card: int,
    conts: list[list[int]],
    vt: ValueTable,
    pts: list[int],
) -> tuple[list[list[float]], list[float], list[float], list[float]]:
    """For each cell class of `card` on `pos` (card seen): the after-state's features, the
    evaluator's value, the one-card lookahead's value and the mean return over the
    continuations `conts`."""
    reps = list(cell_classes(pos))
    looks, _, _ = look_values(pos, card, reps, vt, pts)
    xs: list[list[float]] = []
    vs: list[float] = []
    ls: list[float] = []
    ys: list[float] = []
    for cell in reps:
        nxt = pos.copy()
        nxt.put(cell, card, pts)
        xs.append(features(nxt))
        vs.append(static_estimate(nxt, vt) if nxt.placed < 25 else float(nxt.total))
        ls.append(looks[cell])
        ys.append(float(np.mean([rollout(nxt, c, vt, pts) for c in conts])))
    return xs, vs, ls, ys


def play(args: argparse.Namespace) -> None:
    vt = load_values(args.table)
    pts = line_points(args.table)
    rng = random.Random(args.seed)
    xs: list[list[float]] = []
    vs: list[float] = []
    ls: list[float] = []
    ys: list[float] = []
    ts: list[int] = []
    groups: list[int] = []
    n_groups = 0
    t0 = time.process_time()
    for g in range(args.games):
        deck = rng.sample(range(52), 25)
        at = set(rng.sample(range(1, 24), args.per_game))
        pos = Position()
        for p, card in enumerate(deck):
            pos.see(card)
            if p in at:
                left = unseen(pos)
                conts = [deck[p + 1 :]] + [
                    rng.sample(left, 24 - p) for _ in range(args.rollouts - 1)
                ]
                x, v, look, y = decision(pos, card, conts, vt, pts)
                if len(y) > 1:
                    xs += x
                    vs += v
                    ls += look
                    ys += y
                    ts += [pos.placed + 1] * len(y)
                    groups += [n_groups] * len(y)
                    n_groups += 1
            if p < 24 and args.epsilon > 0 and rng.random() < args.epsilon:
                cell = rng.choice(pos.empties())
            else:
                _, cell = analyse(pos, card, vt, pts, 0)
            pos.put(cell, card, pts)
        if (g + 1) % 100 == 0:
            print(
                f"games {g + 1} decisions {n_groups} cpu {time.process_time() - t0:.0f}s",
                file=sys.stderr,
            )
    np.savez_compressed(
        args.out,
        x=np.array(xs, dtype=np.float32),
        v=np.array(vs, dtype=np.float32),
        look=np.array(ls, dtype=np.float32),
        y=np.array(ys, dtype=np.float32),
        t=np.array(ts, dtype=np.int8),
        group=np.array(groups, dtype=np.int32),
    )
    print(
        f"{args.games} games, {n_groups} decisions, {len(ys)} after-states, "
        f"{time.process_time() - t0:.0f} s CPU"
    )


def centred(a: np.ndarray, group: np.ndarray) -> np.ndarray:
    """`a` minus the mean of its group (rows with equal `group`; any order)."""
    _, inv, counts = np.unique(group, return_inverse=True, return_counts=True)
    if a.ndim == 1:
        sums = np.bincount(inv, weights=a)
        return np.asarray(a - (sums / counts)[inv])
    out = np.empty_like(a)
    for j in range(a.shape[1]):
        sums = np.bincount(inv, weights=a[:, j])
        out[:, j] = a[:, j] - (sums / counts)[inv]
    return out


def fit_weights(
    x: np.ndarray,
    v: np.ndarray,
    y: np.ndarray,
    t: np.ndarray,
    group: np.ndarray,
    ridge: float,
    keep: list[int],
) -> tuple[np.ndarray, float, float]:
    """Weights (25 x N_FEATURES, bias 0) fitting, within each decision, the return's
    differences minus the evaluator's by the features' differences, for each number of cards;
    and the held-out (every tenth decision) mean square of those differences before and
    after."""
    weights = np.zeros((25, N_FEATURES))
    xc = centred(x[:, keep].astype(np.float64), group)
    r = centred(y.astype(np.float64) - v.astype(np.float64), group)
    held = (group % 10) == 9
    before = after = 0.0
    n_test = 0
    for placed in range(1, 25):
        sel = t == placed
        if not sel.any():
            continue
        tr = sel & ~held
        te = sel & held
        a = xc[tr].T @ xc[tr] + ridge * np.eye(len(keep))
        w = np.linalg.solve(a, xc[tr].T @ r[tr])
        before += float(np.sum(r[te] ** 2))
        after += float(np.sum((r[te] - xc[te] @ w) ** 2))
        n_test += int(te.sum())
        a = xc[sel].T @ xc[sel] + ridge * np.eye(len(keep))
        weights[placed, keep] = np.linalg.solve(a, xc[sel].T @ r[sel])
    weights[:, 0] = 0.0
    n = max(n_test, 1)
    return weights, before / n, after / n


def fit(args: argparse.Namespace) -> None:
    parts = [np.load(p) for p in args.data]
    x = np.concatenate([z["x"] for z in parts])
    v = np.concatenate([z["v" if args.target == "static" else "look"] for z in parts])
    y = np.concatenate([z["y"] for z in parts])
    t = np.concatenate([z["t"] for z in parts]).astype(np.int64)
    group = np.concatenate([z["group"] + 10_000_000 * i for i, z in enumerate(parts)])
    keep = [
        i
        for i, name in enumerate(FEATURES)
        if i and any(name.startswith(prefix) for prefix in args.only)
    ]
    weights, before, after = fit_weights(x, v, y, t, group, args.ridge, keep)
    print(
        f"held-out within-decision mean square: evaluator {before:.2f}, "
        f"corrected {after:.2f} ({len(np.unique(group))} decisions, {len(y)} after-states)"
    )
    args.out.write_bytes(WholeGrid(args.table, weights).to_bytes())
    print(f"wrote {args.out}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play")
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--games", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--per-game", type=int, default=4, help="decisions recorded per game")
    p.add_argument("--rollouts", type=int, default=2, help="continuations per decision")
    p.add_argument("--epsilon", type=float, default=0.0)
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("fit")
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--data", type=Path, nargs="+", required=True)
    p.add_argument("--ridge", type=float, default=100.0)
    p.add_argument(
        "--target",
        choices=("static", "look"),
        default="static",
        help="correct the evaluator's values (budget 0) or the one-card lookahead's (the "
        "search's first estimates)",
    )
    p.add_argument(
        "--only",
        nargs="+",
        default=[""],
        metavar="PREFIX",
        help="fit only the features whose names start with one of these (default: all)",
    )
    p.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    {"play": play, "fit": fit}[args.cmd](args)


if __name__ == "__main__":
    main()
