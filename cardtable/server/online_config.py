"""The online tables' limits and timings (part of `cardtable.server.Settings`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OnlineSettings:
    grace_seconds: float = 60.0
    """How long a dropped person's seat waits before a computer plays it."""
    computer_step_seconds: float = 0.7
    """The pause before each computer move at an online table (others watch it happen)."""
    max_spectators: int = 20
    """Live connections without a seat, per table."""
