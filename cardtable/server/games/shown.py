"""What a player may see of one of their saved games: the one function through which every
answer that serialises a stored game record passes (SPEC C-8, SE-1; docs/api.md, "Statistics,
history and your data").

- An unfinished game is the game route's own answer (`GET /api/poker-squares/games/{id}`,
  `GET /api/kings-corner/games/{id}`): the engine's ``view(state, seat)`` for the player's
  seat (Poker Squares: seat 0; Kings Corner: the seat whose hand is on show, no hand during
  a hand-off), never the state. No hand but that seat's, no stock order, no card still to
  come, no seed or salt, no match secret.
- A finished game is its saved state in full, its fair seed and salt included (the deal or
  match is over), except a seed and salt that are withheld: a daily deal's (and a practice
  replay of it) stay in the daily's own row until the day ends (docs/daily.md), so the
  state carries only their public form (the commitment).
- The move log of an unfinished game leaves out the integer seed of its deal entry and every
  entry that names a card the view does not show (a computer's card that went back to a
  hand, a past round's card now in the stock or a hand); `moves_complete` says whether
  anything was left out. A finished game's log is exported whole.
- A kind this module does not know, or a saved game that does not load, exports neither
  state nor view nor moves: unknown data is not shown rather than shown by mistake.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from cardtable.fairness import Fair, FairnessError
from cardtable.server.core.errors import ApiError
from cardtable.server.core.store.base import JSON, GameRecord
from cardtable.server.games import service

_CARD = re.compile(r"^(?:10|[A2-9TJQK])[SHDC]$")
_SECRET_KEYS = ("seed",)
"""Keys of a log entry that would deal the rest of an unfinished game (its integer seed)."""


def cards_named(data: Any) -> set[str]:
    """Every card a JSON value names: ``"9H"`` alone, or inside a move such as ``"9H>N"``."""
    found: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            found |= cards_named(k) | cards_named(v)
    elif isinstance(data, list | tuple):
        for v in data:
            found |= cards_named(v)
    elif isinstance(data, str):
        # Ids are URL-safe base64: "-" and "_" do not split a word ("x-QH_y" is no card).
        for token in re.split(r"[^A-Za-z0-9_-]+", data):
            if _CARD.match(token):
                found.add("T" + token[2:] if token.startswith("10") else token)
    return found


def view_of(record: GameRecord) -> JSON | None:
    """The answer the game's own route gives for an unfinished game; None for a kind not
    known here or a game that does not load."""
    try:
        if record.kind == service.PS_KIND:
            return service.ps_render(record).model_dump(mode="json")
        if record.kind == service.KC_KIND:
            return service.kc_render(record).model_dump(mode="json")
    except ApiError:  # a damaged game: shown as nothing
        return None
    return None


def finished_state(record: GameRecord) -> JSON | None:
    """A finished game's saved state, its withheld seed and salt replaced by their public
    form; None for a kind not known here."""
    state = dict(record.state)
    if record.kind == service.PS_KIND:
        raw = state.get("fair")
        if raw is None:
            return state
        try:
            fair = Fair.load(raw)
        except FairnessError:
            state.pop("fair")
            return state
        state["fair"] = fair.public(over=True) | {"withheld": fair.withheld}
        return state
    if record.kind == service.KC_KIND:
        return state  # a finished match: every round over, its secret no longer protects
    return None


def _log(entries: Sequence[JSON], hidden: set[str]) -> tuple[list[JSON], bool]:
    kept: list[JSON] = []
    complete = True
    for entry in entries:
        if cards_named(entry) & hidden:
            complete = False
            continue
        if any(entry.get(k) is not None for k in _SECRET_KEYS):
            entry = {k: v for k, v in entry.items() if k not in _SECRET_KEYS}
            complete = False
        kept.append(entry)
    return kept, complete


def shown(record: GameRecord, log: Sequence[JSON]) -> JSON:
    """The record as its player may see it: ``state`` (finished) or ``view`` (unfinished),
    its move log (``moves``) and whether that log is whole (``moves_complete``)."""
    if record.finished:
        state = finished_state(record)
        if state is None:
            return {"state": None, "view": None, "moves": [], "moves_complete": False}
        return {"state": state, "view": None, "moves": list(log), "moves_complete": True}
    view = view_of(record)
    if view is None:
        return {"state": None, "view": None, "moves": [], "moves_complete": False}
    hidden = cards_named(record.state) - cards_named(view)
    moves, complete = _log(log, hidden)
    return {"state": None, "view": view, "moves": moves, "moves_complete": complete}
