"""Issue-31 experiment: a third card for the review setting (up to 1 s per placement).

The interactive search (`search.analyse`, budget 9) values every cell one card deep and the
best three two cards deep. Here, while 4 to `--max-empty` cells are empty, the best `--top`
cells by those estimates are searched one card deeper (`look3`): for every unseen next card,
the `--width-x` best cells for it by the one-card lookahead are valued two cards deep
(`search_look.look2_values`, `--width-y` cells per card after it), and the best counts. The
choice is the best of those `--top` cells by their three-card values; with 3 or fewer cells
empty the two-card search is already exact and is kept. Everything is an exact average over
the unseen cards, so the result depends only on the view.

    python -m research.ps_deep compare --table american --first 1 --limit 100

`compare` plays each deal with the shipped interactive engine (A) and with the third card
(B), sharing A's search while both grids are equal, and prints ``<id> <B> <A>`` per deal, the
paired difference and B's CPU per placement (`time.process_time`, the whole of B's choice).
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
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse, best_cell, cell_classes
from cardtable.poker_squares.hint.search_look import look2_values, look_values


def look3(
    pos: Position,
    card: int,
    cell: int,
    vt: ValueTable,
    pts: list[int],
    width_x: int = 3,
    width_y: int = 2,
) -> float:
    """Three-card expectimax value of `card` (seen in `pos`) on `cell`: the mean over every
    unseen next card of the best two-card value among its `width_x` most promising cells."""
    p1 = pos.copy()
    p1.put(cell, card, pts)
    if p1.placed == 25:
        return float(p1.total)
    total = 0.0
    xs = [c for c in range(52) if p1.mask >> c & 1]
    for x in xs:
        q = p1.copy()
        q.see(x)
        reps = list(cell_classes(q))
        est, gains, ctx = look_values(q, x, reps, vt, pts)
        if len(reps) == 1 or q.placed >= 24:
            total += max(est.values())
            continue
        order = sorted(reps, key=lambda c: (-est[c], c))[:width_x]
        deep = look2_values(q, x, order, gains, ctx, width_y, vt, pts)
        total += max(deep.values())
    return total / len(xs)


def choose(
    pos: Position,
    card: int,
    vt: ValueTable,
    pts: list[int],
    top: int,
    width_x: int,
    width_y: int,
    max_empty: int = 16,
    shipped: tuple[dict[int, float], int] | None = None,
) -> int:
    """B's cell: the shipped search's, unless 4 to `max_empty` cells are empty (the card in
    hand not yet placed); then the best of its `top` cells by `look3`. `shipped`: the shipped
    search's answer, if already known."""
    est, best = shipped or analyse(pos, card, vt, pts, INTERACTIVE_BUDGET)
    if not 4 <= 25 - pos.placed <= max_empty or top < 2:
        return best
    order = sorted(est, key=lambda c: (-est[c], c))
    rep_of = {c: rep for rep, cells in cell_classes(pos).items() for c in cells}
    cands: list[int] = []
    for c in order:
        if rep_of[c] not in cands:
            cands.append(rep_of[c])
        if len(cands) == top:
            break
    deep = {c: look3(pos, card, c, vt, pts, width_x, width_y) for c in cands}
    return best_cell(deep)


def compare(args: argparse.Namespace) -> None:
    vt = load_values(args.table)
    pts = line_points(args.table)
    deals = read_deals(args.deals)[args.first - 1 : args.first - 1 + args.limit]
    diffs: list[float] = []
    cpu: list[float] = []
    sa = sb = 0
    for ident, names in deals:
        cards = [Card.parse(c).index for c in names[:25]]
        pa = Position()
        pb = Position()
        for card in cards:
            pa.see(card)
            pb.see(card)
            t0 = time.process_time()
            shipped_b = analyse(pb, card, vt, pts, INTERACTIVE_BUDGET)
            b = choose(
                pb, card, vt, pts, args.top, args.width_x, args.width_y, args.max_empty, shipped_b
            )
            cpu.append(time.process_time() - t0)
            a = shipped_b[1] if pa.cells == pb.cells else None
            if a is None:
                _, a = analyse(pa, card, vt, pts, INTERACTIVE_BUDGET)
            pa.put(a, card, pts)
            pb.put(b, card, pts)
        sa += pa.total
        sb += pb.total
        diffs.append(pb.total - pa.total)
        print(ident, pb.total, pa.total, flush=True)
    m = len(diffs)
    d = float(np.mean(diffs))
    se = float(np.std(diffs, ddof=1)) / math.sqrt(m) if m > 1 else 0.0
    ms = np.array(cpu) * 1000
    print(
        f"compare shipped mean {sa / m:.2f} deep mean {sb / m:.2f} paired difference {d:+.2f} "
        f"se {se:.2f} games {m}; B CPU per placement mean {ms.mean():.0f} ms "
        f"p95 {np.percentile(ms, 95):.0f} ms max {ms.max():.0f} ms",
        file=sys.stderr,
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("compare")
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--deals", type=Path, default=Path("bench/deals/ps-1000.txt"))
    p.add_argument("--first", type=int, default=1)
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--top", type=int, default=2, help="cells searched a third card deep")
    p.add_argument("--width-x", type=int, default=3, help="cells per next card, two deep")
    p.add_argument("--width-y", type=int, default=2, help="cells per card after it")
    p.add_argument(
        "--max-empty",
        type=int,
        default=16,
        help="search the third card only with 4 to this many empty cells (early, the cells "
        "differ little and a third card costs most)",
    )
    args = ap.parse_args(argv)
    {"compare": compare}[args.cmd](args)


if __name__ == "__main__":
    main()
