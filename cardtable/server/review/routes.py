"""The review routes (docs/review.md, docs/api.md "Review"): each parses the request, asks
`service` and answers. A deal in progress is never reviewed and a round in progress never
replayed (409 ``wrong_phase``); someone else's game is 404 like every game route."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from cardtable.server.core.errors import responses
from cardtable.server.core.runtime import RuntimeDep, StoreDep
from cardtable.server.devices.public import PlayerDep
from cardtable.server.games.public import KCReplay
from cardtable.server.games.public import records as games
from cardtable.server.review import service
from cardtable.server.review.models import PSReviewStatus

router = APIRouter(prefix="/api/review", tags=["review"])
_RESPONSES = responses(401, 404, 409)
RoundNumber = Annotated[int, Path(ge=1, le=5, description="The round, 1-based.")]


@router.post("/poker-squares/{game_id}/start", response_model=PSReviewStatus, responses=_RESPONSES)
def start_poker_squares(
    game_id: str, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> PSReviewStatus:
    """Start the review of a finished deal (or find it stored): its progress, and the review
    once done. Asking again is harmless; poll GET for the progress. A player has one review
    worked out at a time and a few waiting (``waiting``: ask again); beyond that 429
    ``rate_limited``."""
    return service.start_poker_squares(runtime, store, player, game_id)


@router.get("/poker-squares/{game_id}", response_model=PSReviewStatus, responses=_RESPONSES)
def poker_squares(game_id: str, player: PlayerDep, store: StoreDep) -> PSReviewStatus:
    """The stored review of a finished deal, or its progress (``none`` before POST)."""
    return service.poker_squares_status(store, player, game_id)


@router.get(
    "/kings-corner/{game_id}/rounds/{number}", response_model=KCReplay, responses=_RESPONSES
)
async def kings_corner_round(
    game_id: str, number: RoundNumber, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """A finished round turn by turn with every hand shown, and for each turn what the
    strong computer would have played from that seat's view. Worked out once per round (in
    the search pool, admitted like a hint: 429 ``rate_limited`` beyond the player's search
    rate) and kept: asking again costs nothing. A request for a round being worked out for
    another waits without holding a thread (at most 2 per player, 429 beyond)."""

    replay = await service.kings_corner_round(runtime, store, player, game_id, number)
    return games.answer(replay)
