"""What the online tables do (docs/online.md), for the HTTP routes (routes.py) and the live
channel (live.py): make a table, find one by its room code, show it, change it on a request,
deal a match, replay a finished round, and keep each live connection's presence. The
per-process state they work with (the store, the views rendered once, the tables last saved
or read, the driver, the rate limits) is `tables.OnlineTables`.

Every state-changing request loads the table, checks ``version``, asks the `Room` for the
change (a move only for the caller's own seat, host-only actions only for the host) and saves
it with compare-and-set (`act`, over `OnlineTables.change`); the answer is the table as the
caller's device may see it, with the events of this change. Code lookups and joins are
rate-limited per address and per code.
"""

from __future__ import annotations

import io
import logging
import re
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime

import segno
from fastapi.concurrency import run_in_threadpool

from cardtable import fairness
from cardtable import kings_corner as kc
from cardtable.server.core.errors import ApiError, invalid, not_found, wrong_phase
from cardtable.server.core.metrics import MOVES, count_refusal
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.core.runtime import SITE_LOOKUPS
from cardtable.server.core.store import StaleVersion
from cardtable.server.games.public import KCReplay, kc_replay, kc_rules
from cardtable.server.games.public import records as games
from cardtable.server.online import codes, mine
from cardtable.server.online.models import (
    CodeFound,
    Created,
    Join,
    MineTable,
    MineTables,
    NewTable,
    OnlineReplay,
    OnlineTable,
)
from cardtable.server.online.render import Rendered, device_view
from cardtable.server.online.room import Config, Refused, Room
from cardtable.server.online.store import OnlineStore, RoomRecord, TooManyTables
from cardtable.server.online.tables import OnlineTables, Present, load_room

log = logging.getLogger("cardtable.server.online")
STATUS = {
    "not_host": 403,
    "invalid_request": 422,
    "invalid_name": 422,
}
"""The HTTP status of a `Refused` change, by its code (409 for any other)."""
ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(:[0-9]{1,5})?")
PAGE = "/kings-corner-online.html"

RoomChange = Callable[[Room, float], Room | None]
"""A change asked for, given the table and the time now (None: nothing to save)."""
RoomDeal = Callable[[Room, str, int, float, str | None], Room]
"""A change that deals a new match (`Room.start`, `Room.rematch`)."""


def refused(exc: Refused) -> ApiError:
    return refused_code(exc.code, exc.message)


def refused_code(code: str, message: str) -> ApiError:
    """A refused change's error, with its HTTP status (`STATUS`; 409 for any other)."""
    return ApiError(STATUS.get(code, 409), code, message)


def too_many_tables(most: int | None, lobby_hours: float) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"you already have {most} online tables that are not finished, the most one player "
        "may have: finish one (or leave its lobby) before making another; a table that never "
        f"starts is deleted {lobby_hours:g} hours after it was made",
        headers={"Retry-After": "60"},
    )


# -- reading -------------------------------------------------------------------------------
def _key(token: str) -> str:
    if not codes.TOKEN.fullmatch(token):
        raise not_found("table")
    return codes.table_key(token)


token_key = _key
"""The store's key of a token (404 ``not_found`` for a malformed one): the Poker Squares
tables' too."""


def _record(tables: OnlineTables, token: str) -> RoomRecord:
    record = tables.store.load(_key(token))
    if record is None:
        raise not_found("table")
    return record


def load(tables: OnlineTables, key: str) -> RoomRecord | None:
    """Table ``key`` as stored now (None when there is none)."""
    return tables.store.load(key)


def _table(record: RoomRecord, room: Room, player: str | None, token: str,
           since: int | None = None) -> OnlineTable:  # fmt: skip
    view = device_view(room, player, token=token, code=record.code, now=time.time(), since=since)
    return OnlineTable.model_validate(view)


def rendered(tables: OnlineTables, record: RoomRecord, player: str | None, token: str,
             since: int | None = None) -> Rendered:  # fmt: skip
    """The table at ``record`` as the caller's device may see it, rendered once per version
    and seat for every connection and answer that shows it (`OnlineTables.views`, validated
    against `OnlineTable` there)."""
    room = load_room(record)
    return tables.views.get(room, player, token=token, code=record.code, since=since)


def view(tables: OnlineTables, token: str, player: str | None) -> str:
    """The table as the caller's device may see it (no seat: a spectator's view), as the
    JSON text its live connections are sent."""
    return rendered(tables, _record(tables, token), player, token).table(time.time())


