"""CPU time of the in-game hint: `analyse` (hint + estimates) per move, cache cleared.

    python -m bench.ps_hint_cpu --table american --deals bench/deals/ps-1000.txt --first 901 \\
        --count 10 --budget 30

Plays deals `--first` .. `--first + --count - 1` of the file with the hint engine and measures
each move's `analyse` with `time.process_time` (CPU of this process, so other jobs on the
machine count little); prints mean, 95th percentile and maximum in ms over the moves.
`--no-fullness` searches without the table's fullness correction (British ships one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares import ENGINE, INTERACTIVE_BUDGET, Move, analyse, deal_cards
from cardtable.poker_squares.hint import clear_cache
from cardtable.poker_squares.hint.abstract import load_values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", choices=["american", "british"], default="american")
    ap.add_argument("--deals", type=Path, required=True)
    ap.add_argument("--first", type=int, default=901)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--budget", type=int, default=INTERACTIVE_BUDGET)
    ap.add_argument(
        "--no-fullness",
        action="store_true",
        help="search without the table's fullness correction (to time what it costs)",
    )
    args = ap.parse_args(argv)
    if args.no_fullness:
        load_values(args.table).fullness = None  # the cached table the hint searches
    deals = read_deals(args.deals)[args.first - 1 : args.first - 1 + args.count]
    times: list[float] = []
    for _, cards in deals:
        game = deal_cards(args.table, [Card.parse(c) for c in cards])
        while not ENGINE.is_over(game):
            view = ENGINE.view(game, 0)
            clear_cache()
            t0 = time.process_time()
            (row, col), _ = analyse(view, budget=args.budget)
            times.append(1000.0 * (time.process_time() - t0))
            game = ENGINE.play(game, Move(row, col))
    times.sort()
    mean = sum(times) / len(times)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(
        f"{args.table} budget {args.budget} moves {len(times)} mean {mean:.1f} ms "
        f"p95 {p95:.1f} ms max {times[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
