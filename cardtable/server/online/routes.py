"""The online tables over HTTP (docs/online.md); the live channel is `live.py`.

Every state-changing request loads the table, checks ``version``, asks the `Room` for the
change (a move only for the caller's own seat, host-only actions only for the host) and saves
it with compare-and-set; the answer is the table as the caller's device may see it, with the
events of this change. Code lookups and joins are rate-limited per address and per code.
"""

from __future__ import annotations

import io
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated

import segno
from fastapi import APIRouter, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable.server.core.errors import ApiError, invalid, not_found, responses, wrong_phase
from cardtable.server.core.models import VersionOnly
from cardtable.server.core.ratelimit import request_key
from cardtable.server.core.runtime import SITE_LOOKUPS, RuntimeDep
from cardtable.server.core.store import StaleVersion
from cardtable.server.devices.public import DeviceIdDep, PlayerDep, player_of
from cardtable.server.games.public import CustomRules, KCMove, KCReplay, kc_replay
from cardtable.server.games.public import records as games
from cardtable.server.online import codes, live
from cardtable.server.online.model import Config, Refused, Room
from cardtable.server.online.render import device_view
from cardtable.server.online.schema import (
    CodeFound,
    Created,
    Join,
    NewTable,
    OnlineConflict,
    OnlineReplay,
    OnlineTable,
    SeatChange,
)
from cardtable.server.online.service import ATTEMPTS, Online, load_room
from cardtable.server.online.store import RoomRecord, TooManyTables

router = APIRouter(prefix="/api/kings-corner/online", tags=["kings-corner-online"])
router.include_router(live.router)
_READ = responses(401, 404)
_REPLAY = responses(401, 404, 409)
_WRITE = responses(401, 403, 404, 409, 413, 422, conflict=OnlineConflict)
STATUS = {
    "not_host": 403,
    "invalid_request": 422,
    "invalid_name": 422,
}
ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(:[0-9]{1,5})?")
PAGE = "/kings-corner-online.html"
RoundNumber = Annotated[int, Path(ge=1, le=5, description="The round, 1-based.")]


def _online(request: Request) -> Online:
    online: Online = request.app.state.online
    return online


def _address(request: Request) -> str:
    return request_key(request)  # an IPv6 client by its /64


def refused(exc: Refused) -> ApiError:
    return ApiError(STATUS.get(exc.code, 409), exc.code, exc.message)


def _record(online: Online, token: str) -> RoomRecord:
    if not codes.TOKEN.fullmatch(token):
        raise not_found("table")
    record = online.store.load(codes.table_key(token))
    if record is None:
        raise not_found("table")
    return record


def _table(record: RoomRecord, room: Room, player: str | None, token: str,
           since: int | None = None) -> OnlineTable:  # fmt: skip
    view = device_view(room, player, token=token, code=record.code, now=time.time(), since=since)
    return OnlineTable.model_validate(view)


def _answer(online: Online, record: RoomRecord, player: str | None, token: str,
            since: int | None = None) -> Response:  # fmt: skip
    """The table at ``record`` as the caller's device may see it, as the JSON text its live
    connections are sent (`Online.views`: rendered once per version and seat, validated
    against `OnlineTable` there)."""
    rendered = online.views.get(
        load_room(record), player, token=token, code=record.code, since=since
    )
    return Response(rendered.table(time.time()), media_type="application/json")


def _stale(online: Online, token: str, player: str) -> ApiError:
    record = _record(online, token)
    current = _table(record, load_room(record), player, token)
    return games.stale(current)


def _kept(online: Online, token: str, version: int) -> RoomRecord | None:
    """The table this process saved or read last, when it is at the caller's ``version``:
    a change is made from it without reading the store first (the save's compare-and-set
    refuses it if the store has moved on; then `_act` reads the store)."""
    if not codes.TOKEN.fullmatch(token):
        return None
    return online.kept(codes.table_key(token), version)


