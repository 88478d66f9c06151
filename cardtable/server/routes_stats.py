"""A player's statistics, history, export and deletion (docs/api.md)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/stats", tags=["stats"])