def _stale(tables: OnlineTables, token: str, player: str) -> ApiError:
    record = _record(tables, token)
    current = _table(record, load_room(record), player, token)
    return games.stale(current)


# -- changing ------------------------------------------------------------------------------
ONLINE_MOVES = MOVES.labels(game="kings_corner_online", by="person")
"""A person's play or undo saved at an online table (the computers': driver.py)."""


def act(
    tables: OnlineTables,
    token: str,
    player: str,
    version: int,
    change: RoomChange,
    current: Callable[[Room, int], bool] = Room.current,
) -> str:
    """Load, check the version, change (given the time now), save with compare-and-set,
    answer the caller's view (JSON text) with this change's events. A version that only the
    spectator count has moved on from is still current (`Room.current`, or ``current``); a
    save that lost to such a change is made again on the newer version. The table this
    process saved or read last is changed without reading the store first when it is at the
    caller's ``version`` (the save's compare-and-set refuses it if the store has moved on;
    then the store is read): all in `OnlineTables.change`."""
    key = _key(token)

    def check(record: RoomRecord, room: Room) -> None:
        if not current(room, version):
            raise games.stale(_table(record, room, player, token))

    try:
        changed = tables.change(
            key,
            lambda room: change(room, time.time()),
            first=tables.kept(key, version),
            check=check,
        )
    except Refused as exc:
        raise refused(exc) from None
    except StaleVersion:
        raise _stale(tables, token, player) from None
    if changed is None:
        raise not_found("table")
    # Saved: the stored version (decoded once by the save), shared with this change's pushes.
    answer = rendered(tables, changed.record, player, token, since=changed.since)
    return answer.table(time.time())


def _deal(
    tables: OnlineTables, token: str, player: str, version: int, deal: RoomDeal, test: int | None
) -> str:
    """A change that deals a new match with its integer seed (who starts) and its fair seed
    (every round's deal, docs/fairness.md); a test's seed ``test`` (``X-Test-Seed``) deals
    from the integer seed alone."""
    seed, fair = (test, None) if test else (secrets.randbits(63), fairness.new_seed())
    return act(tables, token, player, version, lambda r, now: deal(r, player, seed, now, fair))


def join(tables: OnlineTables, token: str, body: Join, player: str, address: str) -> str:
    """The caller takes ``seat`` (or the first open seat) under ``name``; rate-limited per
    client address and per table."""
    runtime = tables.runtime
    runtime.limit(tables.join_limit, address)
    if codes.TOKEN.fullmatch(token):
        runtime.limit(tables.table_limit, "table:" + codes.table_key(token))
    name = codes.display_name(body.name)
    return act(
        tables, token, player, body.version, lambda r, now: r.join(player, name, body.seat, now)
    )


def leave(tables: OnlineTables, token: str, player: str, version: int) -> str:
    return act(tables, token, player, version, lambda r, now: r.leave(player, now))


def seat_computer(
    tables: OnlineTables, token: str, player: str, version: int, seat: int, strength: str
) -> str:
    return act(
        tables, token, player, version,
        lambda r, now: r.seat_computer(player, seat, strength, now),
    )  # fmt: skip


def hand_to_computer(tables: OnlineTables, token: str, player: str, version: int, seat: int) -> str:
    return act(
        tables, token, player, version,
        lambda r, now: r.hand_to_computer(player, seat, now), Room.seen,
    )  # fmt: skip


def reopen(tables: OnlineTables, token: str, player: str, version: int, seat: int) -> str:
    return act(
        tables, token, player, version,
        lambda r, now: r.reopen(player, seat, now), Room.seen,
    )  # fmt: skip


def start(tables: OnlineTables, token: str, player: str, version: int, test: int | None) -> str:
    return _deal(tables, token, player, version, Room.start, test)


def move(tables: OnlineTables, token: str, player: str, version: int, text: str) -> str:
    answer = act(tables, token, player, version, lambda r, now: r.move(player, text, now))
    ONLINE_MOVES.inc()
    return answer


def undo(tables: OnlineTables, token: str, player: str, version: int) -> str:
    answer = act(tables, token, player, version, lambda r, now: r.undo(player, now))
    ONLINE_MOVES.inc()
    return answer


def reveal(tables: OnlineTables, token: str, player: str, version: int) -> str:
    return act(tables, token, player, version, lambda r, now: r.reveal(player, now))


def next_round(tables: OnlineTables, token: str, player: str, version: int) -> str:
    return act(tables, token, player, version, lambda r, now: r.next_round(player, now))


def rematch(tables: OnlineTables, token: str, player: str, version: int, test: int | None) -> str:
    return _deal(tables, token, player, version, Room.rematch, test)


