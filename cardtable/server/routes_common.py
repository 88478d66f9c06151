"""Liveness and "continue": the caller's unfinished game of each kind (SPEC C-4)."""

from __future__ import annotations

from fastapi import APIRouter

from . import routes_kings_corner as kc
from . import routes_poker_squares as ps
from .errors import responses
from .models import Continue, Health
from .players import PlayerDep
from .runtime import StoreDep

router = APIRouter()


@router.get("/healthz", response_model=Health, tags=["health"])
def healthz() -> Health:
    """The process is up (it does not touch the store)."""
    return Health(status="ok")


@router.get("/api/continue", response_model=Continue, responses=responses(401), tags=["players"])
def continue_games(player: PlayerDep, store: StoreDep) -> Continue:
    """The caller's unfinished Poker Squares deal and Kings Corner match, or null."""
    ps_record = store.current_game(player, ps.KIND)
    kc_record = store.current_game(player, kc.KIND)
    return Continue(
        poker_squares=None if ps_record is None else ps.render(ps_record),
        kings_corner=None if kc_record is None else kc.render(kc_record),
    )
