"""The JSON of the daily archive's routes (docs/daily.md, "The archive")."""

from __future__ import annotations

from pydantic import BaseModel, Field

from cardtable.server.core.models import Request
from cardtable.server.daily.models import PointTable


class ArchiveDay(BaseModel):
    day: str
    playable: bool = Field(
        description="Its deal is stored and the date has ended everywhere: it can be played "
        "from the archive."
    )
    open: bool = Field(description="Some time zone is still on it: played from the daily.")
    best: int | None = Field(description="Your best practice total from the archive, or null.")
    plays: int = Field(description="How many times you were dealt it from the archive.")


class DailyArchive(BaseModel):
    table: PointTable
    month: str
    first_day: str | None = Field(description="The first date with a deal at this table.")
    newest_closed: str = Field(description="The newest date that has ended everywhere.")
    days: list[ArchiveDay] = Field(description="Every date of the month, in order.")


class ArchivePlayRequest(Request):
    replace_counted: bool = Field(
        default=False,
        description="Deal even when the unfinished deal is a counted daily attempt; "
        "otherwise 409 replaces_counted.",
    )
