"""The JSON of the statistics and history routes (docs/api.md), as pydantic models."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Bar(BaseModel):
    total: int
    deals: int


class PSGroup(BaseModel):
    deals: int
    mean: float | None
    best: int | None
    target_hits: int = Field(description="Deals that reached their target.")
    distribution: list[Bar] = Field(description="Deals per total, lowest total first.")
    hands: dict[str, int] = Field(
        description="Lines made per hand category, over the finished deals still kept."
    )


class PSTable(BaseModel):
    unassisted: PSGroup
    practice: PSGroup


class KCGroup(BaseModel):
    matches: int
    matches_won: int
    rounds: int
    rounds_won: int
    mean_penalty: float | None = Field(description="The player's mean penalty per round.")


class KCStats(BaseModel):
    all: KCGroup
    by_opponent: dict[str, KCGroup] = Field(
        description="By the strongest computer at the table (`people`: no computer)."
    )
    by_rule_set: dict[str, KCGroup]


class Stats(BaseModel):
    poker_squares: dict[str, PSTable]
    kings_corner: KCStats


class HistoryItem(BaseModel):
    game: Literal["poker-squares", "kings-corner"]
    id: str
    finished_at: str
    variant: str
    target: str | None = Field(description="Poker Squares: the target level.")
    total: int | None = Field(description="Poker Squares: the score.")
    practice: bool
    daily: str | None = Field(description="Poker Squares: the day, for a daily entry.")
    won: bool | None = Field(description="Kings Corner: the match was won.")
    penalty: int | None = Field(description="Kings Corner: the player's penalty total.")
    replayable: bool = Field(description="A Poker Squares deal that can be replayed.")
    reviewable: bool = Field(
        default=False,
        description="A Poker Squares deal whose review can be shown (ps-review.html?game=<id>).",
    )
    replay_rounds: int = Field(
        default=0,
        description="Kings Corner: the finished rounds that can be replayed "
        "(kc-replay.html?game=<id>&round=<n>, n from 1); 0 when the match is no longer kept.",
    )
    checkable: bool = Field(
        default=False,
        description="The game was dealt from a fair shuffle and is still kept: its shuffle can "
        "be checked on verify.html (the game's own answer gives the values once revealed).",
    )


class History(BaseModel):
    items: list[HistoryItem]


# -- Poker Squares -----------------------------------------------------------------------------
