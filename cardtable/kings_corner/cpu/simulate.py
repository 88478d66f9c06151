"""Computer-only rounds for benchmarks: `run(...)` plays them and `Report` sums them up.

Seats. ``seats`` names one player per seat entry (easy, normal, strong, greedy, oracle).
Round k deals from seed ``seed * 1_000_003 + d`` (d: the deal's number) and the entries
rotate: entry e sits at seat ``(e + k) % players``. Heads-up, each deal is played twice,
the second time with the entries swapped (so each keeps the other's hand and seat); a
"round" is one play of a deal, so R rounds are R / 2 deals.

Results. A round's winners share it: each of k winners gets 1/k (a blocked round won on
equal penalties is shared; KC-21). The 95% interval of a win share is the normal one over
independent units (deal pairs heads-up, rounds otherwise). Mean penalty is per round.

Cap. A round in which ``IDLE_CAP`` turns in a row pass without any card leaving a hand
(players passing with moves left, which never blocks under KC-20), or which reaches
``TURN_CAP`` turns, is cut: it is settled like a blocked round (lowest penalty wins, ties
share) and counted as capped.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.kings_corner import Rules, State, deal, penalty, play, view
from cardtable.kings_corner.moves import Move

from . import STRENGTHS, easy, normal, strong
from .reference import greedy, oracle

PLAYERS = (*STRENGTHS, "greedy", "oracle")  # the three strengths, then the references
IDLE_CAP = 200
TURN_CAP = 2000
STEP_CAP = 400  # moves within one turn (a player bug, not a game situation)

Player = Callable[[State, int, random.Random], Move]


def _player(name: str) -> Player:
    if name == "easy":
        return lambda s, seat, rng: easy.choose(view(s, seat), rng)
    if name == "normal":
        return lambda s, seat, rng: normal.choose(view(s, seat), rng)
    if name == "strong":
        return lambda s, seat, rng: strong.choose(view(s, seat))
    if name == "greedy":
        return lambda s, seat, rng: greedy(view(s, seat))
    if name == "oracle":
        return lambda s, seat, rng: oracle(s)
    raise ValueError(f"unknown player {name!r} (expected one of {', '.join(PLAYERS)})")


@dataclass
class RoundResult:
    deal: int
    seats: tuple[int, ...]  # entry -> seat
    shares: tuple[float, ...]  # per entry
    penalties: tuple[int, ...]  # per entry
    turns: int
    ending: str  # "out", "blocked" or "capped"
    strong_ms: list[float] = field(default_factory=list)


def play_round(
    names: Sequence[str], rules: Rules, deal_no: int, game: int, seed: int, rotation: int
) -> RoundResult:
    """One round: entry e at seat (e + rotation) % n, dealt from the deal's seed."""
    n = len(names)
    seat_of = tuple((e + rotation) % n for e in range(n))
    entry_at = {s: e for e, s in enumerate(seat_of)}
    players = [_player(names[entry_at[s]]) for s in range(n)]
    rngs = [random.Random(f"{seed}|{deal_no}|{game}|{s}") for s in range(n)]
    state = deal(n, rules, seed * 1_000_003 + deal_no)
    turns = idle = 0
    ms: list[float] = []
    held = sum(state.hand_sizes)
    ending = ""
    while not state.is_over:
        seat = state.to_play
        shed = False
        for _ in range(STEP_CAP):
            t0 = time.perf_counter()
            move = players[seat](state, seat, rngs[seat])
            if names[entry_at[seat]] == "strong":
                ms.append((time.perf_counter() - t0) * 1000)
            before = state.hand_sizes[seat]
            state = play(state, move)
            if move.is_end or state.is_over:
                break
            shed = shed or state.hand_sizes[seat] < before
        else:
            raise RuntimeError(f"{names[entry_at[seat]]} made {STEP_CAP} moves in one turn")
        turns += 1
        now = sum(state.hand_sizes)
        idle = 0 if (shed or now < held) else idle + 1
        held = now
        if not state.is_over and (idle >= IDLE_CAP or turns >= TURN_CAP):
            ending = "capped"
            break
    if ending == "capped":
        pens = tuple(penalty(h) for h in state.hands)
        low = min(pens)
        winners = tuple(i for i, p in enumerate(pens) if p == low)
    else:
        ending = state.ending or "out"
        pens = state.penalties or ()
        winners = state.winners or ()
    shares = tuple((1.0 / len(winners)) if seat_of[e] in winners else 0.0 for e in range(n))
    return RoundResult(
        deal_no,
        seat_of,
        shares,
        tuple(pens[seat_of[e]] for e in range(n)),
        turns,
        ending,
        ms,
    )


