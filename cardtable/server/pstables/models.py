"""The JSON of the Poker Squares tables (docs/ps-tables.md): requests refuse unknown fields and
take strict integers; `PSTable` lists exactly what may leave the server."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, Strict

from cardtable.server.core.models import ErrorBody, Request, Response, json_integer

Name = Annotated[str, Field(max_length=256, description="1-24 characters (NFKC).")]


class NewPSTable(Request):
    name: Name
    table: Literal["american", "british"] = "american"
    card_seconds: Literal[15, 30] | None = Field(
        default=None, description="Seconds to place each card (null: no timer)."
    )
    max_players: Annotated[int, Strict(), Field(ge=2, le=8), BeforeValidator(json_integer)] = 8


class JoinPS(Request):
    name: Name


class Empty(Request):
    pass


class PlaceIn(Request):
    card: Annotated[
        int,
        Strict(),
        Field(ge=0, le=24, description="The card on show (0-24)."),
        BeforeValidator(json_integer),
    ]
    cell: str = Field(max_length=8, description='The cell, e.g. "c4" (column a-e, row 1-5).')


class PSSettings(Response):
    table: Literal["american", "british"]
    card_seconds: int | None
    max_players: int


class PSYou(Response):
    seat: int | None
    host: bool


class PSPlayer(Response):
    seat: int
    name: str
    host: bool
    presence: Literal["here", "reconnecting", "away"]
    placed: bool = Field(description="Placed the card on show (playing only).")
    ready: bool = Field(description="Ready for a rematch (after the end).")


class PSCard(Response):
    index: int
    card: str


class PSLogEntry(Response):
    at: str
    kind: Literal["hint_placed"]
    seat: int
    card: int
    cell: str | None = Field(
        description="Where the hint put it: on the caller's own grid, or anyone's after the end "
        "(null: another player's grid before the end)."
    )
    reason: Literal["timer", "away"]


class PSFairness(Response):
    commitment: str
    seed: str | None
    salt: str | None


class PSRanked(Response):
    seat: int
    name: str
    place: int
    total: int
    game: dict[str, Any] = Field(description="That player's finished Poker Squares view.")


class PSResult(Response):
    cards: list[str] = Field(description="The 25 cards in the order they came.")
    ranking: list[PSRanked]


class PSTable(Response):
    token: str
    code: str | None
    version: int
    phase: Literal["lobby", "playing", "over"]
    settings: PSSettings
    you: PSYou
    players: list[PSPlayer]
    spectators: int
    card: PSCard | None = Field(description="The card on show (playing only).")
    deadline: str | None = Field(description="The card timer's end, ISO 8601 UTC.")
    placed: int = Field(description="Players who placed the card on show.")
    game: dict[str, Any] | None = Field(
        description="The Poker Squares view of the caller's own grid (null: spectator, lobby)."
    )
    log: list[PSLogEntry]
    fairness: PSFairness
    result: PSResult | None
    deal: int


class PSCreated(Response):
    token: str
    code: str
    table: PSTable


class PSCodeFound(Response):
    token: str


class PSConflict(ErrorBody):
    pass
