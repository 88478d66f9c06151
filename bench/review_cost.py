"""CPU time of the engine reviews (docs/review.md, docs/analysis.md).

    python -m bench.review_cost --deals 10 --rounds 20

Poker Squares: the first N deals of ``bench/deals/ps-1000.txt``, played by the learned
evaluator alone (a player who errs now and then), each reviewed whole (25 placements and par)
at the review's budget with the hint cache cleared first. Kings Corner: N rounds of three
players (strong, normal, easy; the standard rules) played by the computer players, each
replayed whole (every turn and the strong computer's own turn from each seat's view). Prints
the CPU time of this process (`time.process_time`) per deal / round: mean, max.
"""

from __future__ import annotations

import argparse
import random
import time

from cardtable import kings_corner as kc
from cardtable.cards import Card
from cardtable.kings_corner.cpu import choose_move
from cardtable.kings_corner.replay import replay_round
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint import clear_cache, hint
from cardtable.poker_squares.review import REVIEW_BUDGET, review, visible

from .review_thresholds import DEALS, read_deals

STRENGTHS = ("strong", "normal", "easy")


def evaluator_game(table: str, cards: list[Card]) -> Game:
    game = Game(table, tuple(cards))
    for placed in range(CELLS):
        row, col = hint(visible(game, placed), budget=0)
        game = Game(table, game.cards, (*game.placements, row * 5 + col))
    return game


def kc_round(seed: int) -> tuple[kc.Match, list[str]]:
    start = kc.Match(3, kc.Rules.preset("standard"), 1, seed)
    match, rng = start, random.Random(seed)
    moves: list[str] = []
    for _ in range(3000):
        if match.state.is_over:
            return start, moves
        seat = match.state.to_play
        move = choose_move(match.view(seat), STRENGTHS[seat], rng)
        moves.append(str(move))
        match = match.play(move)
    raise AssertionError("the round did not end")


def summary(name: str, times: list[float]) -> str:
    mean = sum(times) / len(times)
    return f"{name}: {len(times)} runs, CPU mean {mean:.2f} s, max {max(times):.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--table", default="american")
    args = parser.parse_args(argv)
    ps_times: list[float] = []
    for cards in read_deals(max(1, min(args.deals, 1000))):
        game = evaluator_game(args.table, cards)
        clear_cache()  # every review starts cold
        t0 = time.process_time()
        review(game)
        ps_times.append(time.process_time() - t0)
    print(f"deals: {DEALS.name}; budget {REVIEW_BUDGET}; table {args.table}")
    print(summary("Poker Squares review (25 placements + par)", ps_times))
    kc_times: list[float] = []
    turns = 0
    for seed in range(1, max(1, args.rounds) + 1):
        start, moves = kc_round(seed)
        t0 = time.process_time()
        turns += len(replay_round(start, [moves], 1)["turns"])
        kc_times.append(time.process_time() - t0)
    print(summary("Kings Corner round replay (3 players)", kc_times) + f", {turns} turns in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
