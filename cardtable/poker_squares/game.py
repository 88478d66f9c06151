"""One deal of Poker Squares as an immutable value: deal, place, undo, view, save and load.

A `Game` holds the 25 cards of the deal in their order, the cells filled so far (in order),
the table, the target level and the practice flag. Everything else (the grid, the current
card, line scores, the total) is derived, so a saved game cannot disagree with itself.
Only `view` leaves the engine for a player, and it never shows the cards still to come
(SPEC C-8). Moves are `Move` values (notation ``"c4"``, module `moves`); `play` applies one,
`legal_moves` lists the empty cells.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from cardtable.cards import Card, CardError, shuffled_deck
from cardtable.fairness import Fair, FairnessError, fair_deck
from cardtable.interface import IllegalMove
from cardtable.poker_squares.hands import (
    TABLES,
    TARGET_LEVELS,
    TARGETS,
    Hand,
    check_table,
    classify,
)
from cardtable.poker_squares.moves import ALL, SIZE, Move

CELLS = SIZE * SIZE
FORMAT = "poker-squares/1"

# The ten lines as cell indices (row-major cell = row * 5 + col): rows 0-4, then columns 0-4.
LINES: tuple[tuple[int, ...], ...] = tuple(
    tuple(r * SIZE + c for c in range(SIZE)) for r in range(SIZE)
) + tuple(tuple(r * SIZE + c for r in range(SIZE)) for c in range(SIZE))


class GameError(ValueError):
    """A saved game that cannot be loaded (damaged, tampered or of an unknown version)."""


@dataclass(frozen=True)
class Game:
    """A deal in progress or finished. Build one with `deal` or `deal_cards`."""

    table: str
    cards: tuple[Card, ...]
    """The 25 cards of the deal in the order they are turned (hidden from the player)."""
    placements: tuple[int, ...] = ()
    """Cell indices (row * 5 + col) filled so far, in order."""
    target: str = "normal"
    practice: bool = False
    replay: bool = False
    seed: int | None = None
    fair: Fair | None = None
    """The server seed and salt of a provably fair deal (docs/fairness.md); None for a deal
    from an integer seed (tests, older saves): such a deal is not verifiable."""
    _grid: tuple[Card | None, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        grid: list[Card | None] = [None] * CELLS
        for i, cell in enumerate(self.placements):
            grid[cell] = self.cards[i]
        object.__setattr__(self, "_grid", tuple(grid))

    # --- derived facts -------------------------------------------------------------------
    @property
    def cells(self) -> tuple[Card | None, ...]:
        """The 25 cells row-major; None where empty."""
        return self._grid

    @property
    def grid(self) -> tuple[tuple[Card | None, ...], ...]:
        """5 rows of 5 cells."""
        g = self._grid
        return tuple(g[r * SIZE : (r + 1) * SIZE] for r in range(SIZE))

    @property
    def placed(self) -> int:
        return len(self.placements)

    @property
    def is_over(self) -> bool:
        return len(self.placements) == CELLS

    @property
    def card(self) -> Card | None:
        """The card to place now, or None when the grid is full."""
        return None if self.is_over else self.cards[len(self.placements)]

    @cached_property
    def line_hands(self) -> tuple[Hand | None, ...]:
        """Category of each complete line (5 rows then 5 columns); None when incomplete."""
        g = self._grid
        out: list[Hand | None] = []
        for line in LINES:
            cards = [g[i] for i in line]
            out.append(None if any(c is None for c in cards) else classify(cards))  # type: ignore[arg-type]
        return tuple(out)

    @property
    def line_scores(self) -> tuple[int | None, ...]:
        """Points of each complete line (5 rows then 5 columns); None when incomplete."""
        points = TABLES[self.table]
        return tuple(None if h is None else points[h] for h in self.line_hands)

    @property
    def total(self) -> int:
        return sum(s for s in self.line_scores if s is not None)

    @property
    def target_points(self) -> int:
        return TARGETS[self.table][TARGET_LEVELS.index(self.target)]

    @property
    def target_reached(self) -> bool:
        return self.total >= self.target_points

    # --- saving ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Versioned JSON-ready form; `Game.from_dict` reads it back."""
        return {
            "format": FORMAT,
            "table": self.table,
            "target": self.target,
            "seed": self.seed,
            "cards": [str(c) for c in self.cards],
            "placements": [[c // SIZE, c % SIZE] for c in self.placements],
            "practice": self.practice,
            "replay": self.replay,
        } | ({} if self.fair is None else {"fair": self.fair.saved()})

    @classmethod
    def from_dict(cls, d: Any) -> Game:
        """Load a saved game; anything damaged or tampered raises `GameError` naming why."""
        if not isinstance(d, dict):
            raise GameError("saved game must be an object")
        if d.get("format") != FORMAT:
            raise GameError(f"unknown saved-game format {d.get('format')!r} (expected {FORMAT})")
        table = d.get("table")
        if table not in TABLES:
            raise GameError(f"unknown point table {table!r}")
        target = d.get("target")
        if target not in TARGET_LEVELS:
            raise GameError(f"unknown target level {target!r}")
        seed = d.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise GameError("seed must be an integer or null")
        for flag in ("practice", "replay"):
            if not isinstance(d.get(flag), bool):
                raise GameError(f"{flag} must be true or false")
        raw_cards = d.get("cards")
        if not isinstance(raw_cards, list) or len(raw_cards) != CELLS:
            raise GameError(f"a deal needs exactly {CELLS} cards")
        try:
            cards = tuple(Card.parse(t) for t in raw_cards)
        except CardError as exc:
            raise GameError(f"bad card in deal: {exc}") from None
        if len(set(cards)) != CELLS:
            raise GameError("duplicate card in deal")
        raw_moves = d.get("placements")
        if not isinstance(raw_moves, list) or len(raw_moves) > CELLS:
            raise GameError(f"placements must be a list of at most {CELLS} cells")
        cells: list[int] = []
        for m in raw_moves:
            if (
                not isinstance(m, list)
                or len(m) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in m)
                or not all(0 <= x < SIZE for x in m)
            ):
                raise GameError(f"bad placement {m!r}")
            cells.append(m[0] * SIZE + m[1])
        if len(set(cells)) != len(cells):
            raise GameError("two placements in the same cell")
        if d["replay"] and not d["practice"]:
            raise GameError("a replayed deal is always practice")
        fair = _load_fair(d.get("fair"), cards)
        return cls(
            table=table,
            cards=cards,
            placements=tuple(cells),
            target=target,
            practice=d["practice"],
            replay=d["replay"],
            seed=seed,
            fair=fair,
        )


def _load_fair(raw: Any, cards: tuple[Card, ...]) -> Fair | None:
    """The optional ``fair`` entry (absent in saves from before fair shuffles)."""
    if raw is None:
        return None
    try:
        fair = Fair.load(raw)
    except FairnessError as exc:
        raise GameError(f"bad fair seed: {exc}") from None
    if tuple(fair_deck(fair.seed)[:CELLS]) != cards:
        raise GameError("the cards are not the ones the fair seed deals")
    return fair


def _check_target(table: str, target: str) -> None:
    check_table(table)
    if target not in TARGET_LEVELS:
        raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGET_LEVELS)})")


