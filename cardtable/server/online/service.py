"""`Online`: what one app instance runs for the online tables (started and stopped with the
app). Filled in by the online table work (docs/online.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..runtime import Runtime


class Online:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def start(self) -> None:
        """Start the background work: the deadline driver, the fan-out listener, the poll."""

    async def stop(self) -> None:
        """Stop the background work and close the live connections."""
