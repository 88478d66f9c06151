"""Daily fair play: both error rates of the check, and what a player who reads it can reach.

    python -m bench.daily_fairplay play --table T --players P --deals N --out F.npz [--calibration]
    python -m bench.daily_fairplay read --entries F.npz [...]
    python -m bench.daily_fairplay fit --table T --clairvoyant C.npz --honest E.npz N.npz \
        [--out M.json]
    python -m bench.daily_fairplay judge --entries F.npz [...] [--model M.json]
    python -m bench.daily_fairplay adaptive --table T --deals N --engine E.npz [--model M.json]

Players (``play``; docs/daily.md, "Fair play"):

- ``clairvoyant``: knows the whole order and places the cards on the best grid a local search
  over them finds (`daily_cheaters.clairvoyant`). It scores far above the hint engine.
- ``engine``: the hint engine, reading the view only, at ``--budget`` (0: its learned
  evaluator alone).
- ``noisy``: a human-like player: the hint's cell 60% of the time, else the 2nd or 3rd best
  cell by the same estimates (seeded per deal, so a run is reproducible).

``play`` saves one player's entries (cards, placements, totals; every 25 entries, so a
stopped run keeps what it played) on the measured deals (``bench/deals/ps-1000.txt``) or, with
``--calibration``, on deals shuffled from seeds 1,000,001 on (``--first-seed 2000001``: the
fresh deals, for figures no choice of the model has seen). ``read`` adds each entry's
reading (`fairplay_reading`) to its file (``F.read.npz``). ``fit`` fits the check's linear
score on calibration readings (a logistic regression, the clairvoyant against the honest
players) and sets its threshold at the highest ``--quantile`` of
the honest players' scores. ``judge`` prints how many entries the check holds, with its CPU.
``adaptive`` plays a clairvoyant who knows the check (`daily_cheaters.adaptive`) and prints
the mean of its best passing totals beside the engine's 99th-percentile score on the same
deals. One process; no parallelism (the development machine's two cores are shared).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.daily_cheaters import adaptive, clairvoyant, honest, ranked
from cardtable.cards import DECK, Card, shuffled_deck
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint import INTERACTIVE_BUDGET, clear_cache
from cardtable.server.daily.public import fairplay, fairplay_reading

DEALS = Path(__file__).parent / "deals" / "ps-1000.txt"
CALIBRATION_SEED = 1_000_001
PLAYERS = ("clairvoyant", "engine", "noisy")
MODEL_DIR = Path(fairplay.__file__).parent / "data"


def measured_deals(n: int) -> list[list[Card]]:
    lines = DEALS.read_text(encoding="utf-8").splitlines()[:n]
    return [[Card.parse(t) for t in line.split()[1:]] for line in lines]


def calibration_deals(n: int, first: int = CALIBRATION_SEED) -> list[list[Card]]:
    return [shuffled_deck(random.Random(first + i))[:CELLS] for i in range(n)]


def engine(table: str, cards: Sequence[Card], budget: int) -> list[int]:
    return honest(table, cards, [], CELLS, budget)


def noisy(table: str, cards: Sequence[Card], budget: int, rng: random.Random) -> list[int]:
    """The hint's cell 60% of the time, else the 2nd or 3rd best (when there are that many)."""
    cells: list[int] = []
    for _ in range(CELLS):
        order = ranked(table, cards, cells, budget)
        pick = 0
        if len(order) > 1 and rng.random() >= 0.6:
            pick = rng.choice((1, 2)) if len(order) > 2 else 1
        cells.append(order[pick][1])
    return cells


def play(
    who: str, table: str, cards: Sequence[Card], i: int, args: argparse.Namespace
) -> list[int]:
    if who == "clairvoyant":
        return clairvoyant(table, cards, args.steps)
    if who == "engine":
        return engine(table, cards, args.budget)
    return noisy(table, cards, args.budget, random.Random(7_000_000 + i))


