"""The daily Poker Squares deal and its leaderboard (docs/daily.md)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/daily", tags=["daily"])
