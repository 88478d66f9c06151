"""Paired comparison of two `cardtable bench poker-squares` runs on the same deals.

    python -m bench.poker_squares_hint base.txt other.txt

Each file is the output of one bench run (`<id> <score>` lines, or `<id> <score> <compared
score>` with `--compare`, then the summary lines; the first score is the one read). Deals
present in both files are paired by id; prints each run's mean, sd and se on those deals and
the mean paired difference (other - base) with its standard error. Scores of Poker Squares
spread widely (sd about 30 American, 12 British), so differences between players are only
visible paired on the same deals.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path


def read_scores(path: Path) -> dict[str, int]:
    """Deal id -> score from a bench output (summary and other lines are skipped)."""
    out: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) in (2, 3) and all(p.lstrip("-").isdigit() for p in parts[1:]):
            out[parts[0]] = int(parts[1])
    return out


def stats(xs: list[float]) -> tuple[float, float, float]:
    """(mean, sd, se) of a sample."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return mean, sd, sd / math.sqrt(n)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    base, other = (read_scores(Path(a)) for a in args)
    ids = [i for i in base if i in other]
    if not ids:
        print("no deal ids in common", file=sys.stderr)
        return 1
    for name, run in zip(args, (base, other), strict=True):
        m, sd, se = stats([float(run[i]) for i in ids])
        print(f"{name}: mean {m:.2f} sd {sd:.2f} se {se:.2f} games {len(ids)}")
    m, sd, se = stats([float(other[i] - base[i]) for i in ids])
    print(f"paired difference (second - first): {m:+.2f} se {se:.2f} sd {sd:.2f} games {len(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
