"""Anonymous players: an id is a long random token the browser keeps and sends as the
``X-Player-Id`` header. The store only ever sees its SHA-256 hash, and logs show at most a
short prefix of that hash, so a database or log leak does not hand out anyone's games."""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from fastapi.concurrency import run_in_threadpool

from .errors import no_player, responses
from .models import NewPlayer
from .runtime import RuntimeDep

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{22,128}")  # 22 base64url characters hold 128 bits


def new_player_id() -> str:
    """192 random bits, URL-safe base64 (32 characters)."""
    return secrets.token_urlsafe(24)


def player_key(player_id: str) -> str:
    """What the store keeps for a player id."""
    return hashlib.sha256(player_id.encode("ascii")).hexdigest()


async def current_player(
    runtime: RuntimeDep,
    x_player_id: Annotated[str | None, Header(description="The id from POST /api/players.")] = None,
) -> str:
    """The caller's player key; 401 ``no_player`` when the header is missing or unknown."""
    if x_player_id is None or not PLAYER_ID.fullmatch(x_player_id):
        raise no_player()
    key = player_key(x_player_id)
    if not runtime.is_known(key):
        if not await run_in_threadpool(lambda: runtime.store.has_player(key)):
            raise no_player()
        runtime.remember(key)
    # Only known ids get a bucket: made-up ids are refused above and cost no memory here.
    runtime.limit(runtime.player_limit, key)
    return key


PlayerDep = Annotated[str, Depends(current_player)]

router = APIRouter(tags=["players"])


@router.post("/api/players", status_code=201, response_model=NewPlayer, responses=responses(429))
def create_player(request: Request, runtime: RuntimeDep) -> NewPlayer:
    """A new anonymous player id (keep it; every game belongs to it)."""
    address = request.client.host if request.client is not None else "unknown"
    runtime.limit(runtime.signup_limit, address)
    player_id = new_player_id()
    key = player_key(player_id)
    runtime.store.create_player(key)
    runtime.remember(key)
    return NewPlayer(player_id=player_id)
