"""`cardtable poker-squares score CARDS... [--table british]`: name and score one hand."""

from __future__ import annotations

import argparse
from typing import Any

from cardtable.cards import Card, CardError
from cardtable.cli.errors import UsageError
from cardtable.poker_squares import TABLES, HandError, classify


def register(sub: Any) -> None:
    ps = sub.add_parser("poker-squares", help="Poker Squares tools")
    ps_sub = ps.add_subparsers(dest="ps_command", metavar="ACTION", required=True)
    score = ps_sub.add_parser(
        "score",
        help="print the hand five cards make and its points",
        description="Name the poker hand of five cards and its points, e.g. "
        "`cardtable poker-squares score TH JH QH KH AH`.",
    )
    score.add_argument("cards", nargs="*", metavar="CARD", help="five cards such as TH 10H 9S")
    score.add_argument("--table", default="american", help="american (default) or british")
    score.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    if args.table not in TABLES:
        raise UsageError(f"unknown table {args.table!r} (choose american or british)")
    try:
        cards = [Card.parse(t) for t in args.cards]
        hand = classify(cards)
    except (CardError, HandError) as exc:
        raise UsageError(str(exc)) from None
    points = TABLES[args.table][hand]
    print(f"{hand.label}: {points} points ({args.table})")
    return 0
