"""Every game the site offers, by name, each through the one game interface.

A new game registers here (its package exports ``ENGINE``, a `cardtable.interface.GameEngine`)
and at once gets the conformance suite in ``tests/conformance/``.
"""

from __future__ import annotations

from typing import Any

from cardtable.interface import GameEngine
from cardtable.kings_corner.api import ENGINE as KINGS_CORNER
from cardtable.poker_squares.api import ENGINE as POKER_SQUARES

ENGINES: dict[str, GameEngine[Any, Any]] = {
    engine.name: engine for engine in (KINGS_CORNER, POKER_SQUARES)
}


def engine(name: str) -> GameEngine[Any, Any]:
    """The game called ``name`` (``"poker-squares"``, ``"kings-corner"``)."""
    try:
        return ENGINES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(ENGINES)})") from None
