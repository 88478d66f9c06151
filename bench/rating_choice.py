"""OpenSkill's Plackett-Luce or Glicko-2: which ranks players better (docs/rating.md, "Why
OpenSkill").

    python -m bench.rating_choice [--players 200] [--matches 30] [--seeds 3] [--json]

Simulated players of known strength (``mu`` drawn around 25 with spread 25/3, the library's
scale) play matches of 2-4 players (each seat's performance: strength plus noise of the
library's beta, 25/6; the finishing order is the performances' order). After each player
has played about ``--matches`` matches, each system's estimates are compared with the true
strengths by

- Kendall's tau between the estimated and the true order of all players (1: the same
  order), and
- the share of the next matches (a held-out set of 2000) whose pairs of seats each system
  orders as they finished (prediction accuracy).

It also counts how many matches a newcomer's ``sigma`` takes to fall below a few
thresholds (the provisional mark, docs/rating.md "Provisional").

Two populations: head-to-head matches only (where Glicko-2 applies as designed), and 2-4
player matches, where Glicko-2 sees each match as its pairwise games (a head-to-head
system's best) and Plackett-Luce sees the finishing order. Glicko-2 is written here from
Glickman's paper (tau 0.5, one rating period per match); the library has none.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardtable.server.rating.public import COMPUTERS, PROVISIONAL_SIGMA, model

BETA = 25.0 / 6.0
SCALE = 173.7178  # Glicko-2's factor between its own scale and the Glicko scale
HELD = 2000
"""Later matches whose pairs each system is asked to order."""


@dataclass
class Glicko:
    """One Glicko-2 rating on its own scale (mu 0, phi 350/173.7178 for a new player)."""

    mu: float = 0.0
    phi: float = 350.0 / SCALE
    sigma: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def glicko_update(p: Glicko, games: Sequence[tuple[Glicko, float]], tau: float = 0.5) -> Glicko:
    """Glickman's Glicko-2 step for one rating period of ``games`` (opponent, score)."""
    v_inv = 0.0
    delta_sum = 0.0
    for o, s in games:
        e = _e(p.mu, o.mu, o.phi)
        g = _g(o.phi)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (s - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    a = math.log(p.sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = p.phi**2 + v + ex
        return ex * (delta**2 - d) / (2 * d * d) - (x - a) / tau**2

    big_a = a
    if delta**2 > p.phi**2 + v:
        big_b = math.log(delta**2 - p.phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    sigma = math.exp(big_a / 2)
    phi_star = math.sqrt(p.phi**2 + sigma**2)
    phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    return Glicko(p.mu + phi * phi * delta_sum, phi, sigma)


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float:
    concordant = discordant = 0
    for i, j in itertools.combinations(range(len(xs)), 2):
        s = (xs[i] - xs[j]) * (ys[i] - ys[j])
        if s > 0:
            concordant += 1
        elif s < 0:
            discordant += 1
    pairs = concordant + discordant
    return (concordant - discordant) / pairs if pairs else 0.0


def schedule(rng: random.Random, n: int, matches: int, sizes: Sequence[int]) -> list[list[int]]:
    """Matches (seat lists) until each player has played about ``matches``."""
    out: list[list[int]] = []
    seats = 0
    while seats < n * matches:
        size = rng.choice(sizes)
        out.append(rng.sample(range(n), size))
        seats += size
    return out


def finish(rng: random.Random, truth: Sequence[float], seats: Sequence[int]) -> list[int]:
    """Finishing ranks (1 first) of ``seats`` from noisy performances."""
    perf = [truth[p] + rng.gauss(0.0, BETA) for p in seats]
    order = sorted(range(len(seats)), key=lambda i: -perf[i])
    ranks = [0] * len(seats)
    for place, i in enumerate(order):
        ranks[i] = place + 1
    return ranks


def run(n: int, matches: int, sizes: Sequence[int], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    truth = [rng.gauss(25.0, 25.0 / 3.0) for _ in range(n)]
    pl = [model.MODEL.rating() for _ in range(n)]
    gl = [Glicko() for _ in range(n)]
    cpu = {"openskill": 0.0, "glicko2": 0.0}
    for seats in schedule(rng, n, matches, sizes):
        ranks = finish(rng, truth, seats)
        t0 = time.perf_counter()
        new = model.MODEL.rate([[pl[p]] for p in seats], ranks=list(ranks))
        for p, team in zip(seats, new, strict=True):
            pl[p] = team[0]
        cpu["openskill"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        before = [gl[p] for p in seats]
        for i, p in enumerate(seats):
            games = [
                (before[j], 1.0 if ranks[i] < ranks[j] else 0.0 if ranks[i] > ranks[j] else 0.5)
                for j in range(len(seats)) if j != i
            ]  # fmt: skip
            gl[p] = glicko_update(before[i], games)
        cpu["glicko2"] += time.perf_counter() - t0
    estimates = {"openskill": [r.mu for r in pl], "glicko2": [g.mu for g in gl]}
    later = [rng.sample(range(n), rng.choice(sizes)) for _ in range(HELD)]
    held = [(s, finish(rng, truth, s)) for s in later]
    out: dict[str, Any] = {"players": n, "matches_each": matches, "sizes": list(sizes)}
    for name, est in estimates.items():
        right = total = 0
        for seats, ranks in held:
            for i, j in itertools.combinations(range(len(seats)), 2):
                total += 1
                right += (est[seats[i]] - est[seats[j]]) * (ranks[j] - ranks[i]) > 0
        out[name] = {
            "kendall_tau": round(kendall_tau(est, truth), 4),
            "pair_accuracy": round(right / total, 4),
            "cpu_ms": round(cpu[name] * 1000, 1),
        }
    return out


def settling(kind: str, threshold: float, seed: int) -> int | None:
    """Matches until a newcomer's sigma falls below ``threshold``: against the normal
    computer at its fixed rating (``cpu``), or at 2 or 4 seats with other players of
    uncertain ratings (sigma drawn from 3 to 25/3); each match's order at random."""
    rng = random.Random(seed)
    me = model.MODEL.rating()
    for i in range(1, 201):
        if kind == "cpu":
            teams = [[me], [model.MODEL.rating(*COMPUTERS["normal"])]]
        else:
            size = int(kind)
            others = [
                [model.MODEL.rating(sigma=rng.uniform(3.0, 25.0 / 3.0))] for _ in range(size - 1)
            ]
            teams = [[me], *others]
        ranks = list(range(1, len(teams) + 1))
        rng.shuffle(ranks)
        me = model.MODEL.rate(teams, ranks=[float(r) for r in ranks])[0][0]
        if me.sigma < threshold:
            return i
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for sizes, label in (((2,), "head-to-head"), ((2, 3, 4), "2-4 players")):
        for matches in (10, args.matches):
            for seed in range(1, args.seeds + 1):
                r = run(args.players, matches, sizes, seed)
                r["population"] = label
                r["seed"] = seed
                results.append(r)
    settle = {
        f"{kind} below {th}": [settling(kind, th, seed) for seed in range(1, args.seeds + 1)]
        for th in (4.5, 5.0, 5.5, 6.0)
        for kind in ("cpu", "2", "4")
    }
    if args.json:
        print(json.dumps({"choice": results, "settling": settle}, indent=2))
        return
    print(f"{'population':14} {'matches':>7} {'seed':>4}  {'PL tau':>7} {'G2 tau':>7}"
          f"  {'PL acc':>7} {'G2 acc':>7}")  # fmt: skip
    for r in results:
        os_, g2 = r["openskill"], r["glicko2"]
        print(
            f"{r['population']:14} {r['matches_each']:>7} {r['seed']:>4}  "
            f"{os_['kendall_tau']:>7} {g2['kendall_tau']:>7}  "
            f"{os_['pair_accuracy']:>7} {g2['pair_accuracy']:>7}"
        )
    print(f"\nMatches until a newcomer's sigma is below the threshold (seeds 1-{args.seeds}; "
          f"the rating's is {PROVISIONAL_SIGMA}):")  # fmt: skip
    for what, counts in settle.items():
        print(f"  {what:16} {counts}")


if __name__ == "__main__":
    main()
