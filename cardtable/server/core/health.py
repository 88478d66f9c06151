"""Liveness: `/healthz` answers while the process is up."""

from __future__ import annotations

from fastapi import APIRouter

from cardtable.server.core.models import Health

router = APIRouter()


@router.get("/healthz", response_model=Health, tags=["health"])
def healthz() -> Health:
    """The process is up (it does not touch the store)."""
    return Health(status="ok")
