"""Steps every game route shares: find the caller's game, check the version it was played
against, and save with compare-and-set, answering 409 ``stale_version`` with the current game
when another request got there first. `change` does all of it, with the caller's credential,
in one store transaction (a move's whole path), and `MoveRoute` calls a move's endpoint in one
trip to a thread."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import re
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from fastapi import Request
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.background import BackgroundTask
from starlette.responses import Response

from cardtable.server.core.errors import ApiError, invalid, not_found, wrong_phase
from cardtable.server.core.models import dump
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import Change, GameRecord, Result, StaleVersion, Store
from cardtable.server.core.store.base import JSON
from cardtable.server.devices.public import PLAYER_ID, change_game
from cardtable.server.games.models import CountedAttempt

# Game ids are `secrets.token_urlsafe` text; anything else cannot exist (and some text, such
# as a NUL character, is refused by PostgreSQL itself), so it is "not found" before any query.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
REPLACED = "a newer game of this kind replaced this one; it can only be viewed"


def load(store: Store, game_id: str, player: str, kind: str) -> GameRecord:
    """The caller's game of ``kind``; 404 for a game that is missing or someone else's."""
    if not GAME_ID.fullmatch(game_id):
        raise not_found()
    record = store.load_game(game_id, player)
    if record is None or record.kind != kind:
        raise not_found()
    return record


def stale(current: BaseModel) -> ApiError:
    return ApiError(
        409,
        "stale_version",
        "the game changed since that version (another tab or a repeated click); "
        "here is the game as it is now",
        current=dump(current),
    )


def check(record: GameRecord, version: int, render: Callable[[GameRecord], BaseModel]) -> None:
    """Refuse a request made against an old version, or aimed at a replaced game."""
    if record.version != version:
        raise stale(render(record))
    if not record.current:
        raise wrong_phase(REPLACED)


def save(
    store: Store,
    record: GameRecord,
    state: JSON,
    render: Callable[[GameRecord], BaseModel],
    *,
    finished: bool,
    log: Sequence[JSON],
    result: Result | None = None,
) -> GameRecord:
    try:
        return store.save_game(record, state, finished=finished, log=log, result=result)
    except StaleVersion:
        raise lost(store, record, render) from None


def lost(store: Store, record: GameRecord, render: Callable[[GameRecord], BaseModel]) -> ApiError:
    """The answer to a save of ``record`` that lost its compare-and-set: 409 ``wrong_phase``
    when a newer game replaced it since its load, else ``stale_version`` with the game now."""
    current = store.load_game(record.id, record.player)
    if current is None:  # pragma: no cover - a game being played is never pruned
        return not_found()
    if not current.current:
        return wrong_phase(REPLACED)
    return stale(render(current))


def change(
    runtime: Runtime,
    player_id: str,
    now: datetime,
    game_id: str,
    kind: str,
    version: int,
    render: Callable[[GameRecord], BaseModel],
    play: Callable[[GameRecord], Change],
) -> GameRecord:
    """A move on the caller's game of ``kind`` made against ``version``, as one store
    transaction with the caller's credential (`change_game`): 404 for a game missing or
    someone else's, 409 as `check` answers, then ``play`` makes the change (or raises to
    refuse it; nothing is written) and it is saved by compare-and-set."""
    found: list[GameRecord] = []

    def judged(record: GameRecord | None) -> Change:
        if record is None or record.kind != kind:
            raise not_found()
        check(record, version, render)
        found.append(record)
        return play(record)

    try:
        return change_game(
            runtime, player_id, now, game_id if GAME_ID.fullmatch(game_id) else "", judged
        )
    except StaleVersion:
        # Another process saved the game between this move's read and its write.
        raise lost(runtime.store, found[-1], render) from None


log = logging.getLogger("cardtable.server")

Finished = Callable[[Store, str], None]
"""What another feature does once a player's game of a kind is finished: (store, player)."""
_FINISHED: dict[str, dict[str, Finished]] = {}


def when_finished(kind: str, name: str, hook: Finished) -> None:
    """Run ``hook`` after every move that finishes a game of ``kind`` (the daily judges and
    settles its entry then: docs/daily.md). It runs after the answer is sent, in a thread;
    a failure is logged, and whatever it does must also happen later without it."""
    _FINISHED.setdefault(kind, {})[name] = hook


def after_finish(store: Store, kind: str, player: str) -> BackgroundTask | None:
    """The hooks for a game of ``kind`` just finished, as the answer's background task."""
    hooks = list(_FINISHED.get(kind, {}).items())
    if not hooks:
        return None

    def run() -> None:
        for name, hook in hooks:
            try:
                hook(store, player)
            except Exception:
                log.exception("after a finished %s game: %s failed", kind, name)

    return BackgroundTask(run)


Counted = Callable[[Store, str, GameRecord], "CountedAttempt | None"]
"""How another feature tells that a player's unfinished game of a kind counts for something
a new game would lose: (store, player, the current game) -> what it counts for, or None."""
_COUNTED: dict[str, dict[str, Counted]] = {}


