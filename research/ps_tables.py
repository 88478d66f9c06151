"""Paired comparison of two Poker Squares value tables with the engine's own search.

    python -m research.ps_tables --table american --values new.npz --budget 0
    python -m research.ps_tables --table british --values a.npz --against b.npz --budget 30 \\
        --limit 300

Plays every deal of `--deals` twice with `search.analyse` at `--budget`: once with the table
in `--values` (B) and once with `--against` (A; default the shipped table of the engine), and
prints `<id> <B score> <A score>` per deal and a last line with both means and the paired
difference B - A with its standard error. Nothing is installed or patched: the engine's code
is the same for both, only the table differs, so this measures a retrained table alone.
`--baseline FILE` reuses A's scores from an earlier run's lines (A is deterministic).
`--fullness FILE` gives B a fullness correction (`research.ps_fullness learn`); the shipped A
has the shipped one (British) or none (American), as the engine plays.
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import (
    ValueTable,
    line_points,
    load_values,
    read_fullness,
)
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse

SHIPPED = "shipped"


@cache
def table_of(table: str, source: str, fullness: str | None = None) -> ValueTable:
    """A value table by file name, or the engine's shipped one; `fullness`: a correction
    file to add to a table file."""
    if source == SHIPPED:
        return load_values(table)
    vt = ValueTable.from_bytes(table, Path(source).read_bytes())
    if fullness is not None:
        vt.fullness = read_fullness(Path(fullness).read_bytes())
    return vt


def play(
    cards: list[int], table: str, source: str, budget: int, fullness: str | None = None
) -> int:
    """The final total of one deal placed by `analyse` with the given table."""
    vt = table_of(table, source, fullness)
    pts = line_points(table)
    pos = Position()
    for card in cards[:25]:
        pos.see(card)
        _, best = analyse(pos, card, vt, pts, budget)
        pos.put(best, card, pts)
    return pos.total


Job = tuple[list[int], str, str, str | None, str, int, int | None]
"""cards, table, B's file, B's fullness file, A's source, budget, A's known score."""


def _pair(job: Job) -> tuple[int, int]:
    cards, table, b_source, b_fullness, a_source, budget, known = job
    a = known if known is not None else play(cards, table, a_source, budget)
    return play(cards, table, b_source, budget, b_fullness), a


def summary(label: str, b: list[int], a: list[int]) -> str:
    """Means, paired difference B - A and its standard error."""
    n = len(b)
    diffs = [x - y for x, y in zip(b, a, strict=True)]
    dm = sum(diffs) / n
    sd = math.sqrt(sum((x - dm) ** 2 for x in diffs) / (n - 1)) if n > 1 else 0.0
    return (
        f"{label} games {n} A mean {sum(a) / n:.2f} B mean {sum(b) / n:.2f} "
        f"paired difference {dm:+.2f} se {sd / math.sqrt(n):.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--values", required=True, help="B: a value-table file (.npz)")
    ap.add_argument("--fullness", default=None, help="B: a fullness-correction file")
    ap.add_argument("--against", default=SHIPPED, help="A: a file, or 'shipped' (default)")
    ap.add_argument("--deals", type=Path, default=Path("bench/deals/ps-1000.txt"))
    ap.add_argument("--first", type=int, default=1, help="first deal (1-based position)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--budget", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--baseline", type=Path, default=None, help="reuse A's scores (last field)")
    args = ap.parse_args(argv)
    known: dict[str, int] = {}
    if args.baseline is not None:
        for line in args.baseline.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[-1].isdigit():
                known[parts[0]] = int(parts[-1])
    chosen = read_deals(args.deals)[args.first - 1 :][: args.limit]
    jobs = [
        (
            [Card.parse(n).index for n in names],
            args.table,
            args.values,
            args.fullness,
            args.against,
            args.budget,
            known.get(ident),
        )
        for ident, names in chosen
    ]
    b: list[int] = []
    a: list[int] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for (ident, _), (sb, sa) in zip(chosen, pool.map(_pair, jobs), strict=True):
            b.append(sb)
            a.append(sa)
            print(ident, sb, sa, flush=True)
    print(summary(f"tables {args.table} budget {args.budget}", b, a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
