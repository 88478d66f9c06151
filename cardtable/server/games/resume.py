""" "Continue": the caller's unfinished game of each kind (SPEC C-4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from fastapi import APIRouter

from cardtable.server.core.errors import ApiError, responses
from cardtable.server.core.runtime import StoreDep
from cardtable.server.core.store import GameRecord
from cardtable.server.devices.public import PlayerDep
from cardtable.server.games import kings_corner as kc
from cardtable.server.games import poker_squares as ps
from cardtable.server.games import service as records
from cardtable.server.games.models import Continue

R = TypeVar("R")

router = APIRouter()


@router.get("/api/continue", response_model=Continue, responses=responses(401), tags=["players"])
def continue_games(player: PlayerDep, store: StoreDep) -> Continue:
    """The caller's unfinished Poker Squares deal and Kings Corner match, or null, and what
    the deal counts for (today's daily), which a new deal would lose."""
    poker_squares = store.current_game(player, ps.KIND)
    return Continue(
        poker_squares=_loadable(poker_squares, ps.render),
        kings_corner=_loadable(store.current_game(player, kc.KIND), kc.render),
        poker_squares_counted=records.counted(store, player, poker_squares),
    )


def _loadable(record: GameRecord | None, render: Callable[[GameRecord], R]) -> R | None:
    """The rendered game, or None when there is none or its saved state is damaged (so the
    page offers a new game instead of failing)."""
    if record is None:
        return None
    try:
        return render(record)
    except ApiError as exc:
        if exc.code != "damaged_game":  # pragma: no cover - render raises nothing else
            raise
        return None
