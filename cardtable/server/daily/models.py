"""The JSON of the daily deal's routes (docs/daily.md), as pydantic models."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from cardtable.server.core.models import Request
from cardtable.server.games.public import PointTable as PointTable  # the routes name it here
from cardtable.server.games.public import PSGame


class DailyRow(BaseModel):
    rank: int
    name: str | None = Field(description="The display name, or null: anonymous.")
    total: int
    mine: bool


class DailyBar(BaseModel):
    total: int
    players: int


class DailyBoard(BaseModel):
    players: int = Field(description="Entries on the board (ranked players) that day.")
    top: list[DailyRow]
    histogram: list[DailyBar] = Field(description="Players per total, lowest total first.")


class Provisional(BaseModel):
    """Where a counted total of a player who joined that day would rank among the day's
    ranked entries; it is not on the board and adds nothing to it (docs/daily.md)."""

    rank: int = Field(description="1 + the ranked players with a higher total.")
    players: int = Field(description="Ranked players that day (the player not among them).")
    percentile: float | None = Field(
        description="Share of those players who scored at most as much, in percent; null "
        "while nobody is ranked."
    )


class DailyMe(BaseModel):
    status: Literal["open", "counted", "practice", "lost", "review"] = Field(
        description="review: finished unassisted but held off the board by the fair-play "
        "check (docs/daily.md, 'Fair play'); `review_reason` says why."
    )
    game_id: str
    total: int | None
    lines: list[str | None] | None = Field(description="Hand of each line: rows, then columns.")
    line_scores: list[int | None] | None = Field(
        default=None, description="Points of each line at the day's table, as `lines`."
    )
    eligible: bool = Field(description="The player id was created before the day began.")
    ranked: bool
    rank: int | None
    percentile: float | None = Field(
        description="Share of ranked players who scored at most as much, in percent."
    )
    provisional: Provisional | None = Field(
        default=None,
        description="For a counted entry that is not ranked because the player joined that "
        "day: where it would rank. Null otherwise.",
    )
    review_reason: str | None = Field(
        default=None, description="Why the entry is under review, in plain words; else null."
    )


class Streak(BaseModel):
    current: int
    best: int


class DailyFairness(BaseModel):
    algorithm: str
    commitment: str
    seed: str | None = Field(description="Null until the day is over.")
    salt: str | None = Field(description="Null until the day is over.")


class DailyUpcoming(BaseModel):
    day: str = Field(description="The date after the newest one any time zone has reached.")
    commitment: str = Field(description="Its deal's commitment, out before anyone can play it.")


class DailyDay(BaseModel):
    day: str
    table: PointTable
    today: bool = Field(
        description="Some time zone is on this date now: it can still be played for the board, "
        "its seed is withheld (docs/daily.md, 'Your own midnight')."
    )
    starts_at: str = Field(description="When the first time zone (UTC+14) reached the date.")
    ends_at: str = Field(
        description="When the last time zone (UTC-12) leaves it: the board closes."
    )
    seconds_left: int = Field(description="Seconds until the board closes (0 once it has).")
    fairness: DailyFairness | None = Field(
        description="The day's provably fair shuffle (docs/fairness.md): its commitment from "
        "the start of the day, its seed and salt once the day is over; null for a day whose "
        "deal nobody drew, or one drawn before fair seeds."
    )
    upcoming: DailyUpcoming | None = Field(
        default=None,
        description="The commitment of the next date's deal, published before any time zone "
        "reaches it.",
    )
    me: DailyMe | None
    board: DailyBoard
    streak: Streak
    display_name: str | None
    previous_days: list[str]


DAY_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


class DailyPlayRequest(Request):
    day: str | None = Field(
        default=None,
        pattern=DAY_PATTERN,
        description="The date to play, YYYY-MM-DD: the player's own (the UTC date when null). "
        "404 before any time zone has reached it, 409 day_closed once all have left it.",
    )
    replace_counted: bool = Field(
        default=False,
        description="Deal even when the unfinished deal is a counted attempt (the other "
        "table's daily); otherwise 409 replaces_counted.",
    )


class DailyPlay(BaseModel):
    day: str
    counted: bool = Field(description="True for the day's first attempt; false: practice.")
    eligible: bool = Field(
        default=False,
        description="A counted attempt that goes on the day's board if finished unassisted "
        "(the player joined before the day began); false for a practice replay.",
    )
    game: PSGame


class DisplayName(BaseModel):
    name: str | None = Field(
        default=None,
        max_length=256,
        description="Shown as at most 24 characters after NFKC normalisation; null: anonymous.",
    )


class NameChange(BaseModel):
    """The body of ``PUT /api/daily/me/name``: ``name`` must be given (null to be anonymous)."""

    name: str | None = Field(
        max_length=256,
        description="Shown as at most 24 characters after NFKC normalisation; null or only "
        "spaces: anonymous. Refused (422) when nothing in it can be seen, when it stacks more "
        "than 3 accents on a letter, or holds a character drawn far wider than a letter.",
    )
