"""The JSON of the rating routes (docs/rating.md, "API"), as pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, Field


class HistoryPoint(BaseModel):
    at: str = Field(description="When the match was rated (ISO 8601 UTC).")
    rating: int = Field(description="The rating after it.")
    provisional: bool
    place: int = Field(description="The player's finishing place (1: first; ties share).")
    players: int = Field(description="Seats rated at that table, computers included.")


class MyRating(BaseModel):
    rating: int = Field(description="On the points scale (1500: a new player).")
    provisional: bool = Field(description="Shown with '?' until the rating settles.")
    matches: int = Field(description="Rated matches played.")
    history: list[HistoryPoint] = Field(description="Oldest first (the newest 200).")


class BoardRow(BaseModel):
    rank: int
    name: str | None = Field(description="The name last played under; null: not shown.")
    rating: int
    matches: int
    mine: bool


class Board(BaseModel):
    since: str = Field(description="Players rated at or after this time (30 days ago).")
    rows: list[BoardRow] = Field(description="Settled ratings only, best first (the top 50).")