def _act(
    request: Request,
    token: str,
    player: str,
    version: int,
    change: Callable[[Room, float], Room | None],
    current: Callable[[Room, int], bool] = Room.current,
) -> Response:
    """Load, check the version, change (given the time now), save with compare-and-set,
    answer the caller's view with this change's events. A version that only the spectator
    count has moved on from is still current (`Room.current`, or ``current``); a save that
    lost to such a change is made again on the newer version."""
    online = _online(request)
    kept = _kept(online, token, version)
    for _ in range(ATTEMPTS):
        record = kept or _record(online, token)
        room = load_room(record)
        if not current(room, version):
            raise games.stale(_table(record, room, player, token))
        try:
            new = change(room, time.time())
        except Refused as exc:
            if kept is None:
                raise refused(exc) from None
            new = None  # refused or nothing to save: as the store has it, read it
        if new is None:
            if kept is not None:
                kept = None
                continue
            return _answer(online, record, player, token)
        try:
            saved = online.save(record, new)
        except StaleVersion:
            kept = None
            continue  # another change came first: still current if it only counted spectators
        # The stored version (decoded once by the save), shared with this change's pushes.
        return _answer(online, saved, player, token, since=record.version)
    raise _stale(online, token, player)


def _deal(
    request: Request,
    runtime: RuntimeDep,
    token: str,
    player: str,
    version: int,
    deal: Callable[[Room, str, int, float, str | None], Room],
) -> Response:
    """A change that deals a new match (`Room.start`, `Room.rematch`) with its integer seed
    (who starts) and its fair seed (every round's deal, docs/fairness.md); a test's
    ``X-Test-Seed`` deals from the integer seed alone."""
    test = games.requested_seed(runtime, request)
    seed, fair = (test, None) if test else (secrets.randbits(63), fairness.new_seed())
    return _act(request, token, player, version, lambda r, now: deal(r, player, seed, now, fair))


# -- creating and finding a table --------------------------------------------------------
def too_many_tables(most: int | None, lobby_hours: float) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"you already have {most} online tables that are not finished, the most one player "
        "may have: finish one (or leave its lobby) before making another; a table that never "
        f"starts is deleted {lobby_hours:g} hours after it was made",
        headers={"Retry-After": "60"},
    )


@router.post("", status_code=201, response_model=Created, responses=_WRITE)
def create(body: NewTable, player: PlayerDep, runtime: RuntimeDep, request: Request) -> Created:
    """A new table; seat 0 is the caller ("me"), who hosts it. A player has at most
    `OnlineSettings.max_open_tables` unfinished tables, and a client address creates at most
    `create_burst` at once and `create_rate` a second after (429 ``rate_limited`` beyond);
    making one deletes the player's oldest finished tables beyond `max_finished_tables`."""
    online = _online(request)
    settings = online.settings
    runtime.limit(online.create_limit, _address(request))
    if body.seats[0].kind != "me" or any(s.kind == "me" for s in body.seats[1:]):
        raise invalid('seats: seat 0, and only seat 0, is "me"')
    if body.turn_timer is not None and body.turn_timer not in settings.turn_timers:
        choices = ", ".join(f"{t:g}" for t in settings.turn_timers)
        raise invalid(f"turn_timer: null or one of {choices}")
    name = codes.display_name(body.name)
    specs = []
    for s in body.seats:
        local = getattr(s, "name", None)
        specs.append(
            (
                s.kind,
                getattr(s, "strength", None),
                None if local is None else codes.display_name(local),
            )
        )
    if isinstance(body.rules, CustomRules):
        rules = kc.Rules.from_options(body.rules.model_dump())
    else:
        rules = kc.Rules.preset(body.rules.preset)
    config = Config(
        players=len(body.seats),
        rules=rules,
        rounds=body.rounds,
        turn_timer=body.turn_timer,
        grace=settings.grace_seconds,
        stand_in=body.stand_in,
        step=settings.computer_step_seconds,
    )
    now = time.time()
    token = codes.new_token()
    room = Room.create(config, specs, player, name, now, invite=token)
    key = codes.table_key(token)
    try:
        code = online.store.create(
            key, room.to_dict(), at=now, code_until=now + settings.code_hours * 3600,
            due_at=room.due_at, creator=player, most=settings.max_open_tables,
        )  # fmt: skip
    except TooManyTables:
        raise too_many_tables(settings.max_open_tables, settings.lobby_hours) from None
    online.store.prune_finished(player, settings.max_finished_tables)
    online.driver.wake(room.due_at)
    record = RoomRecord(key, code, 1, room.to_dict())
    return Created(token=token, code=code, table=_table(record, room, player, token))


