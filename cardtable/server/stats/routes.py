"""The statistics routes (docs/api.md, "Statistics, history and your data"): each asks
`service` and answers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cardtable.server.core.errors import responses
from cardtable.server.core.runtime import StoreDep
from cardtable.server.devices.public import PlayerDep
from cardtable.server.stats import service
from cardtable.server.stats.models import History, Stats

router = APIRouter(prefix="/api/stats", tags=["stats"])


@router.get("", response_model=Stats, responses=responses(401))
def stats(player: PlayerDep, store: StoreDep) -> Stats:
    """Poker Squares per table (unassisted and practice apart) and Kings Corner overall, by
    opponent strength and by rule set."""
    return service.stats(store, player)


@router.get("/history", response_model=History, responses=responses(401))
def history(player: PlayerDep, store: StoreDep) -> History:
    """The newest finished games of both kinds (at most 100), newest first."""
    return service.history(store, player)


@router.get("/export", responses=responses(401))
def export(player: PlayerDep, store: StoreDep) -> dict[str, Any]:
    """Everything the server keeps for the caller, as one JSON document, each game as its
    player may see it (an unfinished game's view, never its state)."""
    return service.export(store, player)


@router.delete("/data", status_code=204, responses=responses(401))
def delete(player: PlayerDep, store: StoreDep) -> None:
    """Delete everything the server keeps for the caller, the player id included, with
    every device credential, recovery key and transfer code of the record: every browser
    of it then starts afresh with a new id."""
    service.delete(store, player)
