"""Poker Squares over HTTP: deal, read, place, undo, hint and the score board (docs/api.md).

The routes use the game only through its interface (`poker_squares.ENGINE`): the saved state
is the engine's versioned JSON (`to_dict`); responses carry only its `view` for seat 0,
which never shows the cards still to come (SPEC C-8). A deal
that used undo or a hint, or replays an earlier deal, is practice (SPEC PS-9): the store keeps
its score apart from unassisted ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from cardtable import poker_squares as ps
from cardtable.fairness import Fair
from cardtable.interface import IllegalMove, MoveError
from cardtable.poker_squares import ENGINE, INTERACTIVE_BUDGET, analyse
from cardtable.server.core import retention
from cardtable.server.core.errors import ApiError, damaged, illegal, invalid, responses, wrong_phase
from cardtable.server.core.models import VersionOnly
from cardtable.server.core.runtime import RuntimeDep, StoreDep
from cardtable.server.core.store import Change, GameRecord, Result, Store
from cardtable.server.devices.public import DeviceIdDep, PlayerDep, now_of
from cardtable.server.games import service as games
from cardtable.server.games.models import (
    CellEstimate,
    CellRef,
    PSConflict,
    PSGame,
    PSHint,
    PSHistoryEntry,
    PSMove,
    PSNewGame,
    PSScoreBoard,
    PSScores,
    PSTarget,
    PSView,
)

KIND = "poker-squares"
HISTORY = 20

router = APIRouter(prefix="/api/poker-squares", tags=["poker-squares"])
_READ = responses(401, 404)
_WRITE = responses(401, 404, 409, 413, 422, conflict=PSConflict)


def render(record: GameRecord, game: ps.Game | None = None) -> PSGame:
    """The answer for a saved game (``game``: its state, when already loaded)."""
    game = _game(record) if game is None else game
    view = PSView.model_validate(ENGINE.view(game, SEAT))
    return PSGame(id=record.id, version=record.version, view=view)


SEAT = 0
"""Poker Squares has one seat: the caller's."""


def _game(record: GameRecord) -> ps.Game:
    try:
        return ENGINE.from_dict(record.state)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise damaged("deal") from None


def _result(game: ps.Game) -> Result | None:
    if not game.is_over:
        return None
    return Result(
        variant=game.table,
        total=game.total,
        practice=game.practice,
        summary={
            "target": {"level": game.target, "points": game.target_points},
            "target_reached": game.target_reached,
        },
    )


def _save(store: Store, record: GameRecord, game: ps.Game, entry: dict[str, Any]) -> GameRecord:
    return games.save(
        store,
        record,
        ENGINE.to_dict(game),
        render,
        finished=game.is_over,
        log=[entry],
        result=_result(game),
    )


def _open(store: Store, game_id: str, player: str, version: int) -> tuple[GameRecord, ps.Game]:
    record = games.load(store, game_id, player, KIND)
    games.check(record, version, render)
    return record, _game(record)