@router.get("/codes/{code}", response_model=CodeFound, responses=_READ)
def find_code(code: str, player: PlayerDep, request: Request) -> CodeFound:
    """The token of the open table with this room code (rate-limited per address, per code,
    per process and for the whole site)."""
    online = _online(request)
    runtime = online.runtime
    runtime.limit(online.lookup_limit, _address(request))
    normal = codes.normal_code(code)
    if normal is None:
        raise not_found("table")
    runtime.limit(online.table_limit, "code:" + normal)
    runtime.limit(online.lookups_limit, "all")
    runtime.site_limit(SITE_LOOKUPS, datetime.now(UTC))
    key = online.store.by_code(normal, time.time())
    if key is None:
        raise not_found("table")
    # The row's key is the token's hash; the token itself stays in the state while the code
    # leads to it (docs/online.md "Words").
    record = online.store.load(key)
    token = None if record is None else record.state.get("invite")
    if not isinstance(token, str):
        raise not_found("table")
    return CodeFound(token=token)


# -- reading -------------------------------------------------------------------------------
@router.get("/{token}", response_model=OnlineTable, responses=_READ)
def get_table(token: str, player: PlayerDep, request: Request) -> Response:
    """The table as the caller's device may see it (no seat: a spectator's view)."""
    online = _online(request)
    return _answer(online, _record(online, token), player, token)


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
    online = _online(request)
    online.runtime.limit(online.qr_limit, _address(request))
    if not ORIGIN.fullmatch(origin):
        raise invalid("origin: the page's origin, such as https://example.org")
    _record(online, token)
    buffer = io.BytesIO()
    segno.make(f"{origin}{PAGE}#{token}", error="m").save(
        buffer, kind="svg", xmldecl=False, scale=4, title="Invite link"
    )
    return Response(buffer.getvalue(), media_type="image/svg+xml")


# -- the lobby -----------------------------------------------------------------------------
@router.post("/{token}/join", response_model=OnlineTable, responses=_WRITE)
def join(token: str, body: Join, player: PlayerDep, request: Request) -> Response:
    """The caller takes ``seat`` (or the first open seat) under ``name``."""
    online = _online(request)
    online.runtime.limit(online.join_limit, _address(request))
    if codes.TOKEN.fullmatch(token):
        online.runtime.limit(online.table_limit, "table:" + codes.table_key(token))
    name = codes.display_name(body.name)
    return _act(
        request, token, player, body.version, lambda r, now: r.join(player, name, body.seat, now)
    )


