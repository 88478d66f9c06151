"""The push routes' JSON (docs/online.md, "Notifications")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from cardtable.server.core.models import Request, Response

Kind = Literal["turn", "joined", "over", "rematch"]
KINDS: tuple[Kind, ...] = ("turn", "joined", "over", "rematch")
B64 = Annotated[str, Field(min_length=8, max_length=200, pattern=r"^[A-Za-z0-9_=-]+$")]


class Keys(BaseModel):
    p256dh: B64
    auth: Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_=-]+$")]


class NewSubscription(Request):
    endpoint: Annotated[str, Field(min_length=10, max_length=1000)]
    """The push service's URL for this device (`PushSubscription.endpoint`)."""
    keys: Keys
    """The subscription's keys (`PushSubscription.toJSON().keys`)."""
    lang: Literal["en", "ja"] = "en"
    table: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{24}$")] | None = None
    """A table's token: news of this table (kept with the ones asked for before)."""
    all_tables: bool = False
    """News of every table this player sits at."""
    events: list[Kind] = Field(default_factory=lambda: list(KINDS), max_length=4)


class PublicKey(Response):
    key: str
    """The server's VAPID public key (``applicationServerKey``), URL-safe base64."""


class Subscription(Response):
    endpoint: str
    lang: str
    all_tables: bool
    events: list[str]
    tables: list[str]
    """The keys of the tables asked for one by one."""
