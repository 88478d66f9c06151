"""`cardtable bench ...`: strength and speed benchmarks of the computer players.

    cardtable bench poker-squares --generate 1000 --seed 1 --deals bench/deals/ps-1000.txt
    cardtable bench poker-squares --table american --deals bench/deals/ps-1000.txt \\
        --limit 100 --budget 120 --jobs 2

A deal file has one deal per line: an id, then 25 or more cards in deal order
(`17 6S 3H 4H ...`); blank lines and lines starting with `#` are skipped. Every deal is played
with the hint engine; the output is `<id> <score>` per deal, then
`mean M sd S games N ms_per_move T se E load L` (T: mean wall time of one hint, measured in
the workers; E: standard error of the mean; L: the 1-minute load average at the end).
`--budget` is the hint engine's budget (0: the learned evaluator alone; see
docs/hint-engine.md); the default is the interactive budget.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from cardtable.cards import Card, CardError, shuffled_deck
from cardtable.cli.errors import UsageError
from cardtable.poker_squares import ENGINE, INTERACTIVE_BUDGET, Move, deal_cards, hint

Deal = tuple[str, list[str]]


def register(subparsers: Any) -> None:
    bench = subparsers.add_parser("bench", help="run benchmarks of the computer players")
    bench_sub = bench.add_subparsers(dest="bench", metavar="BENCH")
    ps = bench_sub.add_parser(
        "poker-squares",
        help="play a file of deals with the Poker Squares hint engine",
        description="Play every deal of FILE with the hint engine and print the scores.",
    )
    ps.add_argument("--table", choices=["american", "british"], default="american")
    ps.add_argument("--deals", required=True, metavar="FILE", help="deal file (read or written)")
    ps.add_argument("--limit", type=int, default=None, metavar="N", help="first N deals only")
    budget = ps.add_mutually_exclusive_group()
    budget.add_argument("--move-ms", type=float, default=None, metavar="MS")
    budget.add_argument("--budget", type=int, default=None, metavar="N", help="hint budget")
    ps.add_argument("--jobs", type=int, default=1, metavar="N")
    ps.add_argument("--seed", type=int, default=1, help="seed of the deals with --generate")
    ps.add_argument("--generate", type=int, default=None, metavar="N", help="write N deals")
    ps.set_defaults(func=run_poker_squares)
    bench.set_defaults(func=lambda args: _need_bench(bench))


def _need_bench(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def generate_deals(n: int, seed: int) -> list[Deal]:
    """N deals of 25 cards from one seeded stream; ids 1..N."""
    rng = random.Random(seed)
    return [(str(i + 1), [str(c) for c in shuffled_deck(rng)[:25]]) for i in range(n)]


def read_deals(path: Path) -> list[Deal]:
    """Parse a deal file; raises `UsageError` with one line naming the first problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read deal file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a text file") from None
    deals: list[Deal] = []
    ids: set[str] = set()
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        ident, cards = parts[0], parts[1:]
        where = f"{path}:{n}"
        if ident in ids:
            raise UsageError(f"{where}: duplicate deal id {ident!r}")
        if len(cards) < 25:
            raise UsageError(f"{where}: deal {ident!r} has {len(cards)} cards, needs 25 or more")
        try:
            parsed = [Card.parse(c) for c in cards]
        except CardError as exc:
            raise UsageError(f"{where}: {exc}") from None
        if len(set(parsed)) != len(parsed):
            raise UsageError(f"{where}: deal {ident!r} repeats a card")
        ids.add(ident)
        deals.append((ident, [str(c) for c in parsed]))
    if not deals:
        raise UsageError(f"{path}: no deals in file")
    return deals


def play_deal(job: tuple[Deal, str, int | None, float | None]) -> tuple[str, int, float, int]:
    """Play one deal with the hint engine, through the game interface: (id, score, seconds
    spent in hints, moves). The deal's cards come from the file, hence `deal_cards`."""
    (ident, cards), table, budget, move_ms = job
    game = deal_cards(table, [Card.parse(c) for c in cards])
    spent = 0.0
    moves = 0
    while not ENGINE.is_over(game):
        v = ENGINE.view(game, 0)
        t0 = time.perf_counter()
        if move_ms is not None:
            row, col = hint(v, seconds=move_ms / 1000.0)
        else:
            row, col = hint(v, budget=INTERACTIVE_BUDGET if budget is None else budget)
        spent += time.perf_counter() - t0
        moves += 1
        game = ENGINE.play(game, Move(row, col))
    return ident, game.total, spent, moves


def run_poker_squares(args: argparse.Namespace) -> int:
    path = Path(args.deals)
    if args.generate is not None:
        if args.generate < 1:
            raise UsageError("--generate needs a positive number of deals")
        lines = [f"{i} {' '.join(cards)}" for i, cards in generate_deals(args.generate, args.seed)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(lines)} deals to {path}")
        return 0
    if args.limit is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.budget is not None and args.budget < 0:
        raise UsageError("--budget must be 0 or more")
    if args.move_ms is not None and args.move_ms <= 0:
        raise UsageError("--move-ms must be positive")
    deals = read_deals(path)
    if args.limit is not None:
        deals = deals[: args.limit]
    jobs = [(d, args.table, args.budget, args.move_ms) for d in deals]
    scores: list[int] = []
    spent = 0.0
    moves = 0
    if args.jobs == 1:
        results = map(play_deal, jobs)
        for ident, total, sec, n in results:
            scores.append(total)
            spent += sec
            moves += n
            print(f"{ident} {total}", flush=True)
    else:
        with get_context("spawn").Pool(args.jobs) as pool:
            for ident, total, sec, n in pool.imap(play_deal, jobs):
                scores.append(total)
                spent += sec
                moves += n
                print(f"{ident} {total}", flush=True)
    games = len(scores)
    mean = sum(scores) / games
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (games - 1)) if games > 1 else 0.0
    ms = 1000.0 * spent / max(moves, 1)
    se = sd / math.sqrt(games)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"mean {mean:.2f} sd {sd:.2f} games {games} ms_per_move {ms:.1f} "
        f"se {se:.2f} load {load:.2f}"
    )
    sys.stdout.flush()
    return 0
