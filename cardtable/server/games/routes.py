"""The games' routes (docs/api.md, "Poker Squares", "Kings Corner", "Continue"): each parses
the request, asks `service` and answers.

A person's request never makes a computer move: the page asks for each computer step
(``computer-step``) and animates it, so a paused or hidden page stops the computer
(docs/requirements.md C-6, KC-24). Every step is saved (state and move log) before it is
answered. The moves of one device (a Poker Squares placement or undo; a Kings Corner play,
undo, reveal or next round) are `records.MoveRoute` routes: each runs `service.play_move`,
one store transaction, in one trip to a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from fastapi import APIRouter, Request
from starlette.responses import Response

from cardtable.server.core.errors import ApiError, responses
from cardtable.server.core.models import VersionOnly
from cardtable.server.core.runtime import RuntimeDep, StoreDep
from cardtable.server.core.store import GameRecord
from cardtable.server.devices.public import DeviceIdDep, PlayerDep, now_of
from cardtable.server.games import records, service
from cardtable.server.games.models import (
    Continue,
    KCConflict,
    KCGame,
    KCMove,
    KCNewGame,
    KCResults,
    PSConflict,
    PSGame,
    PSHint,
    PSMove,
    PSNewGame,
    PSScoreBoard,
)

R = TypeVar("R")

_READ = responses(401, 404)

# -- Continue -------------------------------------------------------------------------------

continue_router = APIRouter()


@continue_router.get(
    "/api/continue", response_model=Continue, responses=responses(401), tags=["players"]
)
def continue_games(player: PlayerDep, store: StoreDep) -> Continue:
    """The caller's unfinished Poker Squares deal and Kings Corner match, or null, and what
    the deal counts for (today's daily), which a new deal would lose."""
    deal = store.current_game(player, service.PS_KIND)
    return Continue(
        poker_squares=_loadable(deal, service.ps_render),
        kings_corner=_loadable(store.current_game(player, service.KC_KIND), service.kc_render),
        poker_squares_counted=records.counted(store, player, deal),
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


# -- Poker Squares --------------------------------------------------------------------------

poker_squares_router = APIRouter(prefix="/api/poker-squares", tags=["poker-squares"])
_PS_WRITE = responses(401, 404, 409, 413, 422, conflict=PSConflict)


# Each route keeps its name (and so its OpenAPI operationId) from before the games' routes
# shared a module: `name=` where two games' handlers would otherwise share one.
@poker_squares_router.post(
    "/games", status_code=201, response_model=PSGame, responses=_PS_WRITE, name="new_game"
)
def new_deal(
    body: PSNewGame, player: PlayerDep, store: StoreDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Deal a new game; it replaces the caller's unfinished one, after asking when that one
    is a counted attempt (409 ``replaces_counted`` unless ``replace_counted``). ``replay_of``
    deals the cards of an earlier game of the caller's again, as practice."""
    seed = records.requested_seed(runtime, request)
    return records.answer(service.ps_deal(store, runtime, player, body, seed), 201)


@poker_squares_router.get(
    "/games/{game_id}", response_model=PSGame, responses=_READ, name="get_game"
)
def get_deal(game_id: str, player: PlayerDep, store: StoreDep) -> Response:
    return records.answer(service.ps_render(records.load(store, game_id, player, service.PS_KIND)))


ps_moves = APIRouter(route_class=records.MoveRoute)


@ps_moves.post("/games/{game_id}/moves", response_model=PSGame, responses=_PS_WRITE)
def place(game_id: str, body: PSMove, player_id: DeviceIdDep, request: Request) -> Response:
    """Put the current card on the empty cell (row, col), both 0-4."""
    return _ps_move(request, player_id, game_id, body.version, service.ps_place(body.row, body.col))


@ps_moves.post("/games/{game_id}/undo", response_model=PSGame, responses=_PS_WRITE, name="undo")
def undo_placement(
    game_id: str, body: VersionOnly, player_id: DeviceIdDep, request: Request
) -> Response:
    """Take back the last placement; the deal becomes practice."""
    return _ps_move(request, player_id, game_id, body.version, service.ps_undo)


def _ps_move(
    request: Request, player_id: str, game_id: str, version: int, rule: service.Rule
) -> Response:
    # The app's runtime and clock straight from its state: a dependency for each would cost
    # FastAPI's parameter solving on every move.
    state = request.app.state
    saved, game = service.play_move(
        state.runtime, player_id, now_of(state), game_id, service.PS_KIND, version, rule
    )
    answer = records.answer(service.ps_render(saved, game))
    answer.background = service.ps_after(state.runtime.store, saved, game)
    return answer


poker_squares_router.include_router(ps_moves)


@poker_squares_router.post("/games/{game_id}/hint", response_model=PSHint, responses=_PS_WRITE)
def hint(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """Suggest a cell for the current card from what the player can see, with the estimated
    final total for every empty cell. The deal becomes practice."""
    return records.answer(service.ps_hint(store, runtime, player, game_id, body.version))


@poker_squares_router.get("/scores", response_model=PSScoreBoard, responses=responses(401))
def scores(player: PlayerDep, store: StoreDep) -> Response:
    """Best unassisted and best practice score per table, and the latest finished deals."""
    return records.answer(service.ps_scores(store, player))


# -- Kings Corner ---------------------------------------------------------------------------

kings_corner_router = APIRouter(prefix="/api/kings-corner", tags=["kings-corner"])
_KC_WRITE = responses(401, 404, 409, 413, 422, conflict=KCConflict)


@kings_corner_router.post(
    "/games", status_code=201, response_model=KCGame, responses=_KC_WRITE, name="new_game"
)
def new_match(
    body: KCNewGame, player: PlayerDep, store: StoreDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Start a match; it replaces the caller's unfinished one. Seat 0 is the caller."""
    seed = records.requested_seed(runtime, request)
    return records.answer(service.kc_new_match(store, runtime, player, body, seed), 201)


@kings_corner_router.get(
    "/games/{game_id}", response_model=KCGame, responses=_READ, name="get_game"
)
def get_match(game_id: str, player: PlayerDep, store: StoreDep) -> Response:
    return records.answer(service.kc_render(records.load(store, game_id, player, service.KC_KIND)))


kc_moves = APIRouter(route_class=records.MoveRoute)


@kc_moves.post("/games/{game_id}/moves", response_model=KCGame, responses=_KC_WRITE)
def move(game_id: str, body: KCMove, player_id: DeviceIdDep, request: Request) -> Response:
    """The person whose hand is shown plays ``"9H>N"``, moves a pile ``"E>NW"`` or ends the
    turn ``"end"``. Never plays a computer seat (see computer-step)."""
    runtime = request.app.state.runtime
    return _kc_move(request, player_id, game_id, body.version, service.kc_play(runtime, body.move))


@kc_moves.post("/games/{game_id}/undo", response_model=KCGame, responses=_KC_WRITE)
def undo(game_id: str, body: VersionOnly, player_id: DeviceIdDep, request: Request) -> Response:
    """Take back the last play or pile move of this turn (never a draw, KC-8)."""
    rule = service.kc_undo(request.app.state.runtime)
    return _kc_move(request, player_id, game_id, body.version, rule)


@kc_moves.post("/games/{game_id}/reveal", response_model=KCGame, responses=_KC_WRITE)
def reveal(game_id: str, body: VersionOnly, player_id: DeviceIdDep, request: Request) -> Response:
    """Show the next person's hand after a hand-off (KC-7)."""
    rule = service.kc_reveal(request.app.state.runtime)
    return _kc_move(request, player_id, game_id, body.version, rule)


@kc_moves.post("/games/{game_id}/next-round", response_model=KCGame, responses=_KC_WRITE)
def next_round(
    game_id: str, body: VersionOnly, player_id: DeviceIdDep, request: Request
) -> Response:
    """Deal the next round of the match (first seat rotates, KC-2)."""
    rule = service.kc_next_round(request.app.state.runtime)
    return _kc_move(request, player_id, game_id, body.version, rule)


def _kc_move(
    request: Request, player_id: str, game_id: str, version: int, rule: service.Rule
) -> Response:
    state = request.app.state
    saved, moved = service.play_move(
        state.runtime, player_id, now_of(state), game_id, service.KC_KIND, version, rule
    )
    return records.answer(
        service.kc_answer(saved.id, saved.version, moved.table, None, moved.events)
    )


@kings_corner_router.post(
    "/games/{game_id}/computer-step", response_model=KCGame, responses=_KC_WRITE
)
def computer_step(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """One move of the computer seat to play; the answer's ``step`` says which."""
    return records.answer(service.kc_computer_step(store, runtime, player, game_id, body.version))


kings_corner_router.include_router(kc_moves)


@kings_corner_router.get("/results", response_model=KCResults, responses=responses(401))
def results(player: PlayerDep, store: StoreDep) -> Response:
    """The caller's finished matches, newest first (at most 20)."""
    return records.answer(service.kc_results(store, player))
