"""The daily archive's routes (docs/daily.md "The archive", docs/api.md "Daily deal"): the
calendar of a month and a past date dealt again as practice. Each asks `archive` and
answers; the player's request rate is bounded like every player route (`PlayerDep`), a month
is at most 31 dates and a deal replaces the player's current one (retention prunes)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from cardtable.server.core.errors import responses
from cardtable.server.core.runtime import RuntimeDep, StoreDep
from cardtable.server.daily import archive
from cardtable.server.daily.archive_models import ArchivePlayRequest, DailyArchive
from cardtable.server.daily.days import clock
from cardtable.server.daily.models import DAY_PATTERN, DailyPlay, PointTable
from cardtable.server.devices.public import PlayerDep

router = APIRouter(prefix="/api/daily", tags=["daily"])


@router.get("/archive/{table}", response_model=DailyArchive, responses=responses(401, 404, 422))
def month(
    table: PointTable,
    player: PlayerDep,
    store: StoreDep,
    request: Request,
    month: Annotated[str, Query(pattern=r"^\d{4}-\d{2}$", description="YYYY-MM.")],
) -> DailyArchive:
    """The dates of ``month`` at ``table``: which can be played from the archive, which are
    still open somewhere, and the caller's best practice total on each. 404 for a month no
    time zone has reached."""
    return archive.month_answer(store, player, table, month, clock(request))


@router.post(
    "/{table}/archive/{day}/play",
    status_code=201,
    response_model=DailyPlay,
    responses=responses(401, 404, 409, 422),
)
def play(
    table: PointTable,
    day: Annotated[str, Path(pattern=DAY_PATTERN, description="YYYY-MM-DD")],
    player: PlayerDep,
    store: StoreDep,
    runtime: RuntimeDep,
    request: Request,
    body: ArchivePlayRequest | None = None,
) -> DailyPlay:
    """Deal the past date ``day``'s deal again, as practice (never on its board or in a
    streak). 404 for a date with no deal or not reached yet; 409 ``day_open`` while some time
    zone is still on it; 409 ``replaces_counted`` over a counted attempt unless
    ``replace_counted``."""
    replace_counted = body is not None and body.replace_counted
    return archive.play(
        store, runtime, player, table, day, clock(request), replace_counted=replace_counted
    )