@router.post("/games", status_code=201, response_model=PSGame, responses=_WRITE)
def new_game(
    body: PSNewGame, player: PlayerDep, store: StoreDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Deal a new game; it replaces the caller's unfinished one, after asking when that one
    is a counted attempt (409 ``replaces_counted`` unless ``replace_counted``). ``replay_of``
    deals the cards of an earlier game of the caller's again, as practice."""
    games.replacing(store, player, KIND, confirmed=body.replace_counted)
    if body.replay_of is not None:
        earlier = _game(games.load(store, body.replay_of, player, KIND))
        if earlier.seed is None and earlier.fair is None:
            raise illegal("that deal has no recorded seed, so it cannot be replayed")
        seed, fair = earlier.seed or 0, earlier.fair
    else:
        # A provably fair deal (docs/fairness.md); X-Test-Seed deals from an integer seed.
        seed = games.requested_seed(runtime, request) or 0
        fair = None if seed else Fair.new()
    options: dict[str, Any] = {
        "table": body.table,
        "target": body.target,
        "replay": body.replay_of is not None,
    }
    if fair is not None:
        options["fair"] = fair.saved()  # a daily deal's replay keeps its seed withheld
    game = ENGINE.new(seed, options)
    entry = {"action": "deal", "seed": seed or None, "replay_of": body.replay_of}
    record = store.create_game(player, KIND, ENGINE.to_dict(game), finished=False, log=[entry])
    store.prune(player, KIND, retention.keep(runtime))
    return games.answer(render(record, game), 201)


@router.get("/games/{game_id}", response_model=PSGame, responses=_READ)
def get_game(game_id: str, player: PlayerDep, store: StoreDep) -> Response:
    return games.answer(render(games.load(store, game_id, player, KIND)))


# Placements and undos: one store transaction each, run by `games.MoveRoute`.
moves = APIRouter(route_class=games.MoveRoute)


@moves.post("/games/{game_id}/moves", response_model=PSGame, responses=_WRITE)
def place(game_id: str, body: PSMove, player_id: DeviceIdDep, request: Request) -> Response:
    """Put the current card on the empty cell (row, col), both 0-4."""

    def step(game: ps.Game) -> ps.Game:
        try:
            return ENGINE.play(game, ps.Move(body.row, body.col))
        except MoveError as exc:
            raise invalid(f"cell: {exc}") from None
        except IllegalMove as exc:
            raise illegal(exc.reason) from None

    entry = {"action": "place", "row": body.row, "col": body.col}
    return _move(request, player_id, game_id, body.version, step, entry)


@moves.post("/games/{game_id}/undo", response_model=PSGame, responses=_WRITE)
def undo(game_id: str, body: VersionOnly, player_id: DeviceIdDep, request: Request) -> Response:
    """Take back the last placement; the deal becomes practice."""

    def step(game: ps.Game) -> ps.Game:
        try:
            return ENGINE.undo(game)
        except IllegalMove as exc:
            raise illegal(exc.reason) from None

    return _move(request, player_id, game_id, body.version, step, {"action": "undo"})


router.include_router(moves)


def _move(
    request: Request,
    player_id: str,
    game_id: str,
    version: int,
    step: Callable[[ps.Game], ps.Game],
    entry: dict[str, Any],
) -> Response:
    """A placement or an undo as one store transaction (`games.change`): the caller's
    credential and the game read by one statement, ``step`` applied, the game saved by
    compare-and-set; the answer is rendered after the commit."""
    played: list[ps.Game] = []

    def play(record: GameRecord) -> Change:
        game = step(_game(record))
        played.append(game)
        return Change(ENGINE.to_dict(game), game.is_over, [entry], _result(game))

    # The app's runtime and clock straight from its state: a dependency for each would cost
    # FastAPI's parameter solving on every move.
    state = request.app.state
    saved = games.change(
        state.runtime, player_id, now_of(state), game_id, KIND, version, render, play
    )
    answer = games.answer(render(saved, played[-1]))
    if played[-1].is_over:
        answer.background = games.after_finish(state.runtime.store, KIND, saved.player)
    return answer


@router.post("/games/{game_id}/hint", response_model=PSHint, responses=_WRITE)
def hint(
    game_id: str, body: VersionOnly, player: PlayerDep, store: StoreDep, runtime: RuntimeDep
) -> Response:
    """Suggest a cell for the current card from what the player can see (SPEC PS-8), with
    the estimated final total for every empty cell. The deal becomes practice."""
    # A stale version is refused here, before any search (cardtable/server/core/admission.py).
    record, game = _open(store, game_id, player, body.version)
    if game.is_over:
        raise wrong_phase("the deal is over: there is no card to place")
    view = ENGINE.view(game, SEAT)
    budget = runtime.settings.hint_budget
    budget = INTERACTIVE_BUDGET if budget is None else budget
    with runtime.admission.reserve(record.id, player):
        try:
            # The hint depends on the view alone: the same view always gets the same hint.
            (row, col), estimates = runtime.admission.run(analyse, view, budget=budget)
        except ValueError as exc:  # pragma: no cover - the view comes from the engine
            raise ApiError(409, "wrong_phase", str(exc)) from None
        game = ps.hinted(game)
        saved = _save(store, record, game, {"action": "hint", "row": row, "col": col})
    return games.answer(
        PSHint(
            game=render(saved, game),
            hint=CellRef(row=row, col=col),
            estimates=[CellEstimate.model_validate(e) for e in estimates],
        )
    )


@router.get("/scores", response_model=PSScoreBoard, responses=responses(401))
def scores(player: PlayerDep, store: StoreDep) -> Response:
    """Best unassisted and best practice score per table, and the latest finished deals."""
    best = store.best_scores(player, KIND)
    boards: dict[str, PSScores] = {}
    for table in ("american", "british"):
        history = [
            PSHistoryEntry(
                id=r.game_id,
                total=r.total or 0,
                practice=r.practice,
                target=PSTarget.model_validate(r.summary["target"]),
                target_reached=bool(r.summary["target_reached"]),
                finished_at=r.finished_at,
            )
            for r in store.results(player, KIND, variant=table, limit=HISTORY)
        ]
        boards[table] = PSScores(
            best=best.get((table, False)),
            best_practice=best.get((table, True)),
            history=history,
        )
    return games.answer(PSScoreBoard(american=boards["american"], british=boards["british"]))
