"""The JSON of the online tables (docs/online.md), as pydantic models: requests refuse unknown
fields and take strict integers and booleans; the OnlineTable answer lists exactly what may
leave the server (the engine's view for the device's own viewer, never a hidden card)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, Strict

from cardtable.server.core.models import ErrorBody, Request, Response, Version
from cardtable.server.games.public import (
    CustomRules,
    KCEvent,
    KCLogEntry,
    KCMatch,
    KCReplay,
    KCView,
    PresetRules,
    RulesOut,
    SeatIndex,
    Strength,
)

Name = Annotated[str, Field(max_length=256, description="1-24 characters (NFKC).")]


class MeSeat(Request):
    kind: Literal["me"]


class InviteSeat(Request):
    kind: Literal["invite"]


class LocalSeat(Request):
    kind: Literal["local"]
    name: Name | None = None


class ComputerSeatIn(Request):
    kind: Literal["computer"]
    strength: Strength = "normal"


SeatIn = Annotated[MeSeat | InviteSeat | LocalSeat | ComputerSeatIn, Field(discriminator="kind")]


class NewTable(Request):
    name: Name
    seats: list[SeatIn] = Field(min_length=2, max_length=4, description='Seat 0 is "me".')
    rules: PresetRules | CustomRules = Field(default_factory=lambda: PresetRules(preset="standard"))
    rounds: Literal[1, 3, 5] = 1
    turn_timer: Annotated[float, Strict()] | None = Field(
        default=None,
        description="Seconds per turn: live 30, 60 or 120 (or none); turn-based 43200, 86400 "
        "or 259200.",
    )
    turn_seconds: Annotated[float, Strict()] | None = Field(
        default=None, description="The same as `turn_timer` (give one, or both equal)."
    )
    pace: Literal["live", "turn"] = Field(
        default="live",
        description='"turn": a turn-based table (docs/online.md "Turn-based tables").',
    )
    stand_in: Strength = "normal"


class Join(Request):
    version: Version
    name: Name
    seat: SeatIndex | None = None


class SeatChange(Request):
    version: Version
    kind: Literal["computer"]
    strength: Strength = "normal"


class Me(Response):
    seats: list[int]
    host: bool


class SettingsOut(Response):
    players: int
    rules: RulesOut
    rounds: int
    turn_timer: float | None
    grace: float
    stand_in: Strength
    pace: Literal["live", "turn"] = Field(
        default="live", description='"turn": turn-based (hours or days a turn).'
    )
    turn_seconds: float | None = Field(
        default=None, description="Seconds per turn (the same as `turn_timer`), or none."
    )
    quick: bool = Field(default=False, description="Made by the quick-play queue.")
    rated: bool = Field(default=False, description="Counts for ratings.")


class SeatOut(Response):
    kind: Literal["person", "open", "computer"]
    name: str | None
    strength: Strength | None
    local: bool
    connection: Literal["online", "reconnecting", "away"] | None
    deadline: float | None
    stand_in: bool
    cards: int | None
    rematch: bool
    missed: int = Field(
        default=0,
        description="Turns in a row that ran out on this person (turn-based tables; 0 else).",
    )


class Turn(Response):
    seat: int
    deadline: float | None = Field(
        description="When the turn timer runs out: epoch seconds (UTC), or null."
    )


class LogEntry(KCLogEntry):
    n: int
    by: Literal["stand_in", "timer"] | None = Field(
        default=None,
        description="A computer made this step for the person in the seat: their stand-in "
        "(away, or the seat is waiting for someone new) or the turn timer's.",
    )


class Note(Response):
    """Something that happened to a seat during the match (docs/online.md "The table's
    story")."""

    v: int = Field(description="The version of the change that made it.")
    kind: Literal[
        "drop",
        "away",
        "back",
        "left",
        "timer",
        "handed",
        "reopened",
        "joined",
        "computer",
        "missed",
    ]
    seat: int
    name: str | None = Field(description="The seat's person's name then.")
    round: int
    after: int = Field(description="The log entry number (`n`) it came after.")


class OnlineTable(Response):
    token: str
    code: str | None
    version: int
    now: float
    phase: Literal["lobby", "play", "handoff", "round_over", "match_over"]
    host: int
    me: Me | None
    settings: SettingsOut
    seats: list[SeatOut]
    turn: Turn | None
    viewer: int | None
    view: KCView | None
    match: KCMatch | None
    log: list[LogEntry]
    notes: list[Note]
    hands: list[list[str]] | None = Field(
        description="Every hand's cards, only once the round is over (null before)."
    )
    spectators: int
    events: list[KCEvent]


class Created(Response):
    token: str
    code: str
    table: OnlineTable


class OnlineReplay(KCReplay):
    """A finished round of an online table, as the review's replay (`KCReplay`) plus who sat
    where."""

    names: list[str | None] = Field(
        description="Each seat's display name (null: a computer, or a seat never taken)."
    )
    me: list[int] = Field(description="The caller's seats (empty for a spectator).")


class CodeFound(Response):
    token: str


class OnlineConflict(ErrorBody):
    current: OnlineTable | None = Field(
        default=None, description="With `stale_version`: the table as it is now."
    )


class MineSeat(Response):
    seat: int
    kind: Literal["person", "open", "computer"]
    name: str | None = Field(description="A person's display name (null: a computer, open).")
    you: bool = Field(description="The caller holds this seat.")


class MineTable(Response):
    """One of the caller's tables on "Your tables": what its seat may know, never a card."""

    token: str = Field(description="Opens the table: `/kings-corner-online.html#<token>`.")
    seats: list[MineSeat]
    phase: Literal["lobby", "play", "handoff", "round_over", "match_over"]
    finished: bool = Field(description="The match is over (or everyone left the lobby).")
    round: int | None = Field(description="The round being played (null in the lobby).")
    rounds: int
    turn_seat: int | None = Field(description="Whose turn it is (null: nobody's now).")
    deadline: str | None = Field(description="When that turn's time runs out (UTC), if timed.")
    pace: Literal["live", "turn"]
    turn_seconds: float | None = Field(description="Seconds a turn has (null: no timer).")
    your_turn: bool = Field(description="The table waits for the caller's move.")
    updated: str = Field(description="The table's last change (UTC).")


class MineTables(Response):
    now: str = Field(description="The server's clock (UTC), to count the time left from.")
    tables: list[MineTable] = Field(
        description="Waiting for the caller's move first, then by last change, newest first; "
        "at most 50 (the last changed)."
    )
