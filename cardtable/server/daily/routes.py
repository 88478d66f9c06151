"""The daily deal's routes (docs/daily.md, docs/api.md "Daily deal"): each parses the
request, asks `service` and answers. The clock is the request's: tests inject one as
``app.state.daily_clock``."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Query, Request

from cardtable.server.core.errors import responses
from cardtable.server.core.runtime import RuntimeDep, StoreDep
from cardtable.server.daily import service
from cardtable.server.daily.days import clock
from cardtable.server.daily.models import (
    DailyDay,
    DailyPlay,
    DailyPlayRequest,
    DisplayName,
    NameChange,
    PointTable,
)
from cardtable.server.devices.public import PlayerDep

router = APIRouter(prefix="/api/daily", tags=["daily"])

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@router.get("/{table}", response_model=DailyDay, responses=responses(401, 404, 422))
def daily(
    table: PointTable,
    player: PlayerDep,
    store: StoreDep,
    request: Request,
    day: Annotated[
        str | None,
        Query(
            pattern=_DAY.pattern,
            description="YYYY-MM-DD: the player's own date; the UTC date by default.",
        ),
    ] = None,
) -> DailyDay:
    """The day's deal at ``table``: the player's entry, rank and streak, the top 100, the
    histogram of every ranked total and the earlier days."""
    return service.day_answer(store, player, table, day, clock(request))


@router.post(
    "/{table}/play",
    status_code=201,
    response_model=DailyPlay,
    responses=responses(401, 404, 409, 422),
)
def play(
    table: PointTable,
    player: PlayerDep,
    store: StoreDep,
    runtime: RuntimeDep,
    request: Request,
    body: DailyPlayRequest | None = None,
) -> DailyPlay:
    """Deal the player's date's deal (``day``, the UTC date by default): the first attempt
    (counted if played unassisted), the same attempt again while it is unfinished, or a
    practice replay after it. 404 for a date no time zone has reached, 409 ``day_closed``
    once every one has left it; 409 ``replaces_counted`` when it would replace the other
    table's counted attempt, unless ``replace_counted``."""
    replace_counted = body is not None and body.replace_counted
    day = None if body is None else body.day
    return service.play(
        store, runtime, player, table, clock(request), day=day, replace_counted=replace_counted
    )


@router.put("/me/name", response_model=DisplayName, responses=responses(401, 422))
def set_name(body: NameChange, player: PlayerDep, store: StoreDep) -> DisplayName:
    """Set the display name on the boards, as it will show (NFKC-normalised, trimmed, without
    control, format or blank characters, at most 24 characters). 422 for a body without
    ``name``, or a name that would show nothing a reader can see, stacks accents or holds a
    character drawn far wider than a letter (``invalid_name``, ``reason`` ``not_seen``), or
    holds a word no one should have to read (``reason`` ``not_polite``). Null, or a text of
    spaces, makes the player anonymous."""
    return service.set_name(store, player, body.name)
