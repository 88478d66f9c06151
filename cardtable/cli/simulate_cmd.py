"""`cardtable simulate ...`: computer-only Kings Corner rounds (benchmarks of the players).

    cardtable simulate --players 2 --seats strong,greedy --rules standard --rounds 4000 \\
        --seed 1 --jobs 2 [--json]

Seats take easy, normal, strong, greedy (reference) and oracle (reference: sees every card).
Heads-up, every deal is played twice with the hands swapped; seats rotate (see
`cardtable.kings_corner.cpu.simulate`). A progress bar goes to stderr; the table (or with
``--json`` only one JSON object) to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cardtable.cli.errors import UsageError
from cardtable.kings_corner.cpu.simulate import PLAYERS, run
from cardtable.kings_corner.rules import PRESETS


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="play computer-only Kings Corner rounds and print win shares",
        description=(
            "Play computer-only Kings Corner rounds and print each seat's win share (a shared "
            "win counts 1/k), its 95%% interval, mean penalty, and blocked and capped rounds."
        ),
    )
    p.add_argument("--players", type=int, default=2, metavar="N", help="2-4 (default 2)")
    p.add_argument(
        "--seats",
        required=True,
        metavar="LIST",
        help=f"one player per seat, comma-separated: {', '.join(PLAYERS)}",
    )
    p.add_argument("--rules", default="standard", choices=list(PRESETS))
    p.add_argument("--rounds", type=int, default=1000, metavar="R")
    p.add_argument("--seed", type=int, default=1, metavar="S")
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes")
    p.add_argument("--json", action="store_true", help="print only one JSON object")
    p.set_defaults(func=run_simulate)


def _bar(done: int, total: int) -> None:
    if done < total and done % max(1, total // 200):
        return
    width = 30
    filled = width * done // max(1, total)
    end = "\n" if done >= total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} rounds{end}")
    sys.stderr.flush()


def run_simulate(args: argparse.Namespace) -> int:
    seats = [s.strip().lower() for s in args.seats.split(",") if s.strip()]
    if not 2 <= args.players <= 4:
        raise UsageError(f"--players must be 2-4, got {args.players}")
    if len(seats) != args.players:
        raise UsageError(f"--seats names {len(seats)} players, --players says {args.players}")
    for s in seats:
        if s not in PLAYERS:
            raise UsageError(f"unknown player {s!r} in --seats (choose from {', '.join(PLAYERS)})")
    if args.rounds < 1:
        raise UsageError(f"--rounds must be positive, got {args.rounds}")
    if args.players == 2 and args.rounds % 2:
        raise UsageError(
            f"heads-up rounds come in pairs (each deal twice, hands swapped): got {args.rounds}"
        )
    if args.jobs < 1:
        raise UsageError(f"--jobs must be positive, got {args.jobs}")
    report = run(seats, args.rules, args.rounds, args.seed, jobs=args.jobs, progress=_bar)
    out = report.summary()
    out["command"] = (
        f"cardtable simulate --players {args.players} --seats {','.join(seats)} "
        f"--rules {args.rules} --rounds {args.rounds} --seed {args.seed}"
    )
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['command']}")
    print(f"{out['rounds']} rounds, rules {out['rules']}, {out['seconds']} s")
    print(f"{'entry':<6}{'player':<8}{'win share':>10}  {'95% interval':<17}{'mean penalty':>12}")
    for e in out["seats"]:
        lo, hi = e["ci95"]
        print(
            f"{e['entry']:<6}{e['player']:<8}{e['win_share'] * 100:>9.1f}%  "
            f"{lo * 100:5.1f}% - {hi * 100:5.1f}%  {e['mean_penalty']:>10.2f}"
        )
    print(
        f"blocked {out['blocked']}, capped {out['capped']} (settled like blocked rounds), "
        f"mean turns {out['mean_turns']}"
    )
    if "strong_ms_per_move" in out:
        t = out["strong_ms_per_move"]
        print(f"strong: {t['p50']} ms per call (p50), {t['p99']} ms (p99)")
    return 0
