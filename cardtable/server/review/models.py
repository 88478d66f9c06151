"""The JSON of the review routes (docs/review.md): a Poker Squares review and its progress, a
Kings Corner round replay. Response models only list what may be shown: a review exists
only for a finished deal (every card of it is on the grid) and a replay only for a round
that is over (every hand is public then); the stock's order has no field. The replay's model
(`KCReplay`) is the games feature's, shared with online tables."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cardtable.server.core.models import Response
from cardtable.server.games.public import CellEstimate, PointTable

Mark = Literal["inaccuracy", "mistake", "blunder"]


class LineServed(Response):
    line: Literal["row", "column"] = Field(description="The line the cell helps most.")
    index: int = Field(description="0-based row or column.")
    hand: str = Field(
        description="The hand that line makes (five cards) or is building with the card: a "
        "hand key (`one_pair`, `flush`, ...; `nothing`: no hand can come of it) or `start` "
        "(the card alone in the line)."
    )
    rank: str | None = Field(description="The rank of a pair, three or four (`9`, `K`).")


class Accuracy(Response):
    percent: int | None = Field(
        description="100 * good / placements, rounded; null when every placement was made "
        "after a hint."
    )
    good: int = Field(
        description="Placements made without a hint on the engine's cell or losing less than "
        "`good_below`."
    )
    placements: int = Field(description="Placements counted: those made without a hint.")
    good_below: float = Field(description="Expected points lost below which a placement is good.")
    hinted: int = Field(description="Placements made after a hint, left out of the accuracy.")


class ReviewStep(Response):
    index: int = Field(description="0-based placement number (0-24).")
    card: str
    chosen: list[int] = Field(description="[row, col] where the card went (0-based).")
    best: list[int] = Field(description="[row, col] of the engine's best cell.")
    expected: float = Field(description="Estimated final total after this placement.")
    best_estimate: float
    loss: float = Field(description="best_estimate - expected: expected points lost.")
    mark: Mark | None
    estimates: list[CellEstimate] = Field(description="Every empty cell, as the hint shows it.")
    chosen_line: LineServed = Field(description="The line the chosen cell served.")
    best_line: LineServed = Field(description="The line the engine's best cell served.")
    hinted: bool = Field(
        description="Made with the engine's hint for this very position in view (from the "
        "move log): not counted in `accuracy`."
    )


class PSReview(Response):
    table: PointTable
    budget: int
    thresholds: dict[str, float]
    cards: list[str] = Field(description="The 25 cards in the order they were turned.")
    placements: list[list[int]]
    total: int
    line_scores: list[int | None]
    line_hands: list[str | None]
    start_estimate: float
    expected_loss: float = Field(description="Sum of the losses (accuracy: lower is better).")
    marks: dict[str, int]
    accuracy: Accuracy = Field(description="Share of good placements (docs/review.md).")
    par: int = Field(description="The hint engine's own score on this card sequence.")
    vs_par: int
    par_placements: list[list[int]]
    par_line_scores: list[int | None]
    steps: list[ReviewStep]


class PSReviewStatus(Response):
    state: Literal["none", "waiting", "running", "done", "failed"] = Field(
        description="none: never asked; waiting: every worker of this process is busy, ask "
        "again; running: being computed (done of total steps); done: `review` holds it; "
        "failed: the computation failed (ask again to retry)."
    )
    done: int
    total: int
    review: PSReview | None = None