def _save(path: Path, **arrays: object) -> None:
    """Write through a temporary file, so a stopped run leaves the last whole file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.stem + ".part.npz")
    np.savez(part, **arrays)  # type: ignore[arg-type]
    part.replace(path)


def save_entries(
    who: str, table: str, deals: list[list[Card]], args: argparse.Namespace, out: Path
) -> None:
    """Play every deal as ``who`` and save the entries (cards, placements, totals)."""
    cards = np.array([[c.index for c in d[:CELLS]] for d in deals], dtype=np.int16)
    cells = np.zeros((len(deals), CELLS), dtype=np.int16)
    totals = np.zeros(len(deals), dtype=np.int32)
    t = time.perf_counter()
    for i, deal in enumerate(deals):
        cells[i] = play(who, table, deal, i, args)
        totals[i] = Game(table, tuple(deal[:CELLS]), tuple(int(c) for c in cells[i])).total
        if (i + 1) % 25 == 0 or i + 1 == len(deals):
            print(f"  {who}: {i + 1}/{len(deals)} {time.perf_counter() - t:.0f} s", flush=True)
            n = i + 1
            _save(
                out,
                cards=cards[:n],
                placements=cells[:n],
                totals=totals[:n],
                player=who,
                table=table,
            )


def entries(path: Path) -> tuple[str, str, list[tuple[list[Card], list[int]]]]:
    data = np.load(path)
    rows = [
        ([DECK[int(c)] for c in cards], [int(c) for c in cells])
        for cards, cells in zip(data["cards"], data["placements"], strict=True)
    ]
    return str(data["table"]), str(data["player"]), rows


def read_path(path: Path) -> Path:
    return path.with_name(path.stem + ".read.npz")


def read_entries(path: Path) -> float:
    """Save the feature vector of every entry of ``path`` (``F.read.npz``); CPU per entry."""
    table, who, rows = entries(path)
    feats = np.zeros((len(rows), len(fairplay.feature_names())))
    cpu = 0.0
    for i, (cards, cells) in enumerate(rows):
        t0 = time.process_time()
        feats[i] = fairplay.features(fairplay_reading.read(table, cards, cells))
        cpu += time.process_time() - t0
    _save(read_path(path), features=feats, player=who, table=table)
    return cpu / max(1, len(rows))


def _features(path: Path) -> np.ndarray:
    rp = read_path(path)
    if not rp.exists():
        read_entries(path)
    return np.asarray(np.load(rp)["features"], dtype=float)


def logistic(a: np.ndarray, b: np.ndarray, l2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logistic regression of ``a`` (1) against ``b`` (0), each side weighing half, on
    standardised features with an L2 penalty, by Newton's method: (center, scale, weights)."""
    both = np.concatenate([a, b])
    center = both.mean(0)
    scale = both.std(0) + 1e-6
    z = np.c_[(both - center) / scale, np.ones(len(both))]
    y = np.r_[np.ones(len(a)), np.zeros(len(b))]
    weigh = np.where(y == 1, 0.5 / len(a), 0.5 / len(b))
    penalty = l2 * np.r_[np.ones(z.shape[1] - 1), 0.0]
    w = np.zeros(z.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(z @ w)))
        grad = z.T @ (weigh * (p - y)) + penalty * w
        hess = (z * (weigh * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return center, scale, w[:-1]


FOLDS = 5


def fit(
    table: str, clair: Path, honest: Sequence[Path], quantile: float, l2: float
) -> fairplay.Model:
    """`logistic`, the clairvoyant against every honest player, on all the calibration
    entries. The threshold is the highest ``quantile`` of each honest player's scores
    *out of fold* (each entry scored by a model fitted on the other `FOLDS` - 1 parts): scores
    of the entries a model was fitted on sit too far from the boundary, so their quantile
    would hold more new honest entries than it says."""
    a = _features(clair)
    hs = [_features(p) for p in honest]
    center, scale, weights = logistic(a, np.concatenate(hs), l2)
    fold = [np.arange(len(x)) % FOLDS for x in (a, *hs)]
    out = [np.zeros(len(h)) for h in hs]
    for f in range(FOLDS):
        keep = [x[fold[i] != f] for i, x in enumerate((a, *hs))]
        c, s, w = logistic(keep[0], np.concatenate(keep[1:]), l2)
        for i, h in enumerate(hs):
            held_out = fold[i + 1] == f
            out[i][held_out] = ((h[held_out] - c) / s) @ w
    threshold = max(float(np.quantile(oof, quantile)) for oof in out)
    return fairplay.Model(table, center, scale, weights, threshold)


def model_for(table: str, path: Path | None) -> fairplay.Model:
    if path is None:
        return fairplay.load_model(table)
    return fairplay.parse_model(path.read_text(encoding="utf-8"))


def judge_entries(path: Path, model_path: Path | None) -> None:
    """Print how many of the entries the check holds (the shipped model unless given one)."""
    table, who, rows = entries(path)
    model = model_for(table, model_path)
    held = 0
    zs: list[float] = []
    scores: list[float] = []
    totals: list[int] = []
    cpu = 0.0
    for cards, cells in rows:
        clear_cache()
        t0 = time.process_time()
        v = fairplay.verdict(fairplay_reading.read(table, cards, cells), model)
        cpu += time.process_time() - t0
        held += v.held
        zs.append(v.z)
        scores.append(v.score)
        totals.append(v.total)
    n = len(rows)
    print(
        f"  {table:8s} {who:12s} {path.name:28s} entries {n:5d}  total mean "
        f"{statistics.fmean(totals):6.1f}  luck z mean {statistics.fmean(zs):5.2f}  score "
        f"mean {statistics.fmean(scores):6.2f} (threshold {model.threshold:.2f})  "
        f"held {held}/{n} ({100 * held / n:.1f}%)  CPU {1000 * cpu / n:.1f} ms/entry",
        flush=True,
    )


def engine_totals(path: Path) -> np.ndarray:
    """The engine's totals on the measured deals, in deal order: saved entries (``.npz``) or
    the lines ``<deal> <total>`` that ``cardtable bench poker-squares`` prints."""
    if path.suffix == ".npz":
        return np.asarray(np.load(path)["totals"], dtype=float)
    rows = [line.split() for line in path.read_text(encoding="utf-8").splitlines()]
    got = sorted((int(r[0]), float(r[1])) for r in rows if len(r) == 2 and r[0].isdigit())
    return np.array([t for _, t in got])


def run_adaptive(
    table: str, deals: list[list[Card]], engine_path: Path, model_path: Path | None
) -> None:
    model = model_for(table, model_path)
    eng = engine_totals(engine_path)
    p99 = float(np.quantile(eng, 0.99))
    best: list[int] = []
    t = time.perf_counter()
    for i, cards in enumerate(deals):

        def passes(cells: list[int], cards: list[Card] = cards) -> bool:
            return not fairplay.verdict(fairplay_reading.read(table, cards, cells), model).held

        cells, _ = adaptive(table, cards, passes)
        best.append(Game(table, tuple(cards[:CELLS]), tuple(cells)).total)
        if (i + 1) % 10 == 0 or i + 1 == len(deals):
            m = statistics.fmean(best)
            se = statistics.stdev(best) / len(best) ** 0.5 if len(best) > 1 else 0.0
            print(
                f"  adaptive {table}: {i + 1}/{len(deals)} deals, best passing total mean "
                f"{m:.1f} (se {se:.1f}); engine on the same deals: mean "
                f"{float(eng[: i + 1].mean()):.1f}, 99th percentile of all {len(eng)} {p99:.0f}; "
                f"{time.perf_counter() - t:.0f} s",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("play", "read", "fit", "judge", "adaptive"))
    parser.add_argument("--table", choices=("american", "british"), default="american")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--budget", type=int, default=INTERACTIVE_BUDGET)
    parser.add_argument("--steps", type=int, default=40_000)
    parser.add_argument("--out", type=Path, help="play: entries; fit: the model (.json)")
    parser.add_argument("--calibration", action="store_true", help="play: calibration deals")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=CALIBRATION_SEED,
        help="play --calibration: the first deal's seed (2000001: the fresh test deals)",
    )
    parser.add_argument("--entries", type=Path, nargs="*", help="read, judge: saved entries")
    parser.add_argument("--clairvoyant", type=Path, help="fit: clairvoyant calibration entries")
    parser.add_argument("--honest", type=Path, nargs="*", help="fit: honest calibration entries")
    parser.add_argument("--quantile", type=float, default=0.998)
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument(
        "--model", type=Path, help="judge, adaptive: a model instead of the shipped"
    )
    parser.add_argument(
        "--engine", type=Path, help="adaptive: the engine's totals (entries .npz or bench text)"
    )
    args = parser.parse_args(argv)
    w0 = time.perf_counter()
    if args.mode == "play":
        players = [p for p in args.players.split(",") if p]
        if args.calibration:
            deals = calibration_deals(args.deals, args.first_seed)
        else:
            deals = measured_deals(args.deals)
        if len(players) != 1 or args.out is None:
            parser.error("play takes one player and --out")
        save_entries(players[0], args.table, deals, args, args.out)
    elif args.mode == "read":
        for path in args.entries or ():
            print(f"  {path.name}: {1000 * read_entries(path):.1f} ms of CPU per entry")
    elif args.mode == "fit":
        if args.clairvoyant is None or not args.honest:
            parser.error("fit takes --clairvoyant and --honest")
        model = fit(args.table, args.clairvoyant, args.honest, args.quantile, args.l2)
        out = args.out or MODEL_DIR / f"fairplay-{args.table}.json"
        provenance = {
            "command": "python -m bench.daily_fairplay fit",
            "clairvoyant": args.clairvoyant.name,
            "honest": [p.name for p in args.honest],
            "quantile": args.quantile,
            "l2": args.l2,
        }
        out.write_text(model.to_json(provenance) + "\n", encoding="utf-8")
        print(f"  wrote {out} (threshold {model.threshold:.2f})")
    elif args.mode == "judge":
        for path in args.entries or ():
            judge_entries(path, args.model)
    else:
        if args.engine is None:
            parser.error("adaptive takes --engine")
        run_adaptive(args.table, measured_deals(args.deals), args.engine, args.model)
    load = os.getloadavg()
    print(f"wall {time.perf_counter() - w0:.0f} s; load average {load[0]:.1f} {load[1]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
