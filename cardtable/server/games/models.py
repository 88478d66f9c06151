"""The JSON the two single-device games' routes read and write (docs/api.md), as pydantic
models (the shared bases are in `core.models`).

Request models forbid unknown fields and take versions, rows and columns as strict integers.
Response models are separate and list exactly what may leave the server: anything the engine
keeps private (the deck order, other hands) has no field here, so it cannot be sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import (
    BeforeValidator,
    Field,
    Strict,
    StrictBool,
    model_validator,
)
from typing_extensions import TypedDict  # pydantic reads typing's TypedDict only from 3.12

from cardtable.server.core.models import ErrorBody, Request, Response, Version, json_integer

PointTable = Literal["american", "british"]
"""A Poker Squares points table: the American or the British scoring."""
Level = Literal["easy", "normal", "hard"]
Strength = Literal["easy", "normal", "strong"]
Phase = Literal["play", "handoff", "computer", "round_over", "match_over"]


Cell = Annotated[int, Strict(), Field(ge=0, le=4), BeforeValidator(json_integer)]
SeatIndex = Annotated[int, Strict(), Field(ge=0, le=3), BeforeValidator(json_integer)]
"""A seat of a Kings Corner table, 0-3 (as every integer here: 2.0 is 2, "2" and true are not)."""


def _integer_choice(value: Any) -> Any:
    # A Literal of integers compares by equality, so `true` would pass as 1: refuse booleans
    # (and text) the way the strict integers above do.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a JSON integer")
    return json_integer(value)


Rounds = Annotated[Literal[1, 3, 5], BeforeValidator(_integer_choice)]


# -- Poker Squares ----------------------------------------------------------------------
class PSNewGame(Request):
    table: PointTable = "american"
    target: Level = "normal"
    replay_of: Annotated[str, Field(max_length=64)] | None = Field(
        default=None, description="Deal the cards of this earlier game of yours again."
    )
    replace_counted: bool = Field(
        default=False,
        description="Replace the unfinished deal even when it is a counted attempt "
        "(otherwise 409 replaces_counted).",
    )


class CountedAttempt(Response):
    """What an unfinished game counts for, which a new game would lose: today's daily deal
    (docs/daily.md) at its point table."""

    what: Literal["daily"] = "daily"
    game_id: str = Field(description="The unfinished deal's id.")
    day: str = Field(description="The daily's day, YYYY-MM-DD (UTC).")
    table: PointTable
    eligible: bool = Field(
        description="Its score would go on the day's board (the player joined before the day "
        "began); false: it counts for the streak and a provisional rank only."
    )


class PSMove(Request):
    version: Version
    row: Cell
    col: Cell


class PSTarget(Response):
    level: Level
    points: int


class Fairness(Response):
    """A provably fair deal or round (docs/fairness.md): the commitment from the start, the
    seed and salt once it is over."""

    algorithm: str
    commitment: str = Field(description="SHA-256 of the seed bytes then the salt bytes, hex.")
    seed: str | None = Field(description="32 bytes as hex, once the deal or round is over.")
    salt: str | None = Field(description="16 bytes as hex, once the deal or round is over.")
    round: int | None = Field(default=None, description="Kings Corner: the match round.")


class PSView(Response):
    game: Literal["poker-squares"]
    seat: Literal[0] | None = Field(description="0, the player; null for a spectator.")
    table: PointTable
    grid: list[list[str | None]]
    card: str | None
    line_scores: list[int | None]
    line_hands: list[str | None]
    total: int
    placed: int
    cards_left: int
    practice: bool
    replay: bool
    is_over: bool
    can_undo: bool
    legal_moves: list[str] = Field(
        description='The empty cells in move notation ("c4": column c, row 4), row by row.'
    )
    last_placed: list[int] | None
    target: PSTarget
    target_reached: bool
    fairness: Fairness | None = Field(
        default=None, description="Absent for deals from before fair shuffles."
    )


class PSGame(Response):
    id: str
    version: int
    view: PSView


class PSConflict(ErrorBody):
    current: PSGame | None = Field(
        default=None, description="With `stale_version`: the game as it is now."
    )


class CellRef(Response):
    row: int
    col: int


class CellEstimate(Response):
    row: int
    col: int
    estimate: float


class PSHint(Response):
    game: PSGame
    hint: CellRef
    estimates: list[CellEstimate]


class PSHistoryEntry(Response):
    id: str
    total: int
    practice: bool
    target: PSTarget
    target_reached: bool
    finished_at: str


class PSScores(Response):
    best: int | None
    best_practice: int | None
    history: list[PSHistoryEntry]


class PSScoreBoard(Response):
    american: PSScores
    british: PSScores


# -- Kings Corner -----------------------------------------------------------------------
class HumanSeat(Request):
    kind: Literal["human"]


class ComputerSeat(Request):
    kind: Literal["computer"]
    strength: Strength = "normal"


SeatIn = Annotated[HumanSeat | ComputerSeat, Field(discriminator="kind")]
_HUMAN_SEAT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": {"type": "string", "const": "human"}},
    "required": ["kind"],
    "additionalProperties": False,
}


class PresetRules(Request):
    preset: Literal["standard", "draw-last", "simple"]


# The four Kings Corner rule options (kings_corner.Rules), as asked for and as answered.
Draw = Literal["first", "last"]
Kings = Literal["optional", "first"]
DealtKings = Literal["stay", "corner"]


class CustomRules(Request):
    draw: Draw
    pile_moves: StrictBool
    kings: Kings
    dealt_kings: DealtKings


class KCNewGame(Request):
    seats: list[SeatIn] = Field(
        min_length=2,
        max_length=4,
        description="Seat 0 is the person starting the game, so it is human.",
        json_schema_extra={"prefixItems": [_HUMAN_SEAT_SCHEMA]},
    )
    rules: PresetRules | CustomRules = Field(default_factory=lambda: PresetRules(preset="standard"))
    rounds: Rounds = 1

    @model_validator(mode="after")
    def _first_seat_is_a_person(self) -> KCNewGame:
        if self.seats[0].kind != "human":
            raise ValueError("seat 0 must be human: the person starting the game plays it")
        return self


_PILE = "(N|E|S|W|NE|SE|SW|NW)"
MOVE_PATTERN = f"^(end|(10|[A2-9TJQK])[SHDC]>{_PILE}|{_PILE}>{_PILE})$"


class KCMove(Request):
    version: Version
    move: str = Field(
        pattern=MOVE_PATTERN,
        description='A play "9H>N", a pile move "E>NW", or "end" (the notation of `legal_moves`).',
    )


class HumanSeatOut(Response):
    kind: Literal["human"]


class ComputerSeatOut(Response):
    kind: Literal["computer"]
    strength: Strength


SeatOut = Annotated[HumanSeatOut | ComputerSeatOut, Field(discriminator="kind")]


class RulesOut(Response):
    draw: Draw
    pile_moves: bool
    kings: Kings
    dealt_kings: DealtKings


class KCBuild(Response):
    what: Literal["build"]
    rank: str = Field(description="The rank it takes, in card notation: A 2-9 T J Q K.")
    colour: Literal["red", "black"]


class KCTakesOne(Response):
    what: Literal["king", "any_but_king", "nothing"] = Field(
        description="An empty corner takes a King, an empty centre pile any card but a King, "
        "an Ace nothing."
    )


KCAccepts = Annotated[KCBuild | KCTakesOne, Field(discriminator="what")]


class KCRefusal(Response):
    key: str = Field(description="Why, as a stable key (docs/kings-corner-engine.md).")
    params: dict[str, str] = Field(description="The cards and piles the reason names.")


class KCRefusals(TypedDict, total=False):
    """Only for the seat to play (else empty): why each hand card may not go on each pile
    where it is refused, and why each centre pile may not move onto each target."""

    cards: dict[str, dict[str, KCRefusal]]
    piles: dict[str, dict[str, KCRefusal]]


class KCTurnStart(TypedDict):
    """The board when the turn began (after its draw); ``hand`` only for the seat to play."""

    piles: dict[str, list[str]]
    hand: NotRequired[list[str]]


KCEvent = TypedDict(
    "KCEvent",
    {
        "kind": Literal[
            "play", "pile_move", "end_turn", "draw", "king_to_corner", "turn", "round_over"
        ],
        "seat": int | None,
        "card": NotRequired[str],
        "pile": NotRequired[str],
        "from": NotRequired[str],
        "to": NotRequired[str],
        "turn": NotRequired[int],
        "ending": NotRequired[Literal["out", "blocked"]],
        "winners": NotRequired[list[int]],
        "penalties": NotRequired[list[int]],
    },
)
"""One thing that happened in the request, as the viewer may see it (a drawn card's face
only in the drawer's own view)."""


class KCView(Response):
    game: Literal["kings-corner"]
    seat: int | None
    players: int
    to_play: int
    turn: int
    hand: list[str]
    hand_sizes: list[int]
    piles: dict[str, list[str]]
    stock_count: int
    out_of_play_count: int
    rules: RulesOut
    rule_set: str
    legal_moves: list[str]
    can_undo: bool
    last_draw: str | None
    is_over: bool
    ending: Literal["out", "blocked"] | None
    penalties: list[int] | None
    winners: list[int] | None
    accepts: dict[str, KCAccepts]
    refusals: KCRefusals
    turn_start: KCTurnStart
    fairness: Fairness | None = Field(
        default=None, description="Absent for matches from before fair shuffles."
    )


class KCRoundResult(Response):
    penalties: list[int]
    winners: list[int]
    blocked: bool


class KCMatch(Response):
    round: int
    rounds: int
    totals: list[int]
    results: list[KCRoundResult]
    winners: list[int] | None = Field(description="Lowest totals once the match is over.")


class KCLogEntry(Response):
    seat: int
    move: str
    turn: int
    round: int


class KCStep(Response):
    seat: int
    move: str


class KCGame(Response):
    id: str
    version: int
    seats: list[SeatOut]
    phase: Phase
    viewer: int | None
    view: KCView
    match: KCMatch
    log: list[KCLogEntry]
    step: KCStep | None = None
    events: list[KCEvent] = Field(
        default_factory=list, description="What this request did, newest last; [] for reads."
    )


class KCConflict(ErrorBody):
    current: KCGame | None = Field(
        default=None, description="With `stale_version`: the game as it is now."
    )


class KCMatchResult(Response):
    id: str
    players: list[SeatOut]
    rounds: int
    totals: list[int]
    winners: list[int]
    finished_at: str


class KCResults(Response):
    matches: list[KCMatchResult]


class Continue(Response):
    poker_squares: PSGame | None
    kings_corner: KCGame | None
    poker_squares_counted: CountedAttempt | None = Field(
        default=None,
        description="What the unfinished Poker Squares deal counts for (today's daily), "
        "which a new deal would lose.",
    )
