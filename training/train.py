"""Learn the line-value tables of the hint engine by Monte Carlo self-play.

    python -m training.train --table american --seed 1 --games 200000

Plays seeded random deals with an epsilon-greedy policy over the current values (epsilon
starts at `--epsilon` and decays to 0 over the run); after each game every abstract line key
that occurred is moved towards that line's final points (running mean, step size bounded
below by 1/`--horizon` so that values follow the improving policy). Writes
`cardtable/poker_squares/data/values-<table>.npz` (or `--out`). The same seed and game count
give the same file. Timing on the development machine is in docs/hint-engine.md.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cardtable.poker_squares
from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_ADD,
    MS_N,
    TB,
    ValueTable,
    data_name,
    line_key,
    line_points,
)
from cardtable.poker_squares.hint.position import COL_OF, ROW_OF, Position
from training.cli import training_args, write_table

DATA_DIR = Path(cardtable.poker_squares.__file__).with_name("data")
"""Where the hint reads its shipped tables (`abstract.load_values`): the default `--out`."""
Chooser = Callable[[Position, int, list[int]], int]
"""A policy for `Trainer.play`: (position with the card seen, card, empty cells) -> cell."""


class Trainer:
    """Accumulates running-mean values per abstract key."""

    def __init__(self, table: str, horizon: int = 2000, lam: float = 1.0) -> None:
        self.table = table
        self.lam = lam
        self.pts = line_points(table)
        self.values: dict[int, float] = {}
        self.counts: dict[int, int] = {}
        self.horizon = horizon
        self.games = 0
        self.snapshot = ValueTable(table, {}, {})

    def refresh(self) -> None:
        """Rebuild the fallback (coarse) values used for keys not yet seen."""
        snap = ValueTable.from_counts(self.table, self.values, self.counts)
        self.snapshot = ValueTable(self.table, self.values, snap.coarse)

    def play(self, rng: random.Random, epsilon: float, choose: Chooser | None = None) -> int:
        """One self-play game; updates the values. Returns the final total.

        `choose(pos, card, empties)`, if given, picks the cell instead of the greedy rule
        (when not exploring): training on the values of the policy that is actually played.
        """
        deck = list(range(52))
        rng.shuffle(deck)
        pos = Position()
        pts = self.pts
        cells = pos.cells
        seen: list[tuple[int, int]] = []  # (key, line) of every after-state, in play order
        for p in range(25):
            card = deck[p]
            pos.see(card)
            old_k, new_k, d = self._deltas(pos, card, TB[p])
            empties = [c for c in range(25) if cells[c] < 0]
            if p < 24 and rng.random() < epsilon:
                cell = empties[rng.randrange(len(empties))]
            elif choose is not None:
                cell = choose(pos, card, empties)
            else:
                cell = _greedy_cell(empties, d)
            pos.put(cell, card, pts)
            a = ROW_OF[cell]
            b = COL_OF[cell]
            for li in range(10):
                k = new_k[li] if li in (a, b) else old_k[li]
                if k >= 0:
                    seen.append((k, li))
        finals = [pts[2 * pos.lms[li] + (pos.lst[li] != MIXED)] for li in range(10)]
        if self.lam < 1.0:
            self._learn_td(seen, finals)
        else:
            self._learn_mc(seen, finals)
        self.games += 1
        return pos.total

    def _deltas(
        self, pos: Position, card: int, tb: int
    ) -> tuple[list[int], list[int], list[float]]:
        """For each line, before `card` is placed: its key now (-1: full), its key with `card`
        added (-1: full, or completed by the card) and how much its value would gain (-1e9
        for a full line), read from the values as they stand and the snapshot's fallback."""
        pts = self.pts
        fine = self.values
        value = self.snapshot.value
        lms = pos.lms
        lst = pos.lst
        r = card % 13 + 1
        s = card // 13
        ru = pos.ru
        su = pos.su
        avail = pos.avail
        mask = pos.mask
        old_k = [-1] * 10
        new_k = [-1] * 10
        d = [-1e9] * 10
        for li in range(10):
            ms = lms[li]
            if MS_N[ms] == 5:
                continue
            is_col = 1 if li >= 5 else 0
            st = lst[li]
            k = line_key(is_col, tb, ms, st, ru, su, avail, mask)
            old_k[li] = k
            old = fine.get(k)
            if old is None:
                old = value(k)
            ms2 = MS_ADD[ms * 14 + r]
            st2 = s if st == -1 else (st if st == s else MIXED)
            if MS_N[ms2] == 5:
                new = float(pts[2 * ms2 + (st2 != MIXED)])
            else:
                k = line_key(is_col, tb, ms2, st2, ru, su, avail, mask)
                new_k[li] = k
                v = fine.get(k)
                new = value(k) if v is None else v
            d[li] = new - old
        return old_k, new_k, d

    def _learn_mc(self, seen: list[tuple[int, int]], finals: list[int]) -> None:
        """The update after a game, Monte Carlo: every after-state key moves towards its
        line's final points."""
        fine = self.values
        counts = self.counts
        horizon = self.horizon
        for k, li in seen:
            n = counts.get(k, 0) + 1
            counts[k] = n
            g = finals[li]
            if n == 1:
                fine[k] = float(g)
            else:
                fine[k] += (g - fine[k]) / (n if n < horizon else horizon)

    def _learn_td(self, seen: list[tuple[int, int]], finals: list[int]) -> None:
        """The update after a game, TD(lambda) on each line's sequence of after-state keys:
        the target of a key is the lambda-return, (1 - lambda) * the next key's value +
        lambda * its target, computed backwards from the line's final points (lambda 1 would be
        `_learn_mc`)."""
        fine = self.values
        value = self.snapshot.value
        counts = self.counts
        horizon = self.horizon
        lam = self.lam
        targets = [0.0] * len(seen)
        ret = [float(g) for g in finals]
        for j in range(len(seen) - 1, -1, -1):
            k, li = seen[j]
            targets[j] = ret[li]
            v = fine.get(k)
            if v is None:
                v = value(k)
            ret[li] = (1.0 - lam) * v + lam * ret[li]
        for j, (k, _li) in enumerate(seen):
            n = counts.get(k, 0) + 1
            counts[k] = n
            g = targets[j]
            if n == 1:
                fine[k] = g
            else:
                fine[k] += (g - fine[k]) / (n if n < horizon else horizon)

    def table_out(self, min_count: int) -> ValueTable:
        return ValueTable.from_counts(
            self.table, self.values, self.counts, min_count=min_count, games=self.games
        )


