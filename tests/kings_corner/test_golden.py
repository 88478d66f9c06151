"""Replay the golden playthroughs (see `regen_golden` for how to regenerate them)."""

from __future__ import annotations

import json

import pytest

from cardtable.kings_corner import Rules, State, deal

from .regen_golden import GAMES, GOLDEN_DIR, step, views


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name: str) -> None:
    game = json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))
    state = deal(game["players"], Rules.preset(game["rules"]), game["seed"])
    assert views(state) == game["start"]
    for i, recorded in enumerate(game["steps"]):
        state, events = step(state, recorded["move"])
        assert events == recorded["events"], f"step {i}: {recorded['move']}"
        assert views(state) == recorded["views"], f"step {i}: {recorded['move']}"
    assert state.is_over
    assert state.to_dict() == game["final"]
    assert State.from_dict(game["final"]) == state
