"""Anonymous players: an id is a long random token the browser keeps and sends as the
``X-Player-Id`` header. The store only ever sees its SHA-256 hash, and logs show at most a
short prefix of that hash, so a database or log leak does not hand out anyone's games.

Each browser's id is its own device credential (docs/devices.md): its hash is a row of
``credentials`` naming the player (the key every other table joins on). A player's first
credential is the id it was created with, whose hash is the player key itself. Every request
reads that row (one primary-key read, no in-process cache), so a revoked or deleted
credential is refused on its very next request in every process.

A move (`change_game`) reads the row in the same statement as the game it changes, inside
the move's one transaction (`Store.change_game`), and judges it exactly as `authenticate`
does; its route takes the id from the header (`DeviceIdDep`) without a read of its own.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.concurrency import run_in_threadpool

from cardtable.server.core.errors import no_player, responses, revoked
from cardtable.server.core.ratelimit import request_key
from cardtable.server.core.runtime import Runtime, RuntimeDep
from cardtable.server.core.store import Caller, Change, GameRecord
from cardtable.server.devices import service as devices
from cardtable.server.devices.models import NewPlayer
from cardtable.server.devices.store import Credential, DeviceStore

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{22,128}")  # 22 base64url characters hold 128 bits


def new_player_id() -> str:
    """192 random bits, URL-safe base64 (32 characters)."""
    return secrets.token_urlsafe(24)


def player_key(player_id: str) -> str:
    """What the store keeps for a player id (and for any credential: its SHA-256)."""
    return hashlib.sha256(player_id.encode("ascii")).hexdigest()


def authenticate(runtime: Runtime, player_id: str | None, now: datetime) -> Credential:
    """The valid device credential of ``player_id``; 401 ``revoked`` when it was signed
    out, 401 ``no_player`` when it is missing, malformed, unknown or a recovery key. A use
    is recorded only when the last recorded one is more than 5 minutes old."""
    if player_id is None or not PLAYER_ID.fullmatch(player_id):
        raise no_player()
    cred = player_key(player_id)
    rows = DeviceStore(runtime.store)  # opened on first use: call it off the event loop
    found = rows.resolve(cred)
    if found is None:
        found = rows.adopt(cred, now)
        if found is None:
            raise no_player()
    if found.kind != "device":  # a recovery key is no player id, signed out or not
        raise no_player()
    if found.revoked_at is not None:
        raise revoked()
    if found.last_used_at < devices.iso(now - devices.TOUCH_AFTER):
        rows.touch(cred, now, now - devices.TOUCH_AFTER)
    return found


async def current_device(
    request: Request,
    runtime: RuntimeDep,
    x_player_id: Annotated[str | None, Header(description="The id from POST /api/players.")] = None,
) -> Credential:
    """The caller's device credential (see `authenticate`)."""
    if x_player_id is None or not PLAYER_ID.fullmatch(x_player_id):
        raise no_player()  # made-up ids cost no store read
    cred = player_key(x_player_id)
    runtime.limited(cred)  # a player over its rate: 429 before the store is read
    now = devices.now_of(request.app.state)
    device = await run_in_threadpool(authenticate, runtime, x_player_id, now)
    # Only known ids get a bucket: made-up ids are refused above and cost no memory here.
    runtime.limit(runtime.player_limit, device.player)
    runtime.seen(cred, device.player)
    return device


def player_of(state: Any, player_id: str) -> str:
    """`current_player` for a route that runs in a thread of its own (`games.MoveRoute`,
    whose ``player_id`` is `DeviceIdDep`'s): the caller's player key, the request counted
    against the player's rate limit; 401 and 429 as `current_device` answers them."""
    runtime: Runtime = state.runtime
    device = authenticate(runtime, player_id, devices.now_of(state))
    runtime.limit(runtime.player_limit, device.player)
    return device.player


DeviceDep = Annotated[Credential, Depends(current_device)]


async def current_player(device: DeviceDep) -> str:
    """The caller's player key; 401 ``no_player`` or ``revoked`` (see `authenticate`)."""
    return device.player


PlayerDep = Annotated[str, Depends(current_player)]

_ID_HEADER = Header(description="The id from POST /api/players.")


async def device_id(x_player_id: Annotated[str | None, _ID_HEADER] = None) -> str:
    """The caller's ``X-Player-Id``, checked for form only (401 ``no_player``): for a route
    that reads the credential inside its own transaction (`change_game`)."""
    if x_player_id is None or not PLAYER_ID.fullmatch(x_player_id):
        raise no_player()
    return x_player_id


DeviceIdDep = Annotated[str, Depends(device_id)]


class _Unknown(Exception):
    """No credential row: `change_game` asks `authenticate` (which adopts a player from
    before migration 8, or refuses the id)."""


def _admit(runtime: Runtime, now: datetime) -> Callable[[Caller | None], str | None]:
    """`authenticate`'s judgement of a credential row read inside a move's transaction: the
    time to record as its use, when the recorded one is more than 5 minutes old."""

    def admit(caller: Caller | None) -> str | None:
        if caller is None:
            raise _Unknown
        if caller.kind != "device":
            raise no_player()
        if caller.revoked_at is not None:
            raise revoked()
        runtime.limit(runtime.player_limit, caller.player)
        return (
            devices.iso(now)
            if caller.last_used_at < devices.iso(now - devices.TOUCH_AFTER)
            else None
        )

    return admit


def change_game(
    runtime: Runtime,
    player_id: str,
    now: datetime,
    game_id: str,
    play: Callable[[GameRecord | None], Change],
) -> GameRecord:
    """A move by the holder of ``player_id`` (from `DeviceIdDep`) as one store transaction
    (`Store.change_game`): the credential is read in the statement that reads the game and
    judged as `authenticate` judges it (401 ``revoked`` or ``no_player``, the per-player rate
    limit, the use recorded at most every 5 minutes), so a device signed out or deleted in
    any process is refused by its very next move; then ``play`` judges the game and makes
    the change. Call it off the event loop."""
    cred = player_key(player_id)
    admit = _admit(runtime, now)
    try:
        return runtime.store.change_game(cred, game_id, admit, play)
    except _Unknown:
        pass
    authenticate(runtime, player_id, now)  # refuses the id, or adopts its player
    try:
        return runtime.store.change_game(cred, game_id, admit, play)
    except _Unknown:  # pragma: no cover - deleted between the adoption and the move
        raise no_player() from None


router = APIRouter(tags=["players"])


@router.post("/api/players", status_code=201, response_model=NewPlayer, responses=responses(429))
def create_player(request: Request, runtime: RuntimeDep) -> NewPlayer:
    """A new anonymous player id (keep it; every game belongs to it)."""
    runtime.limit(runtime.signup_limit, request_key(request))  # an IPv6 client by its /64
    player_id = new_player_id()
    name = devices.default_name(request.headers.get("user-agent", ""))
    runtime.store.create_player(player_key(player_id), device_name=name)
    return NewPlayer(player_id=player_id)
