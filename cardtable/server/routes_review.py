"""Engine review of finished games: Poker Squares placements, Kings Corner replays."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/review", tags=["review"])