# -- creating and finding a table --------------------------------------------------------
def create(tables: OnlineTables, body: NewTable, player: str, address: str) -> Created:
    """A new table; seat 0 is the caller ("me"), who hosts it. A player has at most
    `OnlineSettings.max_open_tables` unfinished tables, and a client address creates at most
    `create_burst` at once and `create_rate` a second after (429 ``rate_limited`` beyond);
    making one deletes the player's oldest finished tables beyond `max_finished_tables`."""
    settings = tables.settings
    tables.runtime.limit(tables.create_limit, address)
    if body.seats[0].kind != "me" or any(s.kind == "me" for s in body.seats[1:]):
        raise invalid('seats: seat 0, and only seat 0, is "me"')
    timer = _timer(body, settings)
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
    config = _config(body, timer, settings)
    now = time.time()
    token = codes.new_token()
    room = Room.create(config, specs, player, name, now, invite=token)
    key = codes.table_key(token)
    try:
        code = tables.store.create(
            key, room.to_dict(), at=now, code_until=now + settings.code_hours * 3600,
            due_at=room.due_at, creator=player, most=settings.max_open_tables,
            then=lambda tx: mine.index(tables.store, tx, key, 0, room),
        )  # fmt: skip
    except TooManyTables:
        count_refusal("online_open_tables")
        raise too_many_tables(settings.max_open_tables, settings.lobby_hours) from None
    tables.store.prune_finished(player, settings.max_finished_tables)
    tables.driver.wake(room.due_at)
    record = RoomRecord(key, code, 1, room.to_dict())
    return Created(token=token, code=code, table=_table(record, room, player, token))


def _timer(body: NewTable, settings: OnlineSettings) -> float | None:
    """The seconds a turn of the new table (``turn_timer`` or ``turn_seconds``): at a live
    table none or one of `OnlineSettings.turn_timers`, at a turn-based one one of
    `OnlineSettings.turn_paces`."""
    given = {t for t in (body.turn_timer, body.turn_seconds) if t is not None}
    if len(given) > 1:
        raise invalid("turn_timer and turn_seconds: the same seconds, or only one of them")
    timer = next(iter(given), None)
    if body.pace == "turn":
        if timer not in settings.turn_paces:
            choices = ", ".join(f"{t:g}" for t in settings.turn_paces)
            raise invalid(f"turn_seconds: a turn-based table takes one of {choices}")
    elif timer is not None and timer not in settings.turn_timers:
        choices = ", ".join(f"{t:g}" for t in settings.turn_timers)
        raise invalid(f"turn_timer: null or one of {choices}")
    return timer


def _config(body: NewTable, timer: float | None, settings: OnlineSettings) -> Config:
    return Config(
        players=len(body.seats),
        rules=kc_rules(body.rules),
        rounds=body.rounds,
        turn_timer=timer,
        grace=settings.grace_seconds,
        stand_in=body.stand_in,
        step=settings.computer_step_seconds,
        pace=body.pace,
    )


def find_code(tables: OnlineTables, code: str, address: str) -> CodeFound:
    """The token of the open table with this room code (rate-limited per address, per code,
    per process and for the whole site)."""
    return CodeFound(token=code_token(tables, tables.store, code, address))


def code_token(tables: OnlineTables, store: OnlineStore, code: str, address: str) -> str:
    """The token of the open table of ``store`` (these tables' or the Poker Squares
    tables') with this room code, under ``tables``' lookup limits (404 ``not_found``)."""
    runtime = tables.runtime
    runtime.limit(tables.lookup_limit, address)
    normal = codes.normal_code(code)
    if normal is None:
        raise not_found("table")
    runtime.limit(tables.table_limit, "code:" + normal)
    runtime.limit(tables.lookups_limit, "all")
    runtime.site_limit(SITE_LOOKUPS, datetime.now(UTC))
    key = store.by_code(normal, time.time())
    if key is None:
        raise not_found("table")
    # The row's key is the token's hash; the token itself stays in the state while the code
    # leads to it (docs/online.md "Words").
    record = store.load(key)
    token = None if record is None else record.state.get("invite")
    if not isinstance(token, str):
        raise not_found("table")
    return token


def invite_qr(tables: OnlineTables, token: str, origin: str, address: str) -> bytes:
    """The invite link ``<origin>/kings-corner-online.html#<token>`` as a QR code (SVG),
    rate-limited per client address."""
    tables.runtime.limit(tables.qr_limit, address)
    check_origin(origin)
    _record(tables, token)
    return qr_svg(f"{origin}{PAGE}#{token}")


