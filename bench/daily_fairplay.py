"""Daily fair play: both error rates of the detector (docs/daily.md, "Fair play").

    python -m bench.daily_fairplay calibrate --table american --deals 1000
    python -m bench.daily_fairplay measure --table american --deals 1000 [--players ...]

Three players place the cards of a deal:

- ``clairvoyant``: knows the whole order. A beam search over the known cards: every state
  of the beam tries the card on each empty cell (one per symmetry class), the children are
  ranked by the learned evaluator's value of the after-state, the best ``--beam`` kept; the
  best final grid wins. It scores far above the hint engine.
- ``engine``: the hint engine, reading the view only, at ``--budget`` (9: the in-game hint).
- ``noisy``: a human-like player: the hint's cell 60% of the time, else the 2nd or 3rd best
  cell by the same estimates (seeded per deal, so a run is reproducible).

``calibrate`` plays on deals shuffled from seeds 1,000,001 onwards (never the measured deals)
and prints the distribution of `fairplay.judge`'s ``z`` (mean, sd, quantiles), from which
`fairplay.FROM_CARD` and `HOLD_Z` were chosen. ``measure`` plays
the first N deals of ``bench/deals/ps-1000.txt`` and prints, per player, how many entries the
detector holds at the shipped thresholds, the mean total and the CPU the detector used.
One process; no parallelism (the development machine's two cores are shared).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from cardtable.cards import DECK, Card, shuffled_deck
from cardtable.poker_squares.game import CELLS, LINES, Game
from cardtable.poker_squares.hands import TABLES, classify
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, clear_cache, evaluate
from cardtable.poker_squares.review import visible
from cardtable.server.daily.public import fairplay

DEALS = Path(__file__).parent / "deals" / "ps-1000.txt"
CALIBRATION_SEED = 1_000_001
PLAYERS = ("clairvoyant", "engine", "noisy")
Player = Callable[[str, Sequence[Card], int], list[int]]


def measured_deals(n: int) -> list[list[Card]]:
    lines = DEALS.read_text(encoding="utf-8").splitlines()[:n]
    return [[Card.parse(t) for t in line.split()[1:]] for line in lines]


def calibration_deals(n: int) -> list[list[Card]]:
    return [shuffled_deck(random.Random(CALIBRATION_SEED + i))[:CELLS] for i in range(n)]


def clairvoyant(table: str, cards: Sequence[Card], steps: int) -> list[int]:
    """The best final grid a local search over the known cards finds, placed card by card.

    Knowing the order, any grid of the 25 cards can be built (every card may go on any empty
    cell), so the player searches grids: simulated annealing over swaps of two cells (each
    swap rescored on the lines it touches), ``steps`` swaps from the order-as-dealt grid,
    keeping the best grid seen. Card ``k`` then goes on its cell in that grid."""
    rng = random.Random(sum(c.index << (i % 8) for i, c in enumerate(cards)))
    points = TABLES[table]
    memo: dict[tuple[int, ...], int] = {}

    def line(grid: list[int], li: int) -> int:
        key = tuple(sorted(grid[c] for c in LINES[li]))
        got = memo.get(key)
        if got is None:
            got = memo[key] = points[classify(DECK[i] for i in key)]
        return got

    grid = [c.index for c in cards[:CELLS]]
    scores = [line(grid, li) for li in range(10)]
    total = sum(scores)
    best, best_grid = total, grid[:]
    for step in range(steps):
        heat = 12.0 * (1 - step / steps) + 0.3
        a, b = rng.randrange(CELLS), rng.randrange(CELLS)
        if a == b:
            continue
        touched = {a // 5, b // 5, 5 + a % 5, 5 + b % 5}
        grid[a], grid[b] = grid[b], grid[a]
        new = {li: line(grid, li) for li in touched}
        delta = sum(new[li] - scores[li] for li in touched)
        if delta >= 0 or rng.random() < math.exp(delta / heat):
            for li, v in new.items():
                scores[li] = v
            total += delta
            if total > best:
                best, best_grid = total, grid[:]
        else:
            grid[a], grid[b] = grid[b], grid[a]
    cell_of = {card: cell for cell, card in enumerate(best_grid)}
    return [cell_of[c.index] for c in cards[:CELLS]]


def _estimates(game: Game, budget: int) -> list[tuple[float, int]]:
    """(estimate, cell) of every empty cell, best first (lowest cell on ties)."""
    est = evaluate(visible(game, game.placed), budget=budget)
    return sorted((-e["estimate"], e["row"] * 5 + e["col"]) for e in est)


def engine(table: str, cards: Sequence[Card], budget: int) -> list[int]:
    game = Game(table, tuple(cards))
    for _ in range(CELLS):
        cell = _estimates(game, budget)[0][1]
        game = Game(table, game.cards, (*game.placements, cell))
    return list(game.placements)


def noisy(table: str, cards: Sequence[Card], budget: int, rng: random.Random) -> list[int]:
    """The hint's cell 60% of the time, else the 2nd or 3rd best (when there are that many)."""
    game = Game(table, tuple(cards))
    for _ in range(CELLS):
        ranked = _estimates(game, budget)
        pick = 0
        if len(ranked) > 1 and rng.random() >= 0.6:
            pick = rng.choice((1, 2)) if len(ranked) > 2 else 1
        game = Game(table, game.cards, (*game.placements, ranked[pick][1]))
    return list(game.placements)


