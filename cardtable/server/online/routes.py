"""The online tables over HTTP (docs/online.md); the live channel is `live.py`. Thin: each
route reads its request, calls `service.py` and answers; what a route does (version checks,
compare-and-set, rate limits) is there.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from cardtable.server.core.errors import responses
from cardtable.server.core.models import VersionOnly
from cardtable.server.core.ratelimit import request_key
from cardtable.server.core.runtime import RuntimeDep
from cardtable.server.devices.public import DeviceIdDep, PlayerDep, player_of
from cardtable.server.games.public import KCMove
from cardtable.server.games.public import records as games
from cardtable.server.online import live, service
from cardtable.server.online.models import (
    CodeFound,
    Created,
    Join,
    MineTables,
    NewTable,
    OnlineConflict,
    OnlineReplay,
    OnlineTable,
    SeatChange,
)
from cardtable.server.online.tables import OnlineTables

router = APIRouter(prefix="/api/kings-corner/online", tags=["kings-corner-online"])
router.include_router(live.router)
_READ = responses(401, 404)
_REPLAY = responses(401, 404, 409)
_WRITE = responses(401, 403, 404, 409, 413, 422, conflict=OnlineConflict)
RoundNumber = Annotated[int, Path(ge=1, le=5, description="The round, 1-based.")]


def _tables(request: Request) -> OnlineTables:
    tables: OnlineTables = request.app.state.online
    return tables


def _address(request: Request) -> str:
    return request_key(request)  # an IPv6 client by its /64


def _json(text: str) -> Response:
    """A table as the JSON text `service` rendered (validated against `OnlineTable` there)."""
    return Response(text, media_type="application/json")


# -- creating and finding a table --------------------------------------------------------
@router.post("", status_code=201, response_model=Created, responses=_WRITE)
def create(body: NewTable, player: PlayerDep, request: Request) -> Created:
    """A new table; seat 0 is the caller ("me"), who hosts it. A player has at most
    `OnlineSettings.max_open_tables` unfinished tables, and a client address creates at most
    `create_burst` at once and `create_rate` a second after (429 ``rate_limited`` beyond);
    making one deletes the player's oldest finished tables beyond `max_finished_tables`."""
    return service.create(_tables(request), body, player, _address(request))


@router.get("/codes/{code}", response_model=CodeFound, responses=_READ)
def find_code(code: str, player: PlayerDep, request: Request) -> CodeFound:
    """The token of the open table with this room code (rate-limited per address, per code,
    per process and for the whole site)."""
    return service.find_code(_tables(request), code, _address(request))


# -- reading -------------------------------------------------------------------------------
@router.get("/mine", response_model=MineTables, responses=responses(401, 429))
def my_tables(player: PlayerDep, request: Request) -> MineTables:
    """The caller's tables ("Your tables"), waiting for their move first, then by last
    change (at most 50); only what their seat may know, never a card."""
    return service.my_tables(_tables(request), player)


@router.get("/{token}", response_model=OnlineTable, responses=_READ)
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
    """The invite link ``<origin>/kings-corner-online.html#<token>`` as a QR code. No player
    id: an ``<img>`` sends none, and the code holds nothing the token does not."""
    svg = service.invite_qr(_tables(request), token, origin, _address(request))
    return Response(svg, media_type="image/svg+xml")


# -- the lobby -----------------------------------------------------------------------------
@router.post("/{token}/join", response_model=OnlineTable, responses=_WRITE)
def join(token: str, body: Join, player: PlayerDep, request: Request) -> Response:
    """The caller takes ``seat`` (or the first open seat) under ``name``."""
    return _json(service.join(_tables(request), token, body, player, _address(request)))


