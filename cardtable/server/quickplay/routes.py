"""The quick-play routes (docs/quickplay.md, "HTTP"). Thin: each reads its request, asks
`service.QuickPlay` and answers. Every route takes ``X-Player-Id`` and counts against the
player's request rate; joins also against the client address's and the player's join rate
(stored), reads against a per-player read rate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.types import Receive, Scope, Send

from cardtable.server.core.errors import responses
from cardtable.server.core.ratelimit import request_key
from cardtable.server.core.runtime import Runtime
from cardtable.server.devices.public import Credential, DeviceIdDep, PlayerDep, authenticate, now_of
from cardtable.server.quickplay.models import (
    AlreadySeated,
    BlockOut,
    Blocks,
    Idle,
    JoinQueue,
    NewBlock,
    Seated,
    Waiting,
)
from cardtable.server.quickplay.service import QuickPlay


class SharedPath(APIRoute):
    """A route whose path other routes share (``/api/quick-play`` takes GET, POST and
    DELETE): a 405 names in ``Allow`` the methods of every route of the path, not only the
    first one Starlette tried."""

    methods_of: ClassVar[dict[str, set[str]]] = {}

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        self.methods_of.setdefault(self.path, set()).update(self.methods or ())

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.methods and scope["method"] not in self.methods:
            allowed = sorted(self.methods_of.get(self.path, self.methods))
            raise HTTPException(status_code=405, headers={"Allow": ", ".join(allowed)})
        await super().handle(scope, receive, send)


router = APIRouter(prefix="/api/quick-play", tags=["quick-play"], route_class=SharedPath)
BlockId = Annotated[str, Path(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]


def _quick(request: Request) -> QuickPlay:
    quick: QuickPlay = request.app.state.quick
    return quick


def _device(request: Request, player_id: str) -> Credential:
    runtime: Runtime = request.app.state.runtime
    device = authenticate(runtime, player_id, now_of(request.app.state))
    runtime.limit(runtime.player_limit, device.player)
    return device


@router.post("", status_code=201, response_model=Waiting,
             responses=responses(401, 409, 422, 429, conflict=AlreadySeated))  # fmt: skip
def join(body: JoinQueue, player_id: DeviceIdDep, request: Request) -> Waiting:
    """Wait for a table of ``players`` (null: any) with the rules ``preset``, shown to the
    others as ``name``. 409 ``already_queued`` or ``already_seated`` (with the table's
    ``token``), 422 ``name_refused``, 429 ``rate_limited`` past the join rate, the address's
    waiting players or a cool-down."""
    quick = _quick(request)
    return quick.join(_device(request, player_id), body, request_key(request))


@router.get("", response_model=Idle | Waiting | Seated, responses=responses(401, 429))
def status(player: PlayerDep, request: Request) -> Idle | Waiting | Seated:
    """Where the caller stands: ``idle``, ``waiting`` (how many wait, since when, when empty
    seats go to computers) or ``seated`` (the table's token, until it is opened or 10
    minutes pass)."""
    return _quick(request).status(player)


@router.delete("", status_code=204, response_class=Response, responses=responses(401, 429))
def leave(player: PlayerDep, request: Request) -> Response:
    """Leave the queue (at any time; nothing happens when the caller is not in it)."""
    _quick(request).leave(player)
    return Response(status_code=204)


@router.get("/blocks", response_model=Blocks, responses=responses(401, 429))
def blocks(player: PlayerDep, request: Request) -> Blocks:
    """The people quick play never seats the caller with (newest first)."""
    return _quick(request).blocks(player)


@router.post("/blocks", status_code=201, response_model=BlockOut,
             responses=responses(401, 404, 422, 429))  # fmt: skip
def block(body: NewBlock, player: PlayerDep, request: Request) -> BlockOut:
    """Never seat the caller with the person of ``seat`` at quick table ``token`` again
    (only someone who sat at that table may)."""
    return _quick(request).block(player, body.token, body.seat)


@router.delete("/blocks/{ident}", status_code=204, response_class=Response,
               responses=responses(401, 429))  # fmt: skip
def unblock(ident: BlockId, player: PlayerDep, request: Request) -> Response:
    """Undo a block (nothing happens when there is no such block of the caller's)."""
    _quick(request).unblock(player, ident)
    return Response(status_code=204)
