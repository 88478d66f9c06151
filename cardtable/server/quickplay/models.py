"""The quick-play routes' JSON (docs/quickplay.md, "HTTP")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cardtable.server.core.models import ErrorBody, Request, Response

Preset = Literal["standard", "draw-last", "simple"]
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{24}$"


class JoinQueue(Request):
    players: Literal[2, 3, 4] | None = Field(description="The table size wanted; null: any.")
    preset: Preset = Field(description="A Kings Corner rules preset, as the online form sends.")
    name: Annotated[str, Field(min_length=1, max_length=100)] = Field(
        description="The name the other players see."
    )


class Idle(Response):
    state: Literal["idle"] = "idle"


class Waiting(Response):
    state: Literal["waiting"] = "waiting"
    players: Literal[2, 3, 4] | None
    preset: Preset
    waiting: int = Field(
        description="Players (this one among them) waiting in queues this one could be seated from."
    )
    since: str = Field(description="When this player joined (ISO 8601 UTC).")
    fill_at: str = Field(description="When empty seats go to computers (ISO 8601 UTC).")


class Seated(Response):
    state: Literal["seated"] = "seated"
    token: str = Field(description="The table's token (its invite link).")


Status = Idle | Waiting | Seated


class AlreadySeated(ErrorBody):
    token: str | None = None


class NewBlock(Request):
    token: Annotated[str, Field(pattern=TOKEN_PATTERN)] = Field(
        description="The quick-play table's token."
    )
    seat: Annotated[int, Field(ge=0, le=3)] = Field(description="The seat of the person blocked.")


class BlockOut(Response):
    id: str
    name: str = Field(description="The name they had at that table.")
    since: str = Field(description="ISO 8601 UTC.")


class Blocks(Response):
    blocks: list[BlockOut]
