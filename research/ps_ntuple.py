"""Paired comparison of an n-tuple network evaluator (`training/ntuple.py`) with the shipped engine.

    python -m research.ps_ntuple compare --table american --weights W.npz \\
        --baseline /tmp/ntuple/A-am-0.txt [--search]
    python -m research.ps_ntuple export --table american --weights W.npz --out values.npz

Plays every deal of `--deals` with the network: greedy on its after-state value (budget 0),
or with `--search` the one-card expectimax over every cell with the network at the leaves,
and the two-card one on the best `--two` cells (the shipped engine's search shape at the
interactive budget, 3 cells x 3 cells per next card). A's scores come from `--baseline`, a file
of `<id> <score>` lines (the output of `cardtable bench poker-squares ... --budget 0` or
`--budget 9`; the shipped engine is deterministic). Prints `<id> <B> <A>` per deal and the
paired difference B - A with its standard error, and B's CPU time per decision.

`export` writes the line part of a network (its fine-key and coarse weights) as an
`abstract.ValueTable` file, which the shipped engine and `research/ps_tables.py` read as they
read `values-<table>.npz` (the pairs, if any, are dropped).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from training.ntuple import N_COARSE, load_weights, play_deals, tables
from training.ntuple_search import search_deals


def summary(label: str, b: list[int], a: list[int]) -> str:
    n = len(b)
    d = [x - y for x, y in zip(b, a, strict=True)]
    dm = sum(d) / n
    sd = math.sqrt(sum((x - dm) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
    return (
        f"{label} games {n} A mean {sum(a) / n:.2f} B mean {sum(b) / n:.2f} "
        f"paired difference {dm:+.2f} se {sd / math.sqrt(n):.2f}"
    )


def export(table: str, weights: Path, out: Path) -> int:
    """The network's line weights as a ValueTable file."""
    fk, w, _ = load_weights(weights)
    shipped = load_values(table)
    nfk = fk.shape[0]
    fine = dict(zip(fk.tolist(), w[:nfk].tolist(), strict=True))
    coarse = {
        ck: float(w[nfk + ck])
        for ck in range(N_COARSE)
        if ck in shipped.coarse or w[nfk + ck] != 0.0
    }
    out.write_bytes(ValueTable(table, fine, coarse, shipped.games).to_bytes())
    print(f"wrote {out} ({len(fine)} fine keys, {len(coarse)} coarse)", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("command", choices=["compare", "export"])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--weights", type=Path, required=True)
    ap.add_argument("--baseline", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None, help="export: the table file to write")
    ap.add_argument("--deals", type=Path, default=Path("bench/deals/ps-1000.txt"))
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--search", action="store_true")
    ap.add_argument("--two", type=int, default=3, help="cells searched two cards deep")
    ap.add_argument("--width", type=int, default=3, help="cells per next card (two cards)")
    ap.add_argument("--no-pairs", action="store_true", help="ignore the pair weights")
    ap.add_argument(
        "--pairs-at-root",
        action="store_true",
        help="search: the pairs only at the root (added to each cell's estimate)",
    )
    args = ap.parse_args(argv)
    if args.command == "export":
        return export(args.table, args.weights, args.out)
    known: dict[str, int] = {}
    assert args.baseline is not None, "compare needs --baseline"
    for line in args.baseline.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            known[parts[0]] = int(parts[1])
    chosen = read_deals(args.deals)[args.first - 1 :][: args.limit]
    decks = np.array([[Card.parse(n).index for n in names[:25]] for _, names in chosen])
    fk, w, pairs = load_weights(args.weights)
    pairs = pairs and not args.no_pairs
    root = args.pairs_at_root and pairs
    if root:
        pairs = False
    pts = np.array(line_points(args.table), dtype=np.int64)
    tabs = tables()
    # compile first (not timed)
    if args.search:
        search_deals(decks[:1], w, fk, pts, pairs, tabs, args.two, args.width, root)
    else:
        play_deals(decks[:1], w, fk, pts, pairs, tabs)
    cpu = 0.0
    b: list[int] = []
    a: list[int] = []
    step = 10 if args.search else len(decks)
    for i in range(0, len(decks), step):
        c0 = time.process_time()
        if args.search:
            scores = search_deals(
                decks[i : i + step], w, fk, pts, pairs, tabs, args.two, args.width, root
            )
        else:
            scores = play_deals(decks[i : i + step], w, fk, pts, pairs, tabs)
        cpu += time.process_time() - c0
        for (ident, _), sb in zip(chosen[i : i + step], scores.tolist(), strict=True):
            b.append(sb)
            a.append(known[ident])
            print(ident, sb, known[ident], flush=True)
    mode = f"search two={args.two} width={args.width}" if args.search else "budget 0"
    if root:
        mode += " pairs at the root"
    print(
        summary(f"ntuple {args.table} {mode}", b, a)
        + f" cpu/decision {1000 * cpu / (25 * len(b)):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
