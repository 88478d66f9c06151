"""Preset reactions at an online table (docs/online.md "Reactions"): ``POST
/api/kings-corner/online/{token}/reactions`` with ``{"key": ...}``, one of `relay.KEYS`.

Only a person seated at the table may react (403 ``not_seated`` for a spectator); the
reaction is said from the caller's seat (on a shared device, the seat whose hand it shows, or
its first). Each device may say `BURST` at once and then one every `1 / RATE` seconds (429
``rate_limited`` with ``Retry-After`` past it, counted as ``online_reaction_rate``): a
reaction shows for about four seconds beside its seat, so a device can never have more than
one on screen at a time once its burst is spent, and three taps in a row ("Good luck",
"Thanks", "Oops") still go through. The limit is kept in the store (core/limits_store.py), so
it holds however many processes the device's requests reach.

A reaction changes nothing: not the table's version, not its log, no row of its own. It
travels to every live connection at the table in every process (relay.py) as ``{"type":
"reaction", "seat", "key", "at"}`` and to no device twice; the caller's own device is answered
the same four keys (201) and shows it from there.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from cardtable.server.core import models
from cardtable.server.core.errors import ApiError, not_found, rate_limited, responses
from cardtable.server.core.limits_store import StoredLimits
from cardtable.server.core.metrics import count_refusal
from cardtable.server.core.ratelimit import retry_after
from cardtable.server.devices.public import DeviceIdDep, authenticate, now_of
from cardtable.server.online import codes
from cardtable.server.online.fanout import PgFanout
from cardtable.server.online.relay import CHANNEL, Key, Reaction, sender_tag
from cardtable.server.online.tables import OnlineTables, load_room

router = APIRouter(prefix="/api/kings-corner/online", tags=["kings-corner-online"])

RATE = 0.25
"""Reactions a second one device may say after its burst: one every 4 s."""
BURST = 3
LIMIT = "reaction"
"""The stored limit's name (rate_limits.name), keyed by the device's credential."""
REFUSED = "online_reaction_rate"


class NewReaction(models.Request):
    key: Key = Field(description="Which preset reaction.")


class ReactionOut(models.Response):
    type: Literal["reaction"]
    seat: Annotated[int, Field(ge=0, le=3, description="The seat it was said from.")]
    key: Key
    at: str = Field(description="When it was said (ISO 8601, UTC).")


@router.post(
    "/{token}/reactions",
    status_code=201,
    response_model=ReactionOut,
    responses=responses(401, 403, 404),
)
def react(token: str, body: NewReaction, player_id: DeviceIdDep, request: Request) -> ReactionOut:
    """A preset reaction from the caller's seat, shown briefly beside it on every other
    device at the table (their live connections get ``{"type": "reaction", "seat", "key",
    "at"}``). Seated persons only (403 ``not_seated``); each device 3 at once, then
    one every 4 s (429 ``rate_limited`` with ``Retry-After``). Nothing of the table
    changes."""
    return say(request.app.state, token, body.key, player_id)


def say(state: Any, token: str, key: str, player_id: str) -> ReactionOut:
    """The reaction ``key`` from the device ``player_id`` at table ``token``, handed to
    every process's relay (see the module's docstring); ``state`` is the app's."""
    tables: OnlineTables = state.online
    runtime = tables.runtime
    now = now_of(state)
    device = authenticate(runtime, player_id, now)
    runtime.limit(runtime.player_limit, device.player)
    if not codes.TOKEN.fullmatch(token):
        raise not_found("table")
    table = codes.table_key(token)
    record = tables.store.load(table)
    if record is None:
        raise not_found("table")
    room = load_room(record)
    seats = room.seats_of(device.player)
    if not seats:
        raise ApiError(403, "not_seated", "only a person seated at this table can react")
    seat = room.viewer(device.player)
    wait = StoredLimits(runtime.store).take(LIMIT, device.cred, RATE, BURST, now.timestamp())
    if wait > 0:
        count_refusal(REFUSED)
        raise rate_limited(retry_after(wait))
    at = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    reaction = Reaction(
        secrets.token_hex(8), table, sender_tag(device.cred), seats[0] if seat is None else seat,
        key, at,
    )  # fmt: skip
    tables.hub.reactions.deliver(reaction)
    if isinstance(tables.fanout, PgFanout):
        with tables.store.sql.transaction() as tx:
            tx.execute("SELECT pg_notify(%s, %s)", (CHANNEL, reaction.payload()))
    return ReactionOut.model_validate(reaction.message())
