"""Kings Corner engine speed: random-legal-play rounds per second (2 and 4 players) and
`legal_moves` calls per second.

    .venv/bin/python -m bench.kings_corner_engine [--seconds 2.0]

The random player picks uniformly among non-end moves with probability 0.9 and otherwise
ends its turn, under the standard rules; deals and player choices are seeded.
"""

from __future__ import annotations

import argparse
import random
import time

from cardtable.kings_corner import END, Rules, State, deal, legal_moves, play


def random_round(players: int, seed: int, rules: Rules) -> tuple[State, int]:
    rng = random.Random(seed)
    state = deal(players, rules, seed)
    steps = 0
    while not state.is_over:
        ms = legal_moves(state)
        plays = [m for m in ms if not m.is_end]
        keep_playing = plays and (len(plays) == len(ms) or rng.random() < 0.9)
        state = play(state, rng.choice(plays) if keep_playing else END)
        steps += 1
    return state, steps


def rounds_per_second(players: int, seconds: float, rules: Rules) -> tuple[float, float]:
    start = time.perf_counter()
    rounds = steps = 0
    while time.perf_counter() - start < seconds:
        _, n = random_round(players, rounds, rules)
        rounds += 1
        steps += n
    elapsed = time.perf_counter() - start
    return rounds / elapsed, steps / elapsed


def legal_moves_per_second(seconds: float, rules: Rules) -> float:
    # A pool of mid-game positions from seeded random rounds.
    positions: list[State] = []
    for seed in range(20):
        rng = random.Random(seed)
        state = deal(4, rules, seed)
        while not state.is_over:
            positions.append(state)
            ms = legal_moves(state)
            state = play(state, rng.choice(ms))
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for s in positions:
            legal_moves(s)
        calls += len(positions)
    return calls / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args(argv)
    rules = Rules.preset("standard")
    for players in (2, 4):
        rps, sps = rounds_per_second(players, args.seconds, rules)
        print(f"{players} players: {rps:8.1f} random rounds/s ({sps:9.0f} moves/s)")
    print(f"legal_moves: {legal_moves_per_second(args.seconds, rules):9.0f} calls/s")


if __name__ == "__main__":
    main()
