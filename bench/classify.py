"""Times `classify` over a fixed million five-card hands and, in the same run, the same hands
through treys (a popular pure-Python evaluator, installed for benchmarks only: `.[bench]`).

Run: `.venv/bin/python -m bench.classify [--hands N] [--seed S]`
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from treys import Card as TreysCard
from treys import Evaluator

from cardtable.cards import DECK, Card
from cardtable.poker_squares import Hand, classify

# treys' rank classes 1 (straight flush, royal included) .. 9 (high card) against ours.
_TREYS_CLASS = {
    Hand.ROYAL_FLUSH: 0,
    Hand.STRAIGHT_FLUSH: 1,
    Hand.FOUR_OF_A_KIND: 2,
    Hand.FULL_HOUSE: 3,
    Hand.FLUSH: 4,
    Hand.STRAIGHT: 5,
    Hand.THREE_OF_A_KIND: 6,
    Hand.TWO_PAIR: 7,
    Hand.ONE_PAIR: 8,
    Hand.NOTHING: 9,
}


def make_hands(n: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(DECK, 5)) for _ in range(n)]


def _time(fn: Callable[[Any], Any], items: Sequence[Any]) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    out = [fn(x) for x in items]
    return time.perf_counter() - start, out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    hands = make_hands(args.hands, args.seed)
    treys_hands = [[TreysCard.new(str(c)[0] + str(c)[1].lower()) for c in h] for h in hands]
    evaluator = Evaluator()

    ours_s, ours = _time(classify, hands)
    treys_s, ranks = _time(
        lambda h: evaluator.get_rank_class(evaluator.evaluate(h, [])), treys_hands
    )

    mismatches = sum(_TREYS_CLASS[a] != b for a, b in zip(ours, ranks, strict=True))
    n = len(hands)
    print(f"hands {n} seed {args.seed}")
    print(f"cardtable classify: {n / ours_s:,.0f} hands/s ({ours_s:.2f} s)")
    print(f"treys evaluate+class: {n / treys_s:,.0f} hands/s ({treys_s:.2f} s)")
    print(f"ratio cardtable/treys: {treys_s / ours_s:.2f}x   category mismatches: {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
