"""The rating routes (docs/rating.md, "API"). The clock is the request's: tests inject one as
``app.state.rating_clock``."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request

from cardtable.server.core.errors import responses
from cardtable.server.core.runtime import StoreDep
from cardtable.server.devices.public import PlayerDep
from cardtable.server.rating import service
from cardtable.server.rating.models import Board, MyRating

router = APIRouter(prefix="/api/ratings", tags=["ratings"])


def clock(request: Request) -> datetime:
    injected = getattr(request.app.state, "rating_clock", None)
    return injected() if injected is not None else datetime.now(UTC)


@router.get("/me", response_model=MyRating, responses=responses(401))
def me(player: PlayerDep, store: StoreDep) -> MyRating:
    """The caller's rating (1500 and provisional before any rated match), their rated
    matches and the rating after each (oldest first), for the chart."""
    return service.mine(store, player)


@router.get("/board", response_model=Board, responses=responses(401))
def board(player: PlayerDep, store: StoreDep, request: Request) -> Board:
    """The top settled ratings of players who played a rated match in the last 30 days:
    names only (the name they last played under), best first."""
    return service.board(store, player, clock(request))
