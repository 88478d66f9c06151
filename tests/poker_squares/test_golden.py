"""Replay the Poker Squares golden playthroughs (see `regen_golden` for how to regenerate)."""

from __future__ import annotations

import json

import pytest

from cardtable.poker_squares import ENGINE

from .regen_golden import GAMES, GOLDEN_DIR, step, views


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name: str) -> None:
    game = json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))
    state = ENGINE.new(game["seed"], game["options"])
    assert views(state) == game["start"]
    for i, recorded in enumerate(game["steps"]):
        state = step(state, recorded["move"])
        assert views(state) == recorded["views"], f"step {i}: {recorded['move']}"
    assert state.is_over
    assert ENGINE.to_dict(state) == game["final"]
    assert ENGINE.from_dict(game["final"]) == state