@router.post("/{token}/leave", response_model=OnlineTable, responses=_WRITE)
def leave(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """In the lobby the caller's seats open again; in play they are away at once."""
    return _act(request, token, player, body.version, lambda r, now: r.leave(player, now))


@router.post("/{token}/seats/{seat}", response_model=OnlineTable, responses=_WRITE)
def seat_computer(
    token: str, seat: int, body: SeatChange, player: PlayerDep, request: Request
) -> Response:
    """Host only: an open seat, or a person who is away, becomes a computer."""
    return _act(
        request, token, player, body.version,
        lambda r, now: r.seat_computer(player, seat, body.strength, now),
    )  # fmt: skip


@router.post("/{token}/seats/{seat}/stand-in", response_model=OnlineTable, responses=_WRITE)
def hand_to_computer(
    token: str, seat: int, body: VersionOnly, player: PlayerDep, request: Request
) -> Response:
    """Host only, during the match: the stand-in computer plays ``seat`` (a person on another
    device whose connection is gone) now, without waiting for the grace period to end."""
    return _act(
        request, token, player, body.version,
        lambda r, now: r.hand_to_computer(player, seat, now), Room.seen,
    )  # fmt: skip


@router.post("/{token}/seats/{seat}/invite", response_model=OnlineTable, responses=_WRITE)
def reopen(
    token: str, seat: int, body: VersionOnly, player: PlayerDep, request: Request
) -> Response:
    """Host only, during the match: an absent person's seat is open again for someone new
    (the table's link or room code); the absent device no longer holds it, and the stand-in
    plays it until someone takes it."""
    return _act(
        request, token, player, body.version,
        lambda r, now: r.reopen(player, seat, now), Room.seen,
    )  # fmt: skip


@router.post("/{token}/start", response_model=OnlineTable, responses=_WRITE)
def start(
    token: str, body: VersionOnly, player: PlayerDep, runtime: RuntimeDep, request: Request
) -> Response:
    """Host only, in the lobby, once no seat is open: deal the first round."""
    return _deal(request, runtime, token, player, body.version, Room.start)


# -- the match -----------------------------------------------------------------------------
# The move, the most frequent request of a table: its credential read, its change and its
# answer in one thread trip (`games.MoveRoute`), without FastAPI's dependency solving.
moves = APIRouter(route_class=games.MoveRoute)


@moves.post("/{token}/moves", response_model=OnlineTable, responses=_WRITE)
def move(token: str, body: KCMove, player_id: DeviceIdDep, request: Request) -> Response:
    """A move for the caller's seat that is to play: ``"9H>N"``, ``"E>NW"`` or ``"end"``."""
    player = player_of(request.app.state, player_id)
    return _act(request, token, player, body.version, lambda r, now: r.move(player, body.move, now))


router.include_router(moves)


@router.post("/{token}/undo", response_model=OnlineTable, responses=_WRITE)
def undo(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """Take back the caller's last play or pile move of this turn."""
    return _act(request, token, player, body.version, lambda r, now: r.undo(player, now))


@router.post("/{token}/reveal", response_model=OnlineTable, responses=_WRITE)
def reveal(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """The host's device shows the hand of its person who is to play next."""
    return _act(request, token, player, body.version, lambda r, now: r.reveal(player, now))


@router.post("/{token}/next-round", response_model=OnlineTable, responses=_WRITE)
def next_round(token: str, body: VersionOnly, player: PlayerDep, request: Request) -> Response:
    """Any seated person deals the next round once a round is over."""
    return _act(request, token, player, body.version, lambda r, now: r.next_round(player, now))


@router.post("/{token}/rematch", response_model=OnlineTable, responses=_WRITE)
def rematch(
    token: str, body: VersionOnly, player: PlayerDep, runtime: RuntimeDep, request: Request
) -> Response:
    """After the match: the caller is ready; once every present person is, the same seats
    start a new match (a new shuffle)."""
    return _deal(request, runtime, token, player, body.version, Room.rematch)


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
    online = _online(request)
    kc_replay.REPLAYS.check(player)
    record = await run_in_threadpool(_record, online, token)
    room = load_room(record)
    game = room.game
    if game is None:
        raise wrong_phase("the match has not started")
    match = game.match
    done = kc_replay.finished_rounds(match)
    if number > done:
        raise wrong_phase(f"round {number} is not over: it cannot be replayed yet")
    rounds = [list(r) for r in room.moves]

    def checked() -> kc.Match:
        start = kc_replay.start_of(match)
        if not kc_replay.replays_to(start, rounds, match):
            raise wrong_phase("this match's moves were not all kept: it cannot be replayed")
        return start

    async def compute() -> KCReplay:
        start = await run_in_threadpool(checked)
        out = await kc_replay.computed(
            online.runtime.admission, f"online/{record.key}/round/{number}", player,
            kc_replay.with_outcomes, start, rounds, number,
        )  # fmt: skip
        out["seats"] = [kind for kind, _ in game.seats]
        out["finished_rounds"] = done
        return KCReplay.model_validate(out)

    key = (f"online/{record.key}/{room.matches}", number)
    kept = await kc_replay.REPLAYS.get(key, player, compute)
    answer = OnlineReplay.model_construct(
        **{**dict(kept), "finished_rounds": done},  # kept from an earlier ask: it grows
        names=[s.name if s.kind == "person" else None for s in room.seats],
        me=room.seats_of(player),
    )
    return games.answer(answer)
