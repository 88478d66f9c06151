"""The command line shared by the Poker Squares trainers (`train`, Monte Carlo self-play one
game at a time, and `train_batch`, the same with numpy over batches of games): their common
options, and writing the trained table."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardtable.poker_squares.hands import TABLES
from cardtable.poker_squares.hint.abstract import ValueTable


def training_args(description: str, games: int) -> argparse.ArgumentParser:
    """The options every trainer takes (`train` and `train_batch`)."""
    ap = argparse.ArgumentParser(description=description.split("\n")[0])
    ap.add_argument("--table", choices=sorted(TABLES), required=True)
    ap.add_argument("--games", type=int, default=games)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epsilon", type=float, default=0.5)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--min-count", type=int, default=3)
    return ap


def write_table(vt: ValueTable, out: Path, started: float) -> None:
    """Writes a trained table and says where, how big, and how long training took."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(vt.to_bytes())
    print(
        f"wrote {out} ({len(vt.fine)} keys, {out.stat().st_size // 1024} KiB) "
        f"in {time.monotonic() - started:.0f}s",
        file=sys.stderr,
    )
