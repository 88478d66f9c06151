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

`--player baseline` plays the frozen pre-issue-16 engine (`bench/ps_baseline`, available in a
checkout) instead of the current one; `--compare baseline` plays both on every deal with the
same budget: each line is then `<id> <score> <baseline score>` and a last line gives the paired
difference (player - baseline) with its standard error.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import random
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from types import ModuleType
from typing import Any

from cardtable.cards import Card, CardError, shuffled_deck
from cardtable.cli.errors import UsageError
from cardtable.poker_squares import ENGINE, INTERACTIVE_BUDGET, Move, deal_cards, hint

Deal = tuple[str, list[str]]
PLAYERS = ("engine", "baseline")
Job = tuple[Deal, str, int | None, float | None, str]


def _baseline() -> ModuleType:
    """`bench.ps_baseline`, which lives in the repository next to the `cardtable` package."""
    try:
        return importlib.import_module("bench.ps_baseline")
    except ModuleNotFoundError:
        root = Path(__file__).resolve().parents[2]
        if not (root / "bench" / "ps_baseline").is_dir():
            raise UsageError("the baseline player needs a checkout (bench/ps_baseline)") from None
        sys.path.append(str(root))
        return importlib.import_module("bench.ps_baseline")


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
    ps.add_argument(
        "--player",
        choices=PLAYERS,
        default="engine",
        help="engine: the current hint engine (default); baseline: the frozen pre-issue-16 one",
    )
    ps.add_argument(
        "--compare",
        choices=PLAYERS,
        default=None,
        help="also play this player on every deal and print the paired difference",
    )
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


def play_deal(job: Job) -> tuple[str, int, float, int]:
    """Play one deal with a player, through the game interface: (id, score, seconds spent in
    hints, moves). The deal's cards come from the file, hence `deal_cards`."""
    (ident, cards), table, budget, move_ms, player = job
    game = deal_cards(table, [Card.parse(c) for c in cards])
    base = _baseline() if player == "baseline" else None
    spent = 0.0
    moves = 0
    while not ENGINE.is_over(game):
        v = ENGINE.view(game, 0)
        t0 = time.perf_counter()
        b = INTERACTIVE_BUDGET if budget is None else budget
        if base is not None:
            row, col = base.hint(v, budget=b)
        elif move_ms is not None:
            row, col = hint(v, seconds=move_ms / 1000.0)
        else:
            row, col = hint(v, budget=b)
        spent += time.perf_counter() - t0
        moves += 1
        game = ENGINE.play(game, Move(row, col))
    return ident, game.total, spent, moves


def play_pair(jobs: tuple[Job, Job | None]) -> tuple[str, int, float, int, int | None]:
    """One deal with the player and, if asked, the compared player: (id, score, seconds,
    moves, compared score)."""
    ident, total, sec, n = play_deal(jobs[0])
    other = None if jobs[1] is None else play_deal(jobs[1])[1]
    return ident, total, sec, n, other


def _stats(xs: list[int]) -> tuple[float, float, float]:
    """(mean, sd, se) of a sample."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return mean, sd, sd / math.sqrt(n)


class _Serial:
    """Stands in for a pool with one job: `imap` in this process."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def imap(self, fn: Any, jobs: list[tuple[Job, Job | None]]) -> Any:
        return map(fn, jobs)


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
    if args.player == "baseline" and args.move_ms is not None:
        raise UsageError("the baseline player takes --budget, not --move-ms")
    if args.compare is not None and args.move_ms is not None:
        raise UsageError("--compare needs --budget (a time limit is not reproducible)")
    if "baseline" in (args.player, args.compare):
        _baseline()
    jobs: list[tuple[Job, Job | None]] = [
        (
            (d, args.table, args.budget, args.move_ms, args.player),
            None if args.compare is None else (d, args.table, args.budget, None, args.compare),
        )
        for d in deals
    ]
    scores: list[int] = []
    others: list[int] = []
    spent = 0.0
    moves = 0
    with get_context("spawn").Pool(args.jobs) if args.jobs > 1 else _Serial() as pool:
        for ident, total, sec, n, other in pool.imap(play_pair, jobs):
            scores.append(total)
            spent += sec
            moves += n
            if other is None:
                print(f"{ident} {total}", flush=True)
            else:
                others.append(other)
                print(f"{ident} {total} {other}", flush=True)
    games = len(scores)
    mean, sd, se = _stats(scores)
    ms = 1000.0 * spent / max(moves, 1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"mean {mean:.2f} sd {sd:.2f} games {games} ms_per_move {ms:.1f} "
        f"se {se:.2f} load {load:.2f}"
    )
    if others:
        om, _, _ = _stats(others)
        dm, dsd, dse = _stats([a - b for a, b in zip(scores, others, strict=True)])
        print(
            f"compare {args.compare} mean {om:.2f} paired difference {dm:+.2f} "
            f"se {dse:.2f} sd {dsd:.2f} games {games}"
        )
    sys.stdout.flush()
    return 0
