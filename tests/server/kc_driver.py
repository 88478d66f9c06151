"""Play Kings Corner matches through the API the way a page would (tests only)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.server.helpers import Api

MAX_REQUESTS = 4000


def simple_person(game: dict[str, Any]) -> str:
    """Play cards while any fits (Kings and cards before pile moves), then end the turn."""
    legal = game["view"]["legal_moves"]
    plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
    if plays:
        return str(plays[0])
    shifts = [m for m in legal if m != "end"]
    turn_log = [e for e in game["log"] if e["turn"] == game["view"]["turn"]]
    if shifts and len(turn_log) < 3:
        return str(shifts[0])
    return "end" if "end" in legal else str(legal[0])


PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}


def play_match(
    api: Api,
    game: dict[str, Any],
    person: Callable[[dict[str, Any]], str] = simple_person,
    on_answer: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Drive ``game`` to the end of its match; every answer goes to ``on_answer``."""
    for _ in range(MAX_REQUESTS):
        if on_answer is not None:
            on_answer(game)
        phase = game["phase"]
        if phase == "match_over":
            return game
        if phase == "round_over":
            game = api.kc(game, "next-round")
        elif phase == "computer":
            before = game
            game = api.kc(game, "computer-step")
            assert game["step"]["seat"] == before["view"]["to_play"]
        elif phase == "handoff":
            game = api.kc(game, "reveal")
        else:
            assert phase == "play" and game["viewer"] == game["view"]["to_play"]
            game = api.kc(game, "moves", move=person(game))
    raise AssertionError("the match did not end")
