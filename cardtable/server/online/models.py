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
        default=None, description="Seconds per turn (30, 60 or 120), or none."
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


class Turn(Response):
    seat: int
    deadline: float | None


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
        "drop", "away", "back", "left", "timer", "handed", "reopened", "joined", "computer"
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
