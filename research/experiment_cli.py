"""Command-line pieces shared by the Poker Squares experiments in `research/` that play many
self-play games and write what they learned (`ps_fullness`, `ps_coupled`, `ps_search_values`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from cardtable.poker_squares.hands import TABLES


def subcommands(doc: str | None) -> tuple[argparse.ArgumentParser, Any]:
    """A parser described by the first line of `doc`, and its required subcommands."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    return ap, ap.add_subparsers(dest="cmd", required=True)


def games_command(sub: Any, name: str, *, games: int, jobs: int) -> argparse.ArgumentParser:
    """A subcommand that plays games: --table, --games, --seed, --jobs and --out."""
    p: argparse.ArgumentParser = sub.add_parser(name)
    p.add_argument("--table", choices=sorted(TABLES), required=True)
    p.add_argument("--games", type=int, default=games)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=jobs)
    p.add_argument("--out", type=Path, required=True)
    return p