@router.post("/{token}/leave", response_model=OnlineTable, responses=_WRITE)
def leave(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """In the lobby the caller's seats open again; in play they are away at once."""
    return _json(service.leave(_tables(request), token, player, body.version))


@router.post("/{token}/seats/{seat}", response_model=OnlineTable, responses=_WRITE)
def seat_computer(
    token: str, seat: int, body: SeatChange, player: PlayerDep, request: Request
) -> Response:
    """Host only: an open seat, or a person who is away, becomes a computer."""
    tables = _tables(request)
    return _json(service.seat_computer(tables, token, player, body.version, seat, body.strength))


@router.post("/{token}/seats/{seat}/stand-in", response_model=OnlineTable, responses=_WRITE)
def hand_to_computer(
    token: str, seat: int, body: VersionOnly, player: PlayerDep, request: Request
) -> Response:
    """Host only, during the match: the stand-in computer plays ``seat`` (a person on another
    device whose connection is gone) now, without waiting for the grace period to end."""
    return _json(service.hand_to_computer(_tables(request), token, player, body.version, seat))


@router.post("/{token}/seats/{seat}/invite", response_model=OnlineTable, responses=_WRITE)
def reopen(
    token: str, seat: int, body: VersionOnly, player: PlayerDep, request: Request
) -> Response:
    """Host only, during the match: an absent person's seat is open again for someone new
    (the table's link or room code); the absent device no longer holds it, and the stand-in
    plays it until someone takes it."""
    return _json(service.reopen(_tables(request), token, player, body.version, seat))


@router.post("/{token}/start", response_model=OnlineTable, responses=_WRITE)
def start(
    token: str, body: VersionOnly, player: PlayerDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Host only, in the lobby, once no seat is open: deal the first round."""
    test = games.requested_seed(runtime, request)
    return _json(service.start(_tables(request), token, player, body.version, test))


# -- the match -----------------------------------------------------------------------------
# The move, the most frequent request of a table: its credential read, its change and its
# answer in one thread trip (`games.MoveRoute`), without FastAPI's dependency solving.
moves = APIRouter(route_class=games.MoveRoute)


@moves.post("/{token}/moves", response_model=OnlineTable, responses=_WRITE)
def move(token: str, body: KCMove, player_id: DeviceIdDep, request: Request) -> Response:
    """A move for the caller's seat that is to play: ``"9H>N"``, ``"E>NW"`` or ``"end"``."""
    player = player_of(request.app.state, player_id)
    return _json(service.move(_tables(request), token, player, body.version, body.move))


router.include_router(moves)


@router.post("/{token}/undo", response_model=OnlineTable, responses=_WRITE)
def undo(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """Take back the caller's last play or pile move of this turn."""
    return _json(service.undo(_tables(request), token, player, body.version))


@router.post("/{token}/reveal", response_model=OnlineTable, responses=_WRITE)
def reveal(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """The host's device shows the hand of its person who is to play next."""
    return _json(service.reveal(_tables(request), token, player, body.version))


@router.post("/{token}/next-round", response_model=OnlineTable, responses=_WRITE)
def next_round(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """Any seated person deals the next round once a round is over."""
    return _json(service.next_round(_tables(request), token, player, body.version))


@router.post("/{token}/rematch", response_model=OnlineTable, responses=_WRITE)
def rematch(
    token: str, body: VersionOnly, player: PlayerDep, runtime: RuntimeDep, request: Request
) -> Response:
    """After the match: the caller is ready; once every present person is, the same seats
    start a new match (a new shuffle)."""
    test = games.requested_seed(runtime, request)
    return _json(service.rematch(_tables(request), token, player, body.version, test))


# -- after a round ---------------------------------------------------------------------------
@router.get("/{token}/rounds/{number}", response_model=OnlineReplay, responses=_REPLAY)
async def round_replay(
    token: str, number: RoundNumber, player: PlayerDep, request: Request
) -> Response:
    """A finished round of this match turn by turn with every hand shown, and for each turn
    what the strong computer would have played from that seat's view (the review's replay,
    docs/review.md), for anyone who may see the table. 409 ``wrong_phase`` until that round
    is over. Worked out once per round and process (admitted like a hint: 429
    ``rate_limited`` beyond the caller's search rate) and kept; a request for a round being
    worked out for another waits without holding a thread (at most 2 per player)."""
    replay = await service.replay_round(_tables(request), token, number, player)
    return games.answer(replay)
