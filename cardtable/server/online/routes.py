"""The online tables over HTTP and the live WebSocket (docs/online.md)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/kings-corner/online", tags=["kings-corner-online"])