def check_origin(origin: str) -> None:
    """422 unless ``origin`` is a page's origin (``http(s)://host[:port]``)."""
    if not ORIGIN.fullmatch(origin):
        raise invalid("origin: the page's origin, such as https://example.org")


def qr_svg(link: str) -> bytes:
    """``link`` as a QR code (SVG), as every invite shows it."""
    buffer = io.BytesIO()
    segno.make(link, error="m").save(
        buffer, kind="svg", xmldecl=False, scale=4, title="Invite link"
    )
    return buffer.getvalue()


# -- after a round ---------------------------------------------------------------------------
async def replay_round(tables: OnlineTables, token: str, number: int, player: str) -> OnlineReplay:
    """A finished round of this match turn by turn with every hand shown, and for each turn
    what the strong computer would have played from that seat's view (the review's replay,
    docs/review.md). 409 ``wrong_phase`` until that round is over. Worked out once per round
    and process (admitted like a hint: 429 ``rate_limited`` beyond the caller's search rate)
    and kept; a request for a round being worked out for another waits without holding a
    thread (at most 2 per player)."""
    kc_replay.REPLAYS.check(player)
    record = await run_in_threadpool(_record, tables, token)
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
            tables.runtime.admission, f"online/{record.key}/round/{number}", player,
            kc_replay.with_outcomes, start, rounds, number,
        )  # fmt: skip
        out["seats"] = [kind for kind, _ in game.seats]
        out["finished_rounds"] = done
        return KCReplay.model_validate(out)

    key = (f"online/{record.key}/{room.matches}", number)
    kept = await kc_replay.REPLAYS.get(key, player, compute)
    return OnlineReplay.model_construct(
        **{**dict(kept), "finished_rounds": done},  # kept from an earlier ask: it grows
        names=[s.name if s.kind == "person" else None for s in room.seats],
        me=room.seats_of(player),
    )


# -- presence of the live connections ----------------------------------------------------------
def arrive(tables: Present, connection: str, key: str, player: str, *, seated: bool) -> bool:
    """A live connection to table ``key`` (these tables' or the Poker Squares tables') said
    hello: its presence row, then its device's seats are connected, or the spectator count
    follows. False (and no presence) when the table has too many spectators already."""
    now = time.time()
    store = tables.store
    store.present(connection, key, player, seated=seated, process=tables.process, at=now)
    tables.live.add(connection)
    if seated:
        tables.change(key, lambda room: room.connected(player, now))
        return True
    count = store.spectators(key, tables.fresh_after(now))
    if count > tables.settings.max_spectators:
        tables.live.discard(connection)
        store.absent(connection)
        return False
    tables.change(key, lambda room: room.with_spectators(count))
    return True


def reseat(tables: Present, connection: str, *, seated: bool) -> None:
    """The presence row of ``connection`` now counts (or no longer counts) as a seat's."""
    tables.store.reseat(connection, seated=seated)


def reseated(tables: Present, key: str, player: str, *, seated: bool, now: float) -> None:
    """After `reseat`: a device that took a seat is connected there; the spectator count
    follows either way."""
    if seated:
        tables.change(key, lambda room: room.connected(player, now))
    count = tables.store.spectators(key, tables.fresh_after(now))
    tables.change(key, lambda room: room.with_spectators(count))


def depart(tables: Present, connection: str, key: str, player: str, *, seated: bool) -> None:
    """A live connection to table ``key`` closed: its presence row goes, and its seats' grace
    period starts when it was the device's last one (`OnlineTables.left`)."""
    tables.live.discard(connection)
    try:
        tables.store.absent(connection)
        tables.left(key, player, seated, time.time())
    except Exception:
        log.exception("live: leaving table %s", key[:8])


def my_tables(tables: OnlineTables, player: str) -> MineTables:
    """The caller's tables ("Your tables"), as the seats index has them (mine.py),
    rate-limited per player like a table's reads; finished ones until retention removes
    them (`OnlineSettings.finished_hours`)."""
    tables.runtime.limit(tables.table_limit, "mine:" + player)
    now = time.time()
    listed = mine.tables(
        tables.store, player, finished_after=now - tables.settings.finished_hours * 3600
    )
    return MineTables(
        now=mine.iso(now) or "",
        tables=[
            MineTable.model_validate(
                {
                    **t.summary,
                    "token": t.token,
                    "deadline": mine.iso(t.summary.get("deadline")),
                    "your_turn": t.your_turn,
                    "updated": mine.iso(t.updated),
                }
            )
            for t in listed
        ],
    )
