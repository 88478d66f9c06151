"""What the Poker Squares tables do (docs/ps-tables.md), for the routes and the live channel:
make a table, find it by its room code, show it, change its row on a request (join, leave,
start, rematch: compare-and-set, `PSTables.change`), save a placement (a row of its own, then
the next card when everyone has placed), and keep each live connection's presence.

Rate limits are the online tables' (the same buckets): creation per address and the open
tables per player, code lookups per address, per code, per process and for the whole site,
joins per address and per table, QR drawings per address.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from cardtable.fairness import Fair
from cardtable.server.core.errors import ApiError, not_found
from cardtable.server.core.metrics import MOVES, count_refusal
from cardtable.server.online.public import (
    RoomRecord,
    TooManyTables,
    check_origin,
    code_token,
    codes,
    qr_svg,
    refused_code,
    token_key,
    too_many_tables,
)
from cardtable.server.pstables.models import NewPSTable, PSCodeFound, PSCreated, PSTable
from cardtable.server.pstables.render import Views, device_view
from cardtable.server.pstables.room import Refused, Room, Settings
from cardtable.server.pstables.store import Placement, Record
from cardtable.server.pstables.tables import PSTables, load

log = logging.getLogger("cardtable.server.pstables")
PAGE = "/poker-squares-table.html"
PLACED = MOVES.labels(game="poker_squares_table", by="person")
"""A person's placement saved at a Poker Squares table (the hint's: driver.py)."""
VIEWS = Views()

RoomChange = Callable[[Room, Record, float], Room | None]


def refused(exc: Refused) -> ApiError:
    return refused_code(exc.code, exc.message)


# -- reading -------------------------------------------------------------------------------
key_of = token_key
"""The store's key of a token (404 ``not_found`` for a malformed one)."""


def record_of(tables: PSTables, token: str) -> Record:
    record = tables.read(key_of(token))
    if record is None:
        raise not_found("table")
    return record


def text(record: Record, token: str, player: str | None) -> str:
    """The table as the device of ``player`` may see it, as JSON text (rendered once per
    version and seat)."""
    return VIEWS.text(load(record), record, token, player)


def view(tables: PSTables, token: str, player: str | None) -> str:
    return text(record_of(tables, token), token, player)


# -- creating and finding ------------------------------------------------------------------
def create(tables: PSTables, body: NewPSTable, player: str, address: str) -> PSCreated:
    online = tables.online
    settings = online.settings
    tables.runtime.limit(online.create_limit, address)
    name = codes.display_name(body.name)
    now = time.time()
    token = codes.new_token()
    rules = Settings(body.table, body.card_seconds, body.max_players, settings.grace_seconds)
    room = Room.create(rules, player, name, now, Fair.new(), invite=token)
    key = codes.table_key(token)
    try:
        code = tables.store.create(
            key, room.to_dict(), at=now, code_until=now + settings.code_hours * 3600,
            due_at=None, creator=player, most=settings.max_open_tables,
        )  # fmt: skip
    except TooManyTables:
        count_refusal("online_open_tables")
        raise too_many_tables(settings.max_open_tables, settings.lobby_hours) from None
    tables.store.prune_finished(player, settings.max_finished_tables)
    record = Record(RoomRecord(key, code, 1, room.to_dict()), (), 0)
    table = PSTable.model_validate(device_view(room, record, token, player))
    return PSCreated(token=token, code=code, table=table)


def find_code(tables: PSTables, code: str, address: str) -> PSCodeFound:
    """The token of the open table with this room code, under the online tables' limits."""
    return PSCodeFound(token=code_token(tables.online, tables.store, code, address))


def invite_qr(tables: PSTables, token: str, origin: str, address: str) -> bytes:
    tables.runtime.limit(tables.online.qr_limit, address)
    check_origin(origin)
    record_of(tables, token)
    return qr_svg(f"{origin}{PAGE}#{token}")


# -- changing the row ----------------------------------------------------------------------
def act(tables: PSTables, token: str, player: str, change: RoomChange) -> str:
    """Change the table's row (compare-and-set, again on a newer row when another change
    came first) and answer the caller's view. A change that begins a new deal (a rematch)
    gets its fair seed here."""
    key = key_of(token)

    def changed(room: Room, record: Record) -> Room | None:
        now = time.time()
        new = change(room, record, now)
        if new is not None and new.wants_deal(room):
            new = new.new_deal(Fair.new(), now)
        return new

    try:
        record = tables.change_with(key, changed)
    except Refused as exc:
        raise refused(exc) from None
    if record is None:
        raise not_found("table")
    return text(record, token, player)


def join(tables: PSTables, token: str, name: str, player: str, address: str) -> str:
    online = tables.online
    tables.runtime.limit(online.join_limit, address)
    if codes.TOKEN.fullmatch(token):
        tables.runtime.limit(online.table_limit, "table:" + codes.table_key(token))
    shown = codes.display_name(name)
    return act(tables, token, player, lambda r, _, now: r.join(player, shown, now))


def leave(tables: PSTables, token: str, player: str) -> str:
    return act(tables, token, player, lambda r, _, now: r.leave(player, now))


def start(tables: PSTables, token: str, player: str) -> str:
    return act(tables, token, player, lambda r, _, now: r.start(player, now))


def rematch(tables: PSTables, token: str, player: str) -> str:
    return act(tables, token, player, lambda r, _, now: r.rematch(player, now))


# -- placing -------------------------------------------------------------------------------
def place(tables: PSTables, token: str, player: str, card: int, cell: str) -> str:
    """Save the caller's placement of the card on show (its own row: no other player's
    placement waits for it), then show the next card if everyone has placed. A refusal for
    the card on show (placed already, a stale card) still looks whether the next card is
    due, in case the process that saved the last placement stopped before showing it."""
    key = key_of(token)
    record = tables.read(key)
    if record is None:
        raise not_found("table")
    room = load(record)
    try:
        seat, index = room.check_place(player, card, cell, record.placed())
    except Refused as exc:
        if exc.code in ("already_placed", "stale_card"):
            next_card(tables, key)
        raise refused(exc) from None
    saved = tables.store.place(key, room.deal, [Placement(seat, card, index, None, time.time())])
    if not saved:
        # Another request (or the hint) placed this card, or filled the cell, just now.
        fresh = tables.read(key)
        again = fresh is not None and load(fresh).deal == room.deal
        if again and fresh is not None:
            try:
                load(fresh).check_place(player, card, cell, fresh.placed())
            except Refused as exc:
                raise refused(exc) from None
        raise refused_code("already_placed", "you placed this card already")
    PLACED.inc()
    after = next_card(tables, key, placed=True)
    if after is None:
        raise not_found("table")
    return text(after, token, player)


def next_card(
    tables: PSTables, key: str, *, placed: bool = False, now: float | None = None
) -> Record | None:
    """Show the next card if every seat has placed the one on show (compare-and-set on the
    row: when several placements end a card at once, one shows the next); the table as it
    is now. ``placed``: a placement was just saved, so the devices hear of the table even
    when the card stays; ``now``: the driver's clock (default: the time now)."""
    at = time.time() if now is None else now
    return tables.change_with(
        key, lambda room, rec: room.after_placing(rec.placed(), at), news=placed
    )
