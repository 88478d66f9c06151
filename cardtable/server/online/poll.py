"""The fallback poll (docs/online.md "Fan-out"): every ``interval`` seconds, read the stored
version of the tables this process watches and wake those the hub has not heard of yet, so a
lost notification (or a listener connection that was down) only delays a device.

One query per tick (chunked by the store), at most `BATCH` tables per tick (a process
watching more takes them in turns); the blocking store call runs in a worker thread. A
failure is logged once per run of failures and the loop goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardtable.server.online.hub import Hub

log = logging.getLogger("cardtable.server.online")

BATCH = 5000
"""Tables looked at per tick."""

Versions = Callable[[list[str]], dict[str, int]]


async def poll(hub: Hub, versions: Versions, interval: float, *, batch: int = BATCH) -> None:
    """Run until cancelled (see the module's docstring)."""
    start = 0
    failing = False
    while True:
        await asyncio.sleep(interval)
        try:
            start = await tick(hub, versions, start, batch)
        except asyncio.CancelledError:
            raise
        except Exception:
            if not failing:
                log.exception("online poll failed; it tries again every %s s", interval)
            failing = True
        else:
            if failing:
                log.warning("online poll works again")
            failing = False


async def tick(hub: Hub, versions: Versions, start: int, batch: int) -> int:
    """One look at up to ``batch`` watched tables from position ``start``; the next start."""
    watched = hub.watched()
    keys = sorted(watched)
    if not keys:
        return 0
    if start >= len(keys):
        start = 0
    chosen = keys[start : start + batch]
    stored = await asyncio.to_thread(versions, chosen)
    for key, version in stored.items():
        if version > watched.get(key, -1):
            hub.changed(key, version)
    following = start + len(chosen)
    return 0 if following >= len(keys) else following
