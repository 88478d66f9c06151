"""Versioned JSON for states (``"format": "kings-corner/1"``), validated on load.

`dump` and `load` work on a round's fields (`Fields`, the arguments of `State` in order),
so this module needs no `State` and `State.to_dict` / `State.from_dict` use it directly.

The saved form carries the undo history of the current turn, so undo still works after a
save and load. Loading refuses an unknown format, unknown or duplicate cards, badly built
piles, wrong sizes and inconsistent endings with a `StateError` naming the problem.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._tables import PILE_NAMES, TEXT
from .position import (
    BLOCKED,
    RUNNING,
    WENT_OUT,
    Hand,
    Piles,
    Snapshot,
    StateError,
    card_codes,
    check_position,
    is_blocked,
    piles_from_names,
)
from .rules import Rules, RulesError

FORMAT = "kings-corner/1"
_ENDINGS = {None: RUNNING, "out": WENT_OUT, "blocked": BLOCKED}
_ENDING_NAMES = {v: k for k, v in _ENDINGS.items()}
_KEYS = {
    "format", "rules", "players", "to_play", "turn", "hands", "piles", "stock", "undo",
    "ending", "last_draw",
}  # fmt: skip


class Fields(NamedTuple):
    """A round's fields in the order `State` takes them."""

    rules: Rules
    players: int
    to_play: int
    turn: int
    hands: tuple[Hand, ...]
    piles: Piles
    stock: Hand
    undo: tuple[Snapshot, ...]
    outcome: int
    drawn: tuple[int, int] | None


def _cards(cards: Hand) -> list[str]:
    return [TEXT[c] for c in cards]


def _piles(piles: Piles) -> dict[str, list[str]]:
    return {n: _cards(p) for n, p in zip(PILE_NAMES, piles, strict=True)}


def dump(f: Fields) -> dict[str, Any]:
    """The saved form of a round."""
    return {
        "format": FORMAT,
        "rules": f.rules.to_dict(),
        "players": f.players,
        "to_play": f.to_play,
        "turn": f.turn,
        "hands": [_cards(h) for h in f.hands],
        "piles": _piles(f.piles),
        "stock": _cards(f.stock),
        "undo": [{"hand": _cards(h), "piles": _piles(p)} for h, p in f.undo],
        "ending": _ENDING_NAMES[f.outcome],
        "last_draw": None if f.drawn is None else [f.drawn[0], TEXT[f.drawn[1]]],
    }


def load(d: Any) -> Fields:
    """A saved round's fields, validated; `StateError` says what is wrong."""
    if not isinstance(d, dict):
        raise StateError(f"a saved state must be an object, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise StateError(f"unknown save format {d.get('format')!r} (expected {FORMAT!r})")
    if set(d) != _KEYS:
        raise StateError(
            f"saved state keys differ: missing {_KEYS - set(d)}, extra {set(d) - _KEYS}"
        )
    try:
        rules = Rules.from_dict(d["rules"])
    except RulesError as e:
        raise StateError(f"bad rules: {e}") from None
    players, to_play, turn = d["players"], d["to_play"], d["turn"]
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise StateError(f"players must be 2-4, got {players!r}")
    if not isinstance(to_play, int) or not 0 <= to_play < players:
        raise StateError(f"to_play must be a seat 0-{players - 1}, got {to_play!r}")
    if not isinstance(turn, int) or isinstance(turn, bool) or turn < 1:
        raise StateError(f"turn must be a positive integer, got {turn!r}")
    if not isinstance(d["hands"], list) or len(d["hands"]) != players:
        raise StateError(f"hands must be a list of {players} hands")
    hands = tuple(tuple(card_codes(h, f"hand {i}")) for i, h in enumerate(d["hands"]))
    piles = piles_from_names(d["piles"])
    stock = tuple(card_codes(d["stock"], "stock"))
    check_position(hands, piles, stock)
    if d["ending"] not in _ENDINGS:
        raise StateError(f"ending must be null, 'out' or 'blocked', got {d['ending']!r}")
    outcome = _ENDINGS[d["ending"]]
    went_out = any(not h for h in hands)
    if went_out != (outcome == WENT_OUT):
        raise StateError("ending 'out' must go with an empty hand, and only with one")
    if outcome == BLOCKED and (stock or not is_blocked(hands, piles, rules.pile_moves)):
        raise StateError("ending 'blocked' but a card or pile move can still be played")
    undo = _load_undo(d["undo"], hands[to_play], piles)
    if outcome != RUNNING and undo:
        raise StateError("a finished round has no undo history")
    drawn = _load_draw(d["last_draw"], players)
    return Fields(rules, players, to_play, turn, hands, piles, stock, undo, outcome, drawn)


def _load_undo(raw: Any, hand: Hand, piles: Piles) -> tuple[Snapshot, ...]:
    if not isinstance(raw, list):
        raise StateError("undo must be a list")
    # In-turn actions only move the player's hand cards and pile cards around.
    current = sorted(hand + tuple(c for p in piles for c in p))
    out: list[Snapshot] = []
    for i, snap in enumerate(raw):
        if not isinstance(snap, dict) or set(snap) != {"hand", "piles"}:
            raise StateError(f"undo step {i} must have hand and piles")
        h = tuple(card_codes(snap["hand"], f"undo step {i} hand"))
        p = piles_from_names(snap["piles"])
        check_position((h,), p, ())
        if sorted(h + tuple(c for q in p for c in q)) != current:
            raise StateError(f"undo step {i} holds different cards from the current turn")
        out.append((h, p))
    return tuple(out)


def _load_draw(raw: Any, players: int) -> tuple[int, int] | None:
    if raw is None:
        return None
    if not (isinstance(raw, list) and len(raw) == 2 and isinstance(raw[0], int)):
        raise StateError(f"last_draw must be [seat, card] or null, got {raw!r}")
    if not 0 <= raw[0] < players:
        raise StateError(f"last_draw seat out of range: {raw[0]!r}")
    return (raw[0], card_codes([raw[1]], "last_draw")[0])
