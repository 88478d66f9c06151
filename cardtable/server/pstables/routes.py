"""The Poker Squares tables over HTTP (docs/ps-tables.md); the live channel is `live.py`. Thin:
each route reads its request, calls `service.py` and answers."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from cardtable.server.core.errors import responses
from cardtable.server.core.ratelimit import request_key
from cardtable.server.devices.public import DeviceIdDep, PlayerDep, player_of
from cardtable.server.games.public import records as games
from cardtable.server.pstables import live, service
from cardtable.server.pstables.lifecycle import lifespan, tables_of
from cardtable.server.pstables.models import (
    Empty,
    JoinPS,
    NewPSTable,
    PlaceIn,
    PSCodeFound,
    PSConflict,
    PSCreated,
    PSTable,
)
from cardtable.server.pstables.tables import PSTables

router = APIRouter(
    prefix="/api/poker-squares/tables", tags=["poker-squares-tables"], lifespan=lifespan
)
router.include_router(live.router)
_READ = responses(401, 404)
_WRITE = responses(401, 403, 404, 409, 413, 422, conflict=PSConflict)


def _tables(request: Request) -> PSTables:
    return tables_of(request.app)


def _json(text: str) -> Response:
    return Response(text, media_type="application/json")


@router.post("", status_code=201, response_model=PSCreated, responses=_WRITE)
def create(body: NewPSTable, player: PlayerDep, request: Request) -> PSCreated:
    """A new table hosted by the caller (seat 0). A player has at most 10 unfinished tables
    (Kings Corner's and these together are counted apart), and a client address creates
    tables at the online tables' rate (429 ``rate_limited`` beyond)."""
    return service.create(_tables(request), body, player, request_key(request))


@router.get("/codes/{code}", response_model=PSCodeFound, responses=_READ)
def find_code(code: str, player: PlayerDep, request: Request) -> PSCodeFound:
    """The token of the open table with this room code (rate-limited like the Kings Corner
    tables' lookups)."""
    return service.find_code(_tables(request), code, request_key(request))


@router.get("/{token}", response_model=PSTable, responses=_READ)
def get_table(token: str, player: PlayerDep, request: Request) -> Response:
    """The table as the caller's device may see it (no seat: a spectator's view)."""
    return _json(service.view(_tables(request), token, player))


@router.get(
    "/{token}/qr.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **responses(404, 422)},
)
def qr(
    token: str,
    request: Request,
    origin: Annotated[str, Query(max_length=300, description="The page's own origin.")],
) -> Response:
    """The invite link ``<origin>/poker-squares-table.html#<token>`` as a QR code."""
    svg = service.invite_qr(_tables(request), token, origin, request_key(request))
    return Response(svg, media_type="image/svg+xml")


@router.post("/{token}/join", response_model=PSTable, responses=_WRITE)
def join(token: str, body: JoinPS, player: PlayerDep, request: Request) -> Response:
    """The caller takes a seat under ``name`` (lobby only; the same device again: unchanged)."""
    tables = _tables(request)
    return _json(service.join(tables, token, body.name, player, request_key(request)))


@router.post("/{token}/leave", response_model=PSTable, responses=_WRITE)
def leave(token: str, body: Empty, player: PlayerDep, request: Request) -> Response:
    """Lobby: the caller's seat is gone. Playing: the seat is away and the hint places for it."""
    return _json(service.leave(_tables(request), token, player))


@router.post("/{token}/start", response_model=PSTable, responses=_WRITE)
def start(token: str, body: Empty, player: PlayerDep, request: Request) -> Response:
    """Host only, in the lobby, with at least two players: the first card."""
    return _json(service.start(_tables(request), token, player))


# The placement, the most frequent request of a table: its credential read, its change and
# its answer in one thread trip (the Kings Corner move's fast lane, `MoveRoute`).
placements = APIRouter(route_class=games.MoveRoute)


@placements.post("/{token}/place", response_model=PSTable, responses=_WRITE)
def place(token: str, body: PlaceIn, player_id: DeviceIdDep, request: Request) -> Response:
    """The caller places the card on show (``card``: its index) on ``cell`` of their grid."""
    player = player_of(request.app.state, player_id)
    return _json(service.place(_tables(request), token, player, body.card, body.cell))


router.include_router(placements)


@router.post("/{token}/rematch", response_model=PSTable, responses=_WRITE)
def rematch(token: str, body: Empty, player: PlayerDep, request: Request) -> Response:
    """After the end: the caller is ready; once every present player is, a new deal."""
    return _json(service.rematch(_tables(request), token, player))
