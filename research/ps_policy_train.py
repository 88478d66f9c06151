"""Issue-16 experiment: retrain the line values on the lookahead's own choices.

The shipped values are learned from epsilon-greedy self-play, so they estimate what the
*greedy* policy makes of a line; the hint plays a one- and two-card lookahead, a better policy.
This starts from the shipped table and continues Monte Carlo training (`train.Trainer`, the
same keys and running mean) with every card placed by the one-card lookahead over all cells
(`search_look.look_values`, with the values as they are being learned), so the values move
towards what the played policy makes of each line.

    python -m research.ps_policy_train --table american --games 10000 --seed 7 --out am-look1.npz

Then compare it with the shipped table at the interactive budget (`research/ps_tables.py`).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable, line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import best_cell, cell_classes
from cardtable.poker_squares.hint.search_look import look_values
from training.train import Chooser, Trainer


def from_table(vt: ValueTable, horizon: int) -> Trainer:
    """A trainer whose values start at a learned table's, each as if seen `horizon` times (so
    every later observation moves it by the floor step 1/horizon)."""
    tr = Trainer(vt.table, horizon)
    tr.values = dict(vt.fine)
    tr.counts = dict.fromkeys(vt.fine, horizon)
    tr.refresh()
    return tr


def lookahead(tr: Trainer) -> Chooser:
    """The one-card lookahead over every cell (one per symmetry class) on the live values."""
    pts = line_points(tr.table)

    def choose(pos: Position, card: int, empties: list[int]) -> int:
        if len(empties) == 1:
            return empties[0]
        est, _, _ = look_values(pos, card, list(cell_classes(pos)), tr.snapshot, pts)
        return best_cell(est)

    return choose


def run(
    table: str, games: int, seed: int, horizon: int, min_count: int, initial: Path | None = None
) -> ValueTable:
    """`games` games of lookahead play, training from `initial` (a table file; default the
    shipped table)."""
    if initial is None:
        vt = load_values(table)
    else:
        vt = ValueTable.from_bytes(table, initial.read_bytes())
    tr = from_table(vt, horizon)
    choose = lookahead(tr)
    rng = random.Random(seed)
    start = time.monotonic()
    window: list[int] = []
    for g in range(games):
        if g % 500 == 0:
            tr.refresh()
        window.append(tr.play(rng, 0.0, choose))
        if (g + 1) % 500 == 0:
            print(
                f"{table} games {g + 1} mean(last 500) {sum(window) / len(window):.1f} "
                f"keys {len(tr.values)} {time.monotonic() - start:.0f}s",
                file=sys.stderr,
                flush=True,
            )
            window.clear()
    return tr.table_out(min_count)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--horizon", type=int, default=1000)
    ap.add_argument("--min-count", type=int, default=3)
    ap.add_argument("--start", type=Path, default=None, help="start from this table file")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    vt = run(args.table, args.games, args.seed, args.horizon, args.min_count, args.start)
    args.out.write_bytes(vt.to_bytes())
    print(f"wrote {args.out} ({len(vt.fine)} keys)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
