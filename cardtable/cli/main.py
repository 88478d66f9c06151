"""Entry point of the `cardtable` console script.

Each subcommand lives in its own module exposing `register(subparsers)`; that function adds
its parser and sets `func` (taking the parsed namespace, returning an exit status).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from cardtable import __version__
from cardtable.cli import (
    backup_cmd,
    bench_cmd,
    poker_squares_cmd,
    serve_cmd,
    simulate_cmd,
    verify_cmd,
)
from cardtable.cli.errors import UsageError


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (then exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cardtable",
        description="Kings Corner and Poker Squares: engines, computer players and the site.",
    )
    parser.add_argument("--version", action="version", version=f"cardtable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    poker_squares_cmd.register(sub)
    bench_cmd.register(sub)
    serve_cmd.register(sub)
    backup_cmd.register(sub)
    simulate_cmd.register(sub)
    verify_cmd.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        status: int = func(args)
    except UsageError as exc:
        print(f"cardtable: error: {exc}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":
    sys.exit(main())