def deal(
    table: str,
    seed: int,
    *,
    target: str = "normal",
    replay: bool = False,
    fair: Fair | None = None,
) -> Game:
    """A new deal of 25 cards shuffled from `seed`. A replay is practice from the start.
    With ``fair`` the cards come from its server seed by the documented shuffle instead
    (docs/fairness.md) and ``seed`` is not used."""
    _check_target(table, target)
    if fair is not None:
        cards = tuple(fair_deck(fair.seed)[:CELLS])
        return Game(table, cards, target=target, practice=replay, replay=replay, fair=fair)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    cards = tuple(shuffled_deck(random.Random(seed))[:CELLS])
    return Game(table, cards, target=target, practice=replay, replay=replay, seed=seed)


def deal_cards(table: str, cards: Sequence[Card], *, target: str = "normal") -> Game:
    """A deal of exactly the given cards in order (the first 25 are used); for benchmarks,
    puzzles and tests."""
    _check_target(table, target)
    chosen = tuple(cards[:CELLS])
    if len(chosen) != CELLS or len(set(chosen)) != CELLS:
        raise ValueError(f"a deal needs {CELLS} distinct cards")
    return Game(table, chosen, target=target)


def legal_moves(game: Game) -> list[Move]:
    """Every empty cell, row by row (none once the deal is over)."""
    if game.is_over:
        return []
    cells = game.cells
    return [m for m in ALL if cells[m.cell] is None]


def play(game: Game, move: Move | str) -> Game:
    """Put the current card on the move's cell. `MoveError` when ``move`` names no cell;
    `IllegalMove` when the deal is over or the cell is filled. ``game`` never changes."""
    if not isinstance(move, Move):
        move = Move.parse(move)
    if game.is_over:
        raise IllegalMove("the deal is over: every cell is filled", key="deal_over")
    held = game.cells[move.cell]
    if held is not None:
        raise IllegalMove(
            f"row {move.row + 1}, column {move.col + 1} already holds {held}",
            key="cell_filled",
            params={"cell": str(move), "card": str(held)},
        )
    return replace(game, placements=(*game.placements, move.cell))


def place(game: Game, row: int, col: int) -> Game:
    """`play` with the cell given as row and column (0-4)."""
    return play(game, Move(row, col))


def undo(game: Game) -> Game:
    """Take back the last placement; the deal becomes practice (SPEC PS-9). A finished deal
    stays finished: its result is recorded, so the last card cannot be taken back."""
    if game.is_over:
        raise IllegalMove("the deal is over: its result is final", key="deal_over")
    if not game.placements:
        raise IllegalMove("nothing to undo: no card has been placed", key="nothing_to_undo")
    return replace(game, placements=game.placements[:-1], practice=True)


def hinted(game: Game) -> Game:
    """The deal after the player asked for a hint: practice from now on (SPEC PS-9)."""
    return replace(game, practice=True)


def view(game: Game, seat: int | None = 0) -> dict[str, Any]:
    """What the player (seat 0) may see, JSON-ready; ``seat=None`` is a spectator, who sees
    the same table but has no moves. Never the order of the cards still to come."""
    if seat is not None and seat != 0:
        raise ValueError(f"Poker Squares has one seat (0), got {seat!r}")
    card = game.card
    mine = seat == 0 and not game.is_over
    return {
        "game": "poker-squares",
        "seat": seat,
        "table": game.table,
        "grid": [[None if c is None else str(c) for c in row] for row in game.grid],
        "card": None if card is None else str(card),
        "line_scores": list(game.line_scores),
        "line_hands": [None if h is None else h.key for h in game.line_hands],
        "total": game.total,
        "placed": game.placed,
        "cards_left": CELLS - game.placed,
        "practice": game.practice,
        "replay": game.replay,
        "is_over": game.is_over,
        "can_undo": mine and game.placed > 0,
        "legal_moves": [str(m) for m in legal_moves(game)] if mine else [],
        "last_placed": (
            None
            if not game.placements
            else [game.placements[-1] // SIZE, game.placements[-1] % SIZE]
        ),
        "target": {"level": game.target, "points": game.target_points},
        "target_reached": game.target_reached,
    } | ({} if game.fair is None else {"fairness": game.fair.public(game.is_over)})