def when_counted(kind: str, name: str, hook: Counted) -> None:
    """Let ``hook`` say when the player's unfinished game of ``kind`` counts (the daily: it
    is today's counted attempt). `replacing` then asks before a new game replaces it, and
    "continue" names it."""
    _COUNTED.setdefault(kind, {})[name] = hook


def counted(store: Store, player: str, record: GameRecord | None) -> CountedAttempt | None:
    """What the player's current unfinished game ``record`` counts for, or None."""
    if record is None or record.finished or not record.current:
        return None
    for hook in _COUNTED.get(record.kind, {}).values():
        found = hook(store, player, record)
        if found is not None:
            return found
    return None


def replacing(store: Store, player: str, kind: str, *, confirmed: bool) -> None:
    """Before a new game of ``kind`` replaces the player's unfinished one: 409
    ``replaces_counted`` (with what it counts for) when that one counts and the request did
    not say ``replace_counted``: a counted attempt is never thrown away without a word."""
    if confirmed:
        return
    found = counted(store, player, store.current_game(player, kind))
    if found is not None:
        raise ApiError(
            409,
            "replaces_counted",
            "your unfinished game is a counted attempt; a new one would replace it and it "
            "would no longer count (send replace_counted: true to go on)",
            counted=found.model_dump(),
        )


def requested_seed(runtime: Runtime, request: Request) -> int | None:
    """The ``X-Test-Seed`` header's deal seed, when `Settings.allow_seed_for_tests` is on
    (tests build known deals through the API); otherwise None and the header is ignored."""
    text = request.headers.get("x-test-seed")
    if text is None or not runtime.settings.allow_seed_for_tests:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 19 and 0 < int(text) < 2**63):
        raise invalid("X-Test-Seed: a positive integer below 2**63")
    return int(text)


def answer(model: BaseModel, status_code: int = 200) -> Response:
    """``model`` as the JSON response, serialized once by pydantic. Returning a `Response`
    skips FastAPI's own handling of a returned model (validated again against
    ``response_model`` and, for a sync route, in a second trip to the threadpool): the model
    was validated when it was built, and the route's ``response_model`` still documents it."""
    return Response(model.model_dump_json(), status_code=status_code, media_type="application/json")


_MOVE_THREADS = ThreadPoolExecutor(max_workers=8, thread_name_prefix="move")
"""Where `MoveRoute` runs moves: a move holds a store connection for its one transaction,
so more threads than connections (PostgreSQL's pool: 8 by default; SQLite: one writer at a
time) would only wait."""


class MoveRoute(APIRoute):
    """A move route's fast lane. Its endpoint is ``(<path parameter>, body, player_id,
    request)``: the game's or table's id from the path (``game_id``, ``token``), the JSON
    body's model, the ``X-Player-Id`` header (`DeviceIdDep`) and the request. A request
    whose id has the right form and whose ``application/json`` body the model accepts is
    parsed and validated here as FastAPI would (``json.loads``, then the model in Python
    mode) and the endpoint runs in one trip to `_MOVE_THREADS`; everything else (no or a
    malformed id, another content type, a body the model refuses) goes to FastAPI's own
    handler, which answers it exactly as for any route. FastAPI's per-request parameter
    solving and its threadpool trip once cost more CPU than the move itself (the
    measurement and its command: docs/performance.md)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        names = list(inspect.signature(endpoint).parameters)
        if names[1:] != ["body", "player_id", "request"] or f"{{{names[0]}}}" not in path:
            raise TypeError(
                f"a MoveRoute endpoint takes (<path parameter>, body, player_id, request): {names}"
            )
        self.path_id = names[0]
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        standard = super().get_route_handler()
        model = inspect.signature(self.endpoint).parameters["body"].annotation
        if isinstance(model, str):  # postponed annotations: resolved by FastAPI already
            model = self.body_field.field_info.annotation if self.body_field else None
        assert isinstance(model, type) and issubclass(model, BaseModel), model
        endpoint = self.endpoint
        path_id = self.path_id

        async def handler(request: Request) -> Response:
            player_id = request.headers.get("x-player-id")
            if (
                player_id is None
                or not PLAYER_ID.fullmatch(player_id)
                or request.headers.get("content-type") != "application/json"
            ):
                return await standard(request)
            try:
                body = model.model_validate(json.loads(await request.body()))
            except (ValueError, ValidationError, RecursionError):
                # JSONDecodeError is a ValueError; a body nested too deep for json.loads is a
                # RecursionError. FastAPI's own handler answers both (the body stays cached).
                return await standard(request)
            call = functools.partial(
                endpoint, request.path_params[path_id], body, player_id, request
            )
            context = contextvars.copy_context()
            loop = asyncio.get_running_loop()
            response: Response = await loop.run_in_executor(_MOVE_THREADS, context.run, call)
            return response

        return handler
