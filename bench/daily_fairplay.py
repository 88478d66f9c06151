"""Daily fair play: both error rates of the detector (docs/daily.md, "Fair play").

    python -m bench.daily_fairplay calibrate --table american --deals 1000
    python -m bench.daily_fairplay measure --table american --deals 1000 [--players ...]
    python -m bench.daily_fairplay play --players clairvoyant --deals 1000 --out F.npz \
        [--calibration]
    python -m bench.daily_fairplay judge --entries F.npz [--fits-out G.npz]

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
``play`` saves the entries one player made (cards, placements, totals) to a NumPy ``.npz``
file, on the measured deals or, with ``--calibration``, on the calibration deals; ``judge``
reads such a file and prints what the shipped detector makes of it (the same line as
``measure``), optionally saving every entry's per-card ``(d_k, v_k)`` so that other
statistics can be tried without recomputing them.
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


def save_entries(
    who: str, table: str, deals: list[list[Card]], args: argparse.Namespace, out: Path
) -> None:
    """Play every deal as ``who`` and save the entries (cards, placements, totals)."""
    import numpy as np

    cards = np.array([[c.index for c in d[:CELLS]] for d in deals], dtype=np.int16)
    cells = np.zeros((len(deals), CELLS), dtype=np.int16)
    totals = np.zeros(len(deals), dtype=np.int32)
    t = time.perf_counter()
    for i, deal in enumerate(deals):
        cells[i] = play(who, table, deal, i, args)
        totals[i] = Game(table, tuple(deal[:CELLS]), tuple(int(c) for c in cells[i])).total
        if (i + 1) % 25 == 0 or i + 1 == len(deals):
            # saved as it goes: an interrupted run keeps the entries played so far
            print(f"  {who}: {i + 1}/{len(deals)} {time.perf_counter() - t:.0f} s", flush=True)
            out.parent.mkdir(parents=True, exist_ok=True)
            part = out.with_name(out.stem + ".part.npz")
            n = i + 1
            np.savez(
                part,
                cards=cards[:n],
                placements=cells[:n],
                totals=totals[:n],
                player=who,
                table=table,
            )
            part.replace(out)


def judge_entries(path: Path, fits_out: Path | None) -> dict[str, object]:
    """The shipped detector on saved entries (and every entry's ``(d_k, v_k)`` if asked)."""
    import numpy as np

    data = np.load(path)
    table = str(data["table"])
    zs: list[float] = []
    totals: list[int] = []
    held = 0
    cpu = 0.0
    ds: list[list[float]] = []
    vs: list[list[float]] = []
    came: list[list[float]] = []
    pool: list[list[list[float]]] = []
    for row, cells in zip(data["cards"], data["placements"], strict=True):
        cards = [DECK[int(c)] for c in row]
        placements = [int(c) for c in cells]
        clear_cache()
        t0 = time.process_time()
        ws = fairplay.worths(table, cards, placements)
        steps = fairplay.fits_of(ws)
        verdict = fairplay.verdict(table, cards, placements, steps)
        cpu += time.process_time() - t0
        came.append([c for c, _ in ws])
        pool.append([sorted(w) + [math.nan] * (51 - len(w)) for _, w in ws])
        ds.append([d for d, _ in steps])
        vs.append([v for _, v in steps])
        zs.append(verdict.z)
        totals.append(verdict.total)
        held += verdict.held
        if fits_out is not None and (len(zs) % 25 == 0 or len(zs) == len(data["cards"])):
            # saved as it goes: an interrupted run keeps the entries judged so far
            part = fits_out.with_name(fits_out.stem + ".part.npz")
            np.savez(
                part,
                d=np.array(ds),
                v=np.array(vs),
                came=np.array(came),
                pool=np.array(pool),
                totals=np.array(totals),
                zs=np.array(zs),
            )
            part.replace(fits_out)
    return {"zs": zs, "totals": totals, "held": held, "cpu": cpu, "who": str(data["player"])}


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _report(who: str, out: dict[str, object], wall: float) -> None:
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
        f"wall {wall:.0f} s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("calibrate", "measure", "play", "judge"))
    parser.add_argument("--table", choices=("american", "british"), default="american")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--budget", type=int, default=INTERACTIVE_BUDGET)
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--out", type=Path, help="play: the .npz file the entries go to")
    parser.add_argument("--calibration", action="store_true", help="play: calibration deals")
    parser.add_argument("--entries", type=Path, nargs="*", help="judge: saved .npz entries")
    parser.add_argument("--fits-out", type=Path, help="judge: save every (d_k, v_k) here")
    args = parser.parse_args(argv)
    players = [p for p in args.players.split(",") if p]
    if args.mode == "play":
        deals = calibration_deals(args.deals) if args.calibration else measured_deals(args.deals)
        if len(players) != 1 or args.out is None:
            parser.error("play takes one player and --out")
        save_entries(players[0], args.table, deals, args, args.out)
        return 0
    if args.mode == "judge":
        w0 = time.perf_counter()
        for path in args.entries or ():
            out = judge_entries(path, args.fits_out if len(args.entries) == 1 else None)
            _report(str(out["who"]), out, time.perf_counter() - w0)
        load = os.getloadavg()
        print(f"wall {time.perf_counter() - w0:.0f} s; load average {load[0]:.1f} {load[1]:.1f}")
        return 0
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
        _report(who, run(who, args.table, deals, args), time.perf_counter() - t)
    load = os.getloadavg()
    print(f"wall {time.perf_counter() - w0:.0f} s; load average {load[0]:.1f} {load[1]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
