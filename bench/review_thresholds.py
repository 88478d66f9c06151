"""The distribution of per-placement losses, for the review's marks (docs/review.md).

    python -m bench.review_thresholds --table american --deals 200 [--jobs 2]

Plays the first N deals of ``bench/deals/ps-1000.txt`` with the learned evaluator alone (the
hint engine at budget 0: a decent but imperfect player, about 7 points below the hint per
American deal) and reviews every placement at the review's budget (`review.REVIEW_BUDGET`).
Prints how many placements lose nothing, the quantiles of the losses, the share of
placements at or above candidate thresholds, and the share each of the shipped
`review.THRESHOLDS` marks. About 1.3 s of one core per deal (25 placements reviewed), so
200 deals take about 4.5 minutes of CPU per table.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cardtable.cards import Card
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint import hint
from cardtable.poker_squares.review import MARKS, THRESHOLDS, review_step, visible

DEALS = Path(__file__).parent / "deals" / "ps-1000.txt"
QUANTILES = (0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 0.96, 0.98, 0.99, 0.995)
CANDIDATES = (0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30)


def read_deals(limit: int) -> list[list[Card]]:
    out: list[list[Card]] = []
    for line in DEALS.read_text(encoding="utf-8").splitlines()[:limit]:
        out.append([Card.parse(t) for t in line.split()[1:]])
    return out


def deal_losses(job: tuple[str, list[Card]]) -> list[float]:
    """Losses of the evaluator's 25 placements on one deal (reviewed at the review budget)."""
    table, cards = job
    game = Game(table, tuple(cards))
    for placed in range(CELLS):
        row, col = hint(visible(game, placed), budget=0)
        game = Game(table, game.cards, (*game.placements, row * 5 + col))
    return [review_step(game, i)["loss"] for i in range(CELLS)]


def quantile(xs: list[float], q: float) -> float:
    """The q-quantile of sorted ``xs`` (nearest rank)."""
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", choices=sorted(THRESHOLDS), default="american")
    parser.add_argument("--deals", type=int, default=200, help="first N deals (at most 1000)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    jobs = [(args.table, cards) for cards in read_deals(max(1, min(args.deals, 1000)))]
    t0 = time.process_time()
    w0 = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            per_deal = list(pool.map(deal_losses, jobs))
    else:
        per_deal = [deal_losses(j) for j in jobs]
    losses = sorted(x for d in per_deal for x in d)
    n = len(losses)
    print(f"table {args.table}: {len(jobs)} deals, {n} placements by the evaluator alone")
    print(f"zero loss: {sum(1 for x in losses if x == 0) / n:.1%}; mean {sum(losses) / n:.2f}")
    print("quantiles: " + ", ".join(f"{q:g}: {quantile(losses, q):.1f}" for q in QUANTILES))
    print(
        "share >= : "
        + ", ".join(f"{c:g}: {sum(x >= c for x in losses) / n:.1%}" for c in CANDIDATES)
    )
    for mark, limit in zip(MARKS, THRESHOLDS[args.table], strict=True):
        share = sum(x >= limit for x in losses) / n
        print(f"{mark} (>= {limit:g}): {share:.1%} of placements, {share * CELLS:.2f} per deal")
    totals = [sum(d) for d in per_deal]
    print(f"expected loss per deal: mean {sum(totals) / len(totals):.1f}")
    wall = time.perf_counter() - w0
    print(f"time: {wall:.0f} s wall, {time.process_time() - t0:.0f} s CPU in this process")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