def _greedy_cell(empties: list[int], d: list[float]) -> int:
    """The greedy rule: the empty cell whose row and column gain the most (`Trainer._deltas`),
    the first such cell on ties."""
    cell = empties[0]
    bv = -1e18
    for c in empties:
        v = d[ROW_OF[c]] + d[COL_OF[c]]
        if v > bv:
            bv = v
            cell = c
    return cell


def train(
    table: str,
    games: int,
    seed: int,
    *,
    epsilon: float = 0.5,
    horizon: int = 2000,
    min_count: int = 3,
    lam: float = 1.0,
    log: bool = True,
) -> ValueTable:
    """Self-play `games` games from `seed`; the learned table."""
    rng = random.Random(seed)
    tr = Trainer(table, horizon, lam)
    start = time.monotonic()
    window: list[int] = []
    explore_until = max(1, int(games * 0.8))
    for g in range(games):
        if g % 2000 == 0:
            tr.refresh()
        frac = g / explore_until
        eps = epsilon * (1.0 - frac) ** 2 if frac < 1.0 else 0.0
        window.append(tr.play(rng, eps))
        if log and (g + 1) % 10000 == 0:
            mean = sum(window) / len(window)
            window.clear()
            print(
                f"{table} games {g + 1} eps {eps:.3f} mean(last 10k) {mean:.1f} "
                f"keys {len(tr.values)} {time.monotonic() - start:.0f}s",
                file=sys.stderr,
                flush=True,
            )
    return tr.table_out(min_count)


def main(argv: list[str] | None = None) -> int:
    ap = training_args(__doc__ or "", 200000)
    ap.add_argument(
        "--lam", type=float, default=1.0, help="TD(lambda) targets; 1 (default): Monte Carlo"
    )
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    start = time.monotonic()
    vt = train(
        args.table,
        args.games,
        args.seed,
        epsilon=args.epsilon,
        horizon=args.horizon,
        min_count=args.min_count,
        lam=args.lam,
    )
    write_table(vt, args.out or DATA_DIR / data_name(args.table), start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
