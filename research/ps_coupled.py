"""Issue-16 experiment: a coupled correction c(h, F) on the Poker Squares evaluator.

h is the fullness key of `abstract.fullness_key` (sorted card counts of rows and columns); F
is how many of the ten lines are incomplete and can still make a flush (no card, or every card
of one suit). F depends on the next card (a card of another suit closes a line's flush), so
in the lookahead the correction is a matrix (empty cells x next cards), not one scalar per
cell. c is learned like `ps_fullness` (residuals of one-card-lookahead games over the static
value), shrunk towards its h-level mean, itself shrunk towards the time's mean.

    python -m research.ps_coupled learn --table british --games 60000 --jobs 1 --out c.npz
    python -m research.ps_coupled compare --table british --corr c.npz --limit 600 --baseline A.txt

`--baseline` holds `<id> <score>` lines of the engine c is compared with (its correction
replaced by c). Measured in research/NOTEBOOK.md, "Step 17": no gain on either table.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from cardtable.cards import Card
from cardtable.cli.bench_cmd import read_deals
from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint import search, search_look
from cardtable.poker_squares.hint.abstract import (
    MIXED,
    MS_N,
    ValueTable,
    fullness_key,
    line_points,
    load_values,
)
from cardtable.poker_squares.hint.position import COL_OF, ROW_OF, Position
from research import ps_fullness
from research.experiment_cli import games_command, subcommands

NF = 11
SHRINK = 200.0


def flush_open(lms: list[int], lst: list[int]) -> list[int]:
    return [int(MS_N[lms[li]] < 5 and lst[li] != MIXED) for li in range(10)]


def coupled_key(pos: Position) -> int:
    return fullness_key(pos.cells) * NF + sum(flush_open(pos.lms, pos.lst))


def _play_many(job: tuple[str, int, int]) -> tuple[dict[int, float], dict[int, int]]:
    table, games, seed = job
    vt = load_values(table)
    plain = ValueTable(table, vt.fine, vt.coarse, vt.games)
    pts = line_points(table)
    rng = random.Random(seed)
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for _ in range(games):
        deck = rng.sample(range(52), 25)
        pos = Position()
        seen: list[tuple[int, float]] = []
        for p, card in enumerate(deck):
            pos.see(card)
            empty = [c for c in range(25) if pos.cells[c] < 0]
            values, _, _ = search_look.look_values(pos, card, empty, plain, pts)
            pos.put(max(empty, key=lambda c: values[c]), card, pts)
            if p < 24:
                seen.append((coupled_key(pos), search.static_estimate(pos, plain)))
        for k, est in seen:
            sums[k] = sums.get(k, 0.0) + pos.total - est
            counts[k] = counts.get(k, 0) + 1
    return sums, counts


def learn(table: str, games: int, seed: int, jobs: int) -> tuple[dict[int, float], dict[int, int]]:
    share = [games // jobs + (j < games % jobs) for j in range(jobs)]
    work = [(table, share[j], seed * 1000 + j) for j in range(jobs)]
    with multiprocessing.Pool(jobs) as pool:
        parts = pool.map(_play_many, work)
    sums, counts = ps_fullness.merge(parts)
    hs: dict[int, float] = {}
    hc: dict[int, int] = {}
    ts: dict[int, float] = {}
    tc: dict[int, int] = {}
    for k, s in sums.items():
        h = k // NF
        hs[h] = hs.get(h, 0.0) + s
        hc[h] = hc.get(h, 0) + counts[k]
        t = ps_fullness.placed_of(h)
        ts[t] = ts.get(t, 0.0) + s
        tc[t] = tc.get(t, 0) + counts[k]
    gh = {
        h: (s + SHRINK * ts[ps_fullness.placed_of(h)] / tc[ps_fullness.placed_of(h)])
        / (hc[h] + SHRINK)
        for h, s in hs.items()
    }
    out = {k: (s + SHRINK * gh[k // NF]) / (counts[k] + SHRINK) for k, s in sums.items()}
    for h, g in gh.items():  # the h-level value for F's never seen
        out[-1 - h] = g
    return out, counts


class CoupledTable(ValueTable):
    def __init__(self, vt: ValueTable, coupled: dict[int, float]) -> None:
        super().__init__(vt.table, vt.fine, vt.coarse, vt.games)
        self.coupled = coupled
        self.rows: dict[int, npt.NDArray[np.float64]] = {}

    def row(self, h: int) -> npt.NDArray[np.float64]:
        got = self.rows.get(h)
        if got is None:
            base = self.coupled.get(-1 - h, 0.0)
            got = np.array([self.coupled.get(h * NF + f, base) for f in range(NF)])
            self.rows[h] = got
        return got


_static = search.static_estimate
_leaves = search_look.Context.leaves


def _static_coupled(pos: Position, vt: ValueTable) -> float:
    est = _static(pos, vt)
    if isinstance(vt, CoupledTable) and pos.placed < 25:
        est += float(vt.row(fullness_key(pos.cells))[sum(flush_open(pos.lms, pos.lst))])
    return est


def _leaves_coupled(
    self: search_look.Context, pos: Position
) -> tuple[search_look.Vec, npt.NDArray[np.float64], list[int]]:
    best, gains, empt = _leaves(self, pos)
    vt = self.vt
    if not isinstance(vt, CoupledTable) or pos.placed >= 24:
        return best, gains, empt
    lms, lst = pos.lms, pos.lst
    suits = np.array([x // 13 for x in self.xs])
    open_ = flush_open(lms, lst)
    f0 = sum(open_)
    n = len(self.xs)
    stays = []
    for li in range(10):
        if MS_N[lms[li]] + 1 >= 5 or lst[li] == MIXED:
            stays.append(np.zeros(n, dtype=np.intp))
        elif lst[li] == -1:
            stays.append(np.ones(n, dtype=np.intp))
        else:
            stays.append((suits == lst[li]).astype(np.intp))
    halves = search_look.fullness_halves(lms)
    corr = np.empty_like(gains)
    for i, c in enumerate(empt):
        r, k = ROW_OF[c], COL_OF[c]
        fv = f0 - open_[r] - open_[k] + stays[r] + stays[k]
        corr[i] = vt.row(halves[r] * 6**5 + halves[k])[fv]
    new = gains + corr
    return best - gains.max(0) + new.max(0), new, empt


def install() -> None:
    search.static_estimate = _static_coupled
    search_look.Context.leaves = _leaves_coupled  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    ap, sub = subcommands(__doc__)
    games_command(sub, "learn", games=100000, jobs=2)
    cp = sub.add_parser("compare")
    cp.add_argument("--table", choices=sorted(TABLES), required=True)
    cp.add_argument("--corr", type=Path, required=True)
    cp.add_argument("--first", type=int, default=1)
    cp.add_argument("--limit", type=int, default=600)
    cp.add_argument("--budget", type=int, default=9)
    cp.add_argument("--baseline", type=Path, required=True, help="<id> <A score> lines")
    a = ap.parse_args(argv)
    if a.cmd == "learn":
        c, counts = learn(a.table, a.games, a.seed, a.jobs)
        ps_fullness.save(a.out, c, {k: counts.get(k, 0) for k in c}, a.games)
        print(f"wrote {a.out} ({len(c)} keys)", file=sys.stderr)
        return 0
    install()
    vt = CoupledTable(load_values(a.table), ps_fullness.load(a.corr))
    known = {}
    for line in a.baseline.read_text().splitlines():
        p = line.split()
        if len(p) >= 2 and p[-1].lstrip("-").isdigit():
            known[p[0]] = int(p[-1])
    diffs = []
    for deal_id, names in read_deals(Path("bench/deals/ps-1000.txt"))[
        a.first - 1 : a.first - 1 + a.limit
    ]:
        cards = [Card.parse(x).index for x in names]
        b = ps_fullness.play(cards, vt, a.budget)
        diffs.append(b - known[deal_id])
        print(deal_id, b, known[deal_id], flush=True)
    nn = len(diffs)
    m = sum(diffs) / nn
    sd = math.sqrt(sum((x - m) ** 2 for x in diffs) / (nn - 1))
    se = sd / math.sqrt(nn)
    print(f"coupled {a.table} budget {a.budget} games {nn} difference {m:+.2f} se {se:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