def play(
    who: str, table: str, cards: Sequence[Card], i: int, args: argparse.Namespace
) -> list[int]:
    if who == "clairvoyant":
        return clairvoyant(table, cards, args.steps)
    if who == "engine":
        return engine(table, cards, args.budget)
    return noisy(table, cards, args.budget, random.Random(7_000_000 + i))


def run(
    who: str, table: str, deals: list[list[Card]], args: argparse.Namespace
) -> dict[str, object]:
    zs: list[float] = []
    totals: list[int] = []
    held = 0
    cpu = 0.0
    for i, cards in enumerate(deals):
        cells = play(who, table, cards, i, args)
        clear_cache()  # the detector is timed cold
        t0 = time.process_time()
        verdict = fairplay.judge(table, cards, cells)
        cpu += time.process_time() - t0
        zs.append(verdict.z)
        totals.append(verdict.total)
        held += verdict.held
    return {"zs": zs, "totals": totals, "held": held, "cpu": cpu}


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("calibrate", "measure"))
    parser.add_argument("--table", choices=("american", "british"), default="american")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--budget", type=int, default=INTERACTIVE_BUDGET)
    parser.add_argument("--steps", type=int, default=40_000)
    args = parser.parse_args(argv)
    players = [p for p in args.players.split(",") if p]
    if args.mode == "calibrate":
        deals = calibration_deals(args.deals)
    else:
        deals = measured_deals(min(args.deals, 1000))
    w0 = time.perf_counter()
    print(
        f"{args.mode} {args.table}: {len(deals)} deals, budget {args.budget}, "
        f"annealing steps {args.steps}; "
        f"hold at z >= {fairplay.HOLD_Z} (sum from card {fairplay.FROM_CARD})"
    )
    for who in players:
        t = time.perf_counter()
        out = run(who, args.table, deals, args)
        zs: list[float] = out["zs"]  # type: ignore[assignment]
        totals: list[int] = out["totals"]  # type: ignore[assignment]
        n = len(zs)
        print(
            f"  {who:12s} total mean {statistics.fmean(totals):6.1f}  z mean "
            f"{statistics.fmean(zs):6.1f} sd {statistics.pstdev(zs):5.1f} "
            f"min {min(zs):5.2f} q.01 {_quantile(zs, 0.01):5.2f} "
            f"q.99 {_quantile(zs, 0.99):5.2f} q.995 {_quantile(zs, 0.995):5.2f} "
            f"max {max(zs):5.2f}  held {out['held']}/{n} ({100 * out['held'] / n:.1f}%)  "  # type: ignore[operator]
            f"detector CPU {1000 * out['cpu'] / n:.1f} ms/entry  "  # type: ignore[operator]
            f"wall {time.perf_counter() - t:.0f} s",
            flush=True,
        )
    load = os.getloadavg()
    print(f"wall {time.perf_counter() - w0:.0f} s; load average {load[0]:.1f} {load[1]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
