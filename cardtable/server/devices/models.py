"""The JSON of the players and devices routes (docs/devices.md), as pydantic models."""

from __future__ import annotations

from pydantic import Field

from cardtable.server.core.models import Response


class NewPlayer(Response):
    player_id: str = Field(description="Send it back as the `X-Player-Id` header.")
