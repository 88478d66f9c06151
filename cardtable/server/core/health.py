"""Liveness: `/healthz` answers while the process is up, whatever the store is doing.

It runs on the event loop (an `async def` that never blocks), so it answers at once even when
every thread of the threadpool is taken, for instance by requests waiting on a database that
went away; and it reports the store as last seen without touching it: ``degraded`` while the
store is not open (it could not be opened; each request that needs it retries) or while its
database is unreachable (the store's probe, core/store/postgres.py), ``ok`` otherwise. The
status stays 200 while the process is up: a load balancer should not take every process out
of service because the database they share is down, and the ``store`` field says why requests
fail.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from cardtable.server.core.models import Health

router = APIRouter()


@router.get("/healthz", response_model=Health, tags=["health"])
async def healthz(request: Request) -> Health:
    """The process is up; ``store`` is the store's last known state (never waited for)."""
    store = request.app.state.runtime.opened()
    reachable = store is not None and getattr(store, "reachable", True)
    return Health(status="ok", store="ok" if reachable else "degraded")
