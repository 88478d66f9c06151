"""The look-past Kings Corner player against today's strong, paired on the same deals.

Every deal is played once per seat rotation (heads-up: twice, seats and hands swapped; at
three and four players the look-past player sits in each seat in turn, the other seats
strong), so both players meet the same cards from every seat. The unit of the 95% interval
is the deal (the mean over its rotations); a fair share is 1 / players. CPU time is
`time.process_time()` around every `choose` call of the look-past player: per first call of
a turn (the plan: what every call costs in a process that has not seen the turn) and per
whole turn, p50 / p99 / max in milliseconds.

Runs are long: each finished deal is appended to a checkpoint file (JSON lines, the
settings in the file name) and a run started again with the same options resumes after
the last finished deal. Run it alone, under nice, one process:

    nice -n 19 .venv/bin/python -m bench.kings_corner_lookahead --players 2 --deals 200 \
        [--seed 1] [--rules standard] [--shortlist 4] [--samples 16] [--policy greedy] \
        [--turn-cap 60] [--margin 4] [--out /tmp/kc-look] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cardtable.kings_corner import Rules, deal, penalty, play, view
from cardtable.kings_corner.cpu import lookahead, strong
from cardtable.kings_corner.cpu.rollout import POLICIES
from cardtable.kings_corner.cpu.simulate import IDLE_CAP, STEP_CAP, TURN_CAP
from cardtable.kings_corner.moves import Move
from cardtable.kings_corner.state import State

Chooser = Callable[[dict[str, Any]], Move]


def play_round(
    look: Chooser, rules: Rules, players: int, seed: int, deal_no: int, rot: int
) -> dict[str, Any]:
    """One round of deal ``deal_no`` with the look-past player at seat ``rot``."""
    state: State = deal(players, rules, seed * 1_000_003 + deal_no)
    turns = idle = 0
    held = sum(state.hand_sizes)
    first_ms: list[float] = []
    turn_ms: list[float] = []
    ending = ""
    while not state.is_over:
        seat = state.to_play
        shed = False
        spent = 0.0
        for step in range(STEP_CAP):
            v = view(state, seat)
            if seat == rot:
                t0 = time.process_time()
                move = look(v)
                ms = (time.process_time() - t0) * 1000
                spent += ms
                if step == 0:
                    first_ms.append(ms)
            else:
                move = strong.choose(v)
            before = state.hand_sizes[seat]
            state = play(state, move)
            if move.is_end or state.is_over:
                break
            shed = shed or state.hand_sizes[seat] < before
        else:
            raise RuntimeError(f"seat {seat} made {STEP_CAP} moves in one turn")
        if seat == rot:
            turn_ms.append(spent)
        turns += 1
        now = sum(state.hand_sizes)
        idle = 0 if (shed or now < held) else idle + 1
        held = now
        if not state.is_over and (idle >= IDLE_CAP or turns >= TURN_CAP):
            ending = "capped"
            break
    if ending == "capped":
        pens = tuple(penalty(h) for h in state.hands)
        winners = tuple(i for i, p in enumerate(pens) if p == min(pens))
    else:
        ending = state.ending or "out"
        pens = tuple(state.penalties or ())
        winners = tuple(state.winners or ())
    share = 1.0 / len(winners) if rot in winners else 0.0
    others = [p for i, p in enumerate(pens) if i != rot]
    return {
        "rot": rot,
        "share": share,
        "penalty": pens[rot],
        "others_penalty": sum(others) / len(others),
        "turns": turns,
        "ending": ending,
        "first_ms": [round(x, 3) for x in first_ms],
        "turn_ms": [round(x, 3) for x in turn_ms],
    }


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * q))] if s else 0.0


def summary(rows: list[dict[str, Any]], players: int) -> dict[str, Any]:
    vals = [sum(r["share"] for r in row["rounds"]) / len(row["rounds"]) for row in rows]
    n = len(vals)
    mean = sum(vals) / n if n else 0.0
    var = sum((v - mean) ** 2 for v in vals) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n) if n else 0.0
    rounds = [r for row in rows for r in row["rounds"]]
    first = [x for r in rounds for x in r["first_ms"]]
    whole = [x for r in rounds for x in r["turn_ms"]]

    def stats(xs: list[float]) -> dict[str, float]:
        return {
            "p50": round(_pct(xs, 0.5), 1),
            "p99": round(_pct(xs, 0.99), 1),
            "max": round(max(xs), 1) if xs else 0.0,
            "n": len(xs),
        }

    return {
        "players": players,
        "deals": n,
        "rounds": len(rounds),
        "fair_share": round(1 / players, 4),
        "win_share": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "penalty": round(sum(r["penalty"] for r in rounds) / max(1, len(rounds)), 3),
        "others_penalty": round(sum(r["others_penalty"] for r in rounds) / max(1, len(rounds)), 3),
        "capped": sum(1 for r in rounds if r["ending"] == "capped"),
        "mean_turns": round(sum(r["turns"] for r in rounds) / max(1, len(rounds)), 2),
        "first_call_cpu_ms": stats(first),
        "turn_cpu_ms": stats(whole),
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.kings_corner_lookahead", description=__doc__)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rules", default="standard", choices=("standard", "draw-last", "simple"))
    p.add_argument("--shortlist", type=int, default=lookahead.DEFAULT.shortlist)
    p.add_argument("--samples", type=int, default=lookahead.DEFAULT.samples)
    p.add_argument("--policy", default=lookahead.DEFAULT.policy, choices=sorted(POLICIES))
    p.add_argument("--turn-cap", type=int, default=lookahead.DEFAULT.turn_cap)
    p.add_argument("--margin", type=float, default=lookahead.DEFAULT.margin)
    p.add_argument("--penalty-weight", type=float, default=lookahead.DEFAULT.penalty_weight)
    p.add_argument("--confidence", type=float, default=lookahead.DEFAULT.confidence)
    p.add_argument("--late", type=int, default=lookahead.DEFAULT.late)
    p.add_argument("--mode", default=lookahead.DEFAULT.mode, choices=("playout", "reply"))
    p.add_argument("--reply-scale", type=float, default=lookahead.DEFAULT.reply_scale)
    p.add_argument("--smart", type=int, default=lookahead.DEFAULT.smart)
    p.add_argument("--out", default="/tmp/kc-look", help="checkpoint directory")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    settings = lookahead.Settings(
        shortlist=args.shortlist,
        samples=args.samples,
        policy=args.policy,
        turn_cap=args.turn_cap,
        margin=args.margin,
        penalty_weight=args.penalty_weight,
        smart=args.smart,
        confidence=args.confidence,
        late=args.late,
        mode=args.mode,
        reply_scale=args.reply_scale,
    )
    rules = Rules.preset(args.rules)
    tail = "-reply" if args.mode == "reply" else ""
    if args.reply_scale != 1.0:
        tail += f"{args.reply_scale:g}"
    name = (
        f"{args.rules}-p{args.players}-s{args.seed}-k{args.shortlist}-n{args.samples}-"
        f"{args.policy}-t{args.turn_cap}-m{args.margin:g}-w{args.penalty_weight:g}-x{args.smart}-z{args.confidence:g}-l{args.late}{tail}.jsonl"
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    rows: list[dict[str, Any]] = []
    if path.exists():
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    done = {row["deal"] for row in rows}

    def look(v: dict[str, Any]) -> Move:
        return lookahead.choose(v, settings)

    with path.open("a") as f:
        for d in range(args.deals):
            if d in done:
                continue
            rounds = [
                play_round(look, rules, args.players, args.seed, d, rot)
                for rot in range(args.players)
            ]
            row = {"deal": d, "rounds": rounds}
            f.write(json.dumps(row) + "\n")
            f.flush()
            rows.append(row)
    rows = [row for row in rows if row["deal"] < args.deals]
    result = {"checkpoint": str(path), "settings": vars(args), **summary(rows, args.players)}
    if args.json:
        print(json.dumps(result))
        return 0
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
