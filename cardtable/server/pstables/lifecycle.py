"""The Poker Squares tables of one app: made on first use (`tables_of`), their background work
(the deadline driver, the fallback poll) started and stopped with the app (`lifespan`, the
router's, which runs inside the app's own, after the online tables have started)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from cardtable.server.pstables.driver import advance
from cardtable.server.pstables.tables import PSTables

_LOCK = threading.Lock()


def tables_of(app: Any) -> PSTables:
    """The app's `PSTables` (``app.state.pstables``), made the first time it is asked for."""
    state = app.state
    with _LOCK:
        tables: PSTables | None = getattr(state, "pstables", None)
        if tables is None:
            tables = PSTables(state.runtime, state.online)
            tables.hints = advance
            state.pstables = tables
    return tables


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The router's lifespan: the background work starts with the online tables' (which
    have started: the app's own lifespan encloses this one) and stops with it."""
    tables_of(app).start()
    yield
