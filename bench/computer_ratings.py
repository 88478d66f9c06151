"""The computers' fixed ratings (docs/rating.md, "Computers"), measured by play between them.

    python -m bench.computer_ratings [--matches 300] [--rounds 1] [--rules standard]
        [--seed 1] [--passes 20]

Plays ``--matches`` computer-only Kings Corner matches (each of 2, 3 or 4 seats in turn,
every seat's strength drawn from easy, normal and strong, at least two different at a
table), with the engine's own computer players exactly as a table's computer seats play
(`choose_move` on each seat's view). Then fits the three strengths with the rating's own
model (OpenSkill's Plackett-Luce, `rating.model`): ``--passes`` passes of its updates over
the matches in a shuffled order, the last pass's ratings kept. Ratings are relative, so
they are shifted to put normal at a new person's mu (25): a newcomer is taken to play like
the normal computer until their own matches say otherwise.

Prints the mean place of each strength, the fitted (mu, sigma) and the points people read,
and the lines to paste into cardtable/server/rating/computers.py. CPU: about a second per
match with a strong seat on one core; 300 matches take a few minutes.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from collections.abc import Sequence

from cardtable.kings_corner import Match, Rules, view
from cardtable.kings_corner.cpu import choose_move
from cardtable.server.rating.public import model, points

STRENGTHS = ("easy", "normal", "strong")


def play_match(strengths: Sequence[str], rules: Rules, rounds: int, seed: int) -> tuple[int, ...]:
    """The penalty totals of one computer-only match."""
    m = Match(len(strengths), rules, rounds, seed)
    rng = random.Random(seed)
    while True:
        while not m.state.is_over:
            seat = m.state.to_play
            m = m.play(choose_move(view(m.state, seat), strengths[seat], rng))
        if m.is_over:
            return m.totals
        m = m.next_round()


def tables(rng: random.Random, matches: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    while len(out) < matches:
        size = 2 + len(out) % 3
        seats = tuple(rng.choice(STRENGTHS) for _ in range(size))
        if len(set(seats)) > 1:
            out.append(seats)
    return out


def fit(played: Sequence[tuple[tuple[str, ...], tuple[int, ...]]], passes: int,
        seed: int) -> dict[str, tuple[float, float]]:  # fmt: skip
    """Each strength's (mu, sigma) by the model, over ``passes`` shuffled passes; a table
    with two seats of one strength rates each seat as its own player, then the strength
    takes their mean."""
    rng = random.Random(seed)
    ratings = {s: model.MODEL.rating() for s in STRENGTHS}
    order = list(played)
    for _ in range(passes):
        rng.shuffle(order)
        for seats, totals in order:
            teams = [[ratings[s]] for s in seats]
            after = model.MODEL.rate(teams, ranks=[float(t) for t in totals])
            new: dict[str, list[tuple[float, float]]] = defaultdict(list)
            for s, team in zip(seats, after, strict=True):
                new[s].append((team[0].mu, team[0].sigma))
            for s, values in new.items():
                mu = sum(v[0] for v in values) / len(values)
                sigma = min(v[1] for v in values)
                ratings[s] = model.MODEL.rating(mu=mu, sigma=sigma)
    shift = model.MODEL.mu - ratings["normal"].mu
    return {s: (r.mu + shift, r.sigma) for s, r in ratings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1, choices=(1, 3, 5))
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passes", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rules = Rules.preset(args.rules)
    played: list[tuple[tuple[str, ...], tuple[int, ...]]] = []
    places: dict[str, list[float]] = defaultdict(list)
    t0 = time.process_time()
    for i, seats in enumerate(tables(rng, args.matches)):
        totals = play_match(seats, rules, args.rounds, args.seed * 1_000_003 + i)
        played.append((seats, totals))
        for s, t in zip(seats, totals, strict=True):
            # Place as a share of the table: 0 first, 1 last (ties share the middle).
            below = sum(1 for u in totals if u < t) + 0.5 * (sum(1 for u in totals if u == t) - 1)
            places[s].append(below / (len(seats) - 1))
    cpu = time.process_time() - t0
    fitted = fit(played, args.passes, args.seed)
    print(f"{args.matches} matches, {args.rounds} round(s), rules {args.rules}, seed "
          f"{args.seed}: {cpu:.0f} s CPU")  # fmt: skip
    for s in STRENGTHS:
        mu, sigma = fitted[s]
        share = sum(places[s]) / len(places[s])
        print(f"  {s:7} seats {len(places[s]):4}  mean place share {share:.3f}  "
              f"mu {mu:6.2f}  sigma {sigma:5.2f}  points {points(mu):6.0f}")  # fmt: skip
    print("\nCOMPUTERS: dict[str, tuple[float, float]] = {")
    for s in STRENGTHS:
        mu, sigma = fitted[s]
        print(f'    "{s}": ({mu:.2f}, {sigma:.2f}),')
    print("}")


if __name__ == "__main__":
    main()