def play_deal(args: tuple[tuple[str, ...], dict[str, Any], int, int]) -> list[RoundResult]:
    """Every round of one deal: two (entries swapped) heads-up, one otherwise."""
    names, rules_d, seed, deal_no = args
    rules = Rules.from_dict(rules_d)
    n = len(names)
    if n == 2:
        return [play_round(names, rules, deal_no, g, seed, g) for g in (0, 1)]
    return [play_round(names, rules, deal_no, 0, seed, deal_no % n)]


@dataclass
class Report:
    names: tuple[str, ...]
    rules: str
    rounds: int
    seed: int
    results: list[RoundResult]
    seconds: float

    def summary(self) -> dict[str, Any]:
        n = len(self.names)
        by_deal: dict[int, list[RoundResult]] = {}
        for r in self.results:
            by_deal.setdefault(r.deal, []).append(r)
        units = list(by_deal.values())
        entries = []
        for e, name in enumerate(self.names):
            vals = [sum(r.shares[e] for r in u) / len(u) for u in units]
            mean = sum(vals) / len(vals) if vals else 0.0
            var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1) if len(vals) > 1 else 0.0
            half = 1.96 * math.sqrt(var / len(vals)) if vals else 0.0
            pens = [r.penalties[e] for r in self.results]
            entries.append(
                {
                    "entry": e,
                    "player": name,
                    "win_share": round(mean, 4),
                    "ci95": [round(max(0.0, mean - half), 4), round(min(1.0, mean + half), 4)],
                    "mean_penalty": round(sum(pens) / len(pens), 3) if pens else 0.0,
                }
            )
        ms = sorted(x for r in self.results for x in r.strong_ms)
        out: dict[str, Any] = {
            "players": n,
            "rules": self.rules,
            "rounds": len(self.results),
            "seed": self.seed,
            "seats": entries,
            "blocked": sum(1 for r in self.results if r.ending == "blocked"),
            "capped": sum(1 for r in self.results if r.ending == "capped"),
            "mean_turns": round(sum(r.turns for r in self.results) / max(1, len(self.results)), 2),
            "seconds": round(self.seconds, 2),
        }
        if ms:
            out["strong_ms_per_move"] = {
                "p50": round(ms[len(ms) // 2], 3),
                "p99": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 3),
                "moves": len(ms),
            }
        return out


def run(
    names: Sequence[str],
    rules_name: str,
    rounds: int,
    seed: int,
    *,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Play ``rounds`` rounds (heads-up: an even number) and return the report."""
    names = tuple(names)
    for name in names:
        _player(name)
    n = len(names)
    if not 2 <= n <= 4:
        raise ValueError(f"2-4 seats, got {n}")
    rules = Rules.preset(rules_name)
    per = 2 if n == 2 else 1
    if rounds < per or rounds % per:
        raise ValueError(f"heads-up rounds come in pairs (each deal twice): got {rounds}")
    tasks = [(names, rules.to_dict(), seed, d) for d in range(rounds // per)]
    t0 = time.perf_counter()
    results: list[RoundResult] = []
    if jobs > 1:
        from multiprocessing import get_context

        with get_context("fork").Pool(jobs) as pool:
            for res in pool.imap(play_deal, tasks, chunksize=4):
                results.extend(res)
                if progress:
                    progress(len(results), rounds)
    else:
        for task in tasks:
            results.extend(play_deal(task))
            if progress:
                progress(len(results), rounds)
    return Report(names, rules_name, rounds, seed, results, time.perf_counter() - t0)
