"""Decision time of the strong Kings Corner player, on one core.

Plays rounds of strong against greedy references (or more strong seats) until the strong
seats have taken ``--turns`` turns, timing every call of `choose_move(view, "strong", rng)`
exactly as the server makes it (one call per step, each with the current view). The first
call of a turn plans the whole turn from the view's turn start (the search); later calls
find that plan in the player's cache (keyed by the view's turn-start facts) and walk it to
the current position. Reports, per call and per whole turn, p50 / p99 / max in
milliseconds.

Run: `.venv/bin/python -m bench.kings_corner_cpu [--turns 1000] [--players 2]
[--rules standard] [--seed 1] [--json]`
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from typing import Any

from cardtable.kings_corner import Rules, deal, play, view
from cardtable.kings_corner.cpu import choose_move
from cardtable.kings_corner.cpu.reference import greedy


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def measure(turns: int, players: int, rules_name: str, seed: int) -> dict[str, Any]:
    rules = Rules.preset(rules_name)
    calls: list[float] = []
    first: list[float] = []
    whole: list[float] = []
    rounds = 0
    while len(whole) < turns:
        s = deal(players, rules, seed * 1_000_003 + rounds)
        strong_seat = rounds % players
        rng = random.Random(seed + rounds)
        rounds += 1
        while not s.is_over and len(whole) < turns:
            seat = s.to_play
            if seat != strong_seat:
                s = play(s, greedy(view(s, seat)))
                continue
            turn_ms = 0.0
            step = 0
            while True:
                v = view(s, seat)
                t0 = time.perf_counter()
                m = choose_move(v, "strong", rng)
                ms = (time.perf_counter() - t0) * 1000
                calls.append(ms)
                if step == 0:
                    first.append(ms)
                turn_ms += ms
                step += 1
                s = play(s, m)
                if m.is_end or s.is_over:
                    break
            whole.append(turn_ms)

    def stats(xs: list[float]) -> dict[str, float]:
        return {
            "p50": round(_pct(xs, 0.5), 3),
            "p99": round(_pct(xs, 0.99), 3),
            "max": round(max(xs), 3),
            "mean": round(sum(xs) / len(xs), 3),
            "n": len(xs),
        }

    return {
        "rules": rules_name,
        "players": players,
        "seed": seed,
        "rounds": rounds,
        "per_call_ms": stats(calls),
        "first_call_of_turn_ms": stats(first),
        "per_turn_ms": stats(whole),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.kings_corner_cpu", description=__doc__)
    p.add_argument("--turns", type=int, default=1000)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--rules", default="standard", choices=("standard", "draw-last", "simple"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    out = measure(args.turns, args.players, args.rules, args.seed)
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"strong, {args.rules}, {args.players} players, {out['per_turn_ms']['n']} turns "
        f"({out['rounds']} rounds, seed {args.seed}), milliseconds:"
    )
    for key in ("per_call_ms", "first_call_of_turn_ms", "per_turn_ms"):
        st = out[key]
        print(
            f"  {key:<22} p50 {st['p50']:>8}  p99 {st['p99']:>8}  max {st['max']:>8}  "
            f"mean {st['mean']:>8}  n {st['n']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
