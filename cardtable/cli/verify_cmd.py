"""`cardtable verify`: check a provably fair shuffle offline (docs/fairness.md).

From the values the page shows once a deal or round is over (seed, salt, and the commitment
shown before the first card) it checks that ``SHA-256(seed || salt)`` is the commitment,
recomputes the deck, and checks the cards the player saw: ``--cards`` in the order they were
turned (Poker Squares: the 25 cards, or with ``--any-order`` the grid's cards in any order; a
Poker Squares table's deal alike: its ``result.cards``, or any player's grid with
``--any-order``); the seed, salt and commitment come as arguments or as ``--seed``,
``--salt`` and ``--commitment``;
``--players N --hand CARDS [--seat K]`` for a Kings Corner round, at a local or an online
table alike: the seat's 7 dealt cards must all be in the hand the player was dealt (a hand
seen at the start may also hold the first turn's draw). Exit status 0 when everything
matches, 1 when something does not.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from cardtable.cards import Card, CardError
from cardtable.cli.errors import UsageError
from cardtable.fairness import ALGORITHM, FairnessError, verify

HAND = 7


def register(sub: Any) -> None:
    p = sub.add_parser(
        "verify",
        help="check a provably fair shuffle: commitment, deck and the cards played",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("seed", nargs="?", help="the revealed seed (64 hex digits)")
    p.add_argument("salt", nargs="?", help="the revealed salt (32 hex digits)")
    p.add_argument("commitment", nargs="?", help="the commitment shown before the first card")
    # The same three as options, in any order (a Poker Squares table's end names them so).
    for name in ("seed", "salt", "commitment"):
        p.add_argument(f"--{name}", dest=f"{name}_option", help=f"the {name}, as an option")
    p.add_argument("--cards", help='cards as turned, e.g. "7H QS 2C" (spaces or commas)')
    p.add_argument(
        "--any-order", action="store_true", help="--cards are the first cards in any order"
    )
    p.add_argument("--players", type=int, choices=(2, 3, 4), help="Kings Corner: players")
    p.add_argument("--seat", type=int, default=0, help="Kings Corner: the seat (default 0)")
    p.add_argument("--hand", help="Kings Corner: the seat's hand as dealt")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    p.set_defaults(func=run)


def _cards(text: str | None, what: str) -> list[Card]:
    if not text:
        return []
    try:
        return [Card.parse(t) for t in text.replace(",", " ").split()]
    except CardError as exc:
        raise UsageError(f"{what}: {exc}") from None


def _given(args: argparse.Namespace, name: str) -> str:
    """A value given as the positional argument or as ``--<name>`` (not both)."""
    positional, option = getattr(args, name), getattr(args, f"{name}_option")
    if (positional is None) == (option is None):
        raise UsageError(f"give the {name} once: as an argument or as --{name}")
    return str(positional if option is None else option).strip().lower()


def run(args: argparse.Namespace) -> int:
    seed, salt, committed = (_given(args, n) for n in ("seed", "salt", "commitment"))
    cards = _cards(args.cards, "--cards")
    hand = _cards(args.hand, "--hand")
    if hand and args.players is None:
        raise UsageError("--hand needs --players")
    if args.players is not None and not 0 <= args.seat < args.players:
        raise UsageError(f"--seat must be 0-{args.players - 1}")
    try:
        verdict = verify(seed, salt, committed, () if args.any_order else cards)
    except FairnessError as exc:
        raise UsageError(str(exc)) from None
    deck = verdict.deck
    out: dict[str, Any] = {
        "algorithm": ALGORITHM,
        "commitment_ok": verdict.commitment_ok,
        "cards_ok": verdict.cards_ok,
        "mismatch": verdict.mismatch,
        "deck": [str(c) for c in deck],
    }
    if args.any_order and cards:
        first = set(deck[: len(cards)])
        out["cards_ok"] = set(cards) == first and len(set(cards)) == len(cards)
        if not out["cards_ok"]:
            out["mismatch"] = f"the cards are not the first {len(cards)} of the deck"
    if args.players is not None:
        dealt = deck[args.seat * HAND : (args.seat + 1) * HAND]
        centre = deck[args.players * HAND : args.players * HAND + 4]
        out["dealt_hand"] = [str(c) for c in dealt]
        out["centre"] = [str(c) for c in centre]
        if hand:
            missing = [str(c) for c in dealt if c not in hand]
            out["hand_ok"] = not missing and len(hand) <= HAND + 1
            if missing:
                out["mismatch"] = f"dealt but not in the hand: {' '.join(missing)}"
    ok = out["commitment_ok"] and out["cards_ok"] is not False and out.get("hand_ok") is not False
    out["ok"] = ok
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print(out)
    return 0 if ok else 1


def _print(out: dict[str, Any]) -> None:
    good = {True: "matches", False: "DOES NOT MATCH"}
    print(f"algorithm:  {out['algorithm']}")
    print(f"commitment: {good[out['commitment_ok']]} SHA-256(seed || salt)")
    print(f"deck:       {' '.join(out['deck'])}")
    if "dealt_hand" in out:
        print(f"dealt hand: {' '.join(out['dealt_hand'])}")
        print(f"centre:     {' '.join(out['centre'])} (N E S W before Kings go to corners)")
    for key, what in (("cards_ok", "cards"), ("hand_ok", "hand")):
        if out.get(key) is not None:
            print(f"{what + ':':<11} {good[out[key]]}")
    if out["mismatch"]:
        print(f"mismatch:   {out['mismatch']}")
    print("VERIFIED" if out["ok"] else "NOT VERIFIED")
