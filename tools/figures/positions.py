"""The figures of the how-to-play pages: each position is set up through the engine
(``cardtable.kings_corner`` / ``cardtable.poker_squares``) and described by what the render
page draws, the numbered markers and the arrows (placed on named parts: ``pile:N``,
``tail:N``, ``card:7H``, ``stock``, ``seat:1``, ``cell:2,3``, ``score:5``, ``total``,
``current``, ``strip:0``).

Nothing here launches a browser: `describe()` is what the out-of-date test hashes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cardtable.cards import Card
from cardtable.kings_corner import ENGINE as KC
from cardtable.poker_squares import ENGINE as PS
from cardtable.poker_squares.hands import TABLES, Hand, classify
from cardtable.poker_squares.hint import evaluate, hint

JSON = dict[str, Any]

STANDARD = {"draw": "first", "pile_moves": True, "kings": "optional", "dealt_kings": "stay"}


@dataclass(frozen=True)
class Marker:
    n: int
    at: str
    corner: str = "tl"  # tl, tr, bl, br, c, t, b, l, r: where on the part the number sits


@dataclass(frozen=True)
class Arrow:
    start: str
    end: str
    style: str = "go"  # go: a move; no: a refused move (dashed, crossed); next: a later move


@dataclass(frozen=True)
class Figure:
    name: str
    build: Callable[[], JSON]
    markers: tuple[Marker, ...] = ()
    arrows: tuple[Arrow, ...] = ()
    facts: Callable[[JSON], JSON] = field(default=lambda spec: {})


# --- Kings Corner -----------------------------------------------------------------------------


def kc_state(
    hands: list[list[str]],
    piles: dict[str, list[str]],
    stock: int | list[str],
    rules: dict[str, Any] | None = None,
    *,
    to_play: int = 0,
    last_draw: list[Any] | None = None,
    ending: str | None = None,
) -> Any:
    """A constructed position; `stock` is its cards (top first) or a count of cards taken, in
    a fixed order, from the cards not used elsewhere (no Kings, so none hides a corner)."""
    full: dict[str, list[str]] = {p: [] for p in ("N", "E", "S", "W", "NE", "SE", "SW", "NW")}
    full.update(piles)
    if isinstance(stock, int):
        used = {c for h in hands for c in h} | {c for p in full.values() for c in p}
        stock = [c for c in SPARE if c not in used][:stock]
    return KC.from_dict(
        {
            "format": "kings-corner/1",
            "rules": rules or STANDARD,
            "players": len(hands),
            "to_play": to_play,
            "turn": 3,
            "hands": hands,
            "piles": full,
            "stock": stock,
            "undo": [],
            "ending": ending,
            "last_draw": last_draw,
        }
    )


SPARE = [r + s for r in "A23456789TJQ" for s in "CDHS"]


def kc_spec(state: Any, **extra: Any) -> JSON:
    return {"kind": "kc", "view": KC.view(state, 0), **extra}


def kc_deal() -> JSON:
    rules = {**STANDARD, "draw": "last"}
    return kc_spec(KC.new(1, {"players": 2, "rules": rules}), showMovable=False)


def _build_state() -> Any:
    return kc_state(
        [["8S", "8D", "4H", "QC", "2C", "6H"], ["5C", "JH", "3D", "TS", "7C", "AS"]],
        {"N": ["TD"], "E": ["KC", "QD", "JC"], "S": ["5S"], "W": ["9H"]},
        12,
    )


def kc_build() -> JSON:
    return kc_spec(_build_state(), selection={"kind": "card", "card": "8S"}, showMovable=False)


def kc_corner() -> JSON:
    state = kc_state(
        [["KD", "QS", "7C", "3H", "9D"], ["5C", "2H", "TS", "6S"]],
        {"N": ["8H"], "E": ["JS", "TH"], "S": ["4C"], "W": ["6D"], "NE": ["KH", "QC"]},
        8,
    )
    return kc_spec(state, selection={"kind": "card", "card": "KD"}, showMovable=False)


PILE_POSITION = {
    "hands": [["6S", "3C", "QH", "AD"], ["5C", "2H", "TS", "6D", "JD"]],
    "piles": {"N": ["KS", "QD"], "E": ["9D"], "S": ["4S"], "W": ["8C", "7H"]},
}


def kc_pile() -> JSON:
    state = kc_state(PILE_POSITION["hands"], PILE_POSITION["piles"], 10)
    return kc_spec(state, selection={"kind": "pile", "pile": "W"})


def kc_blocked() -> JSON:
    state = kc_state(
        [["8H", "3C", "JD"], ["9S", "5D", "2S", "6C"]],
        {
            "N": ["5H", "4S", "3H", "2C", "AD"],
            "E": ["4D", "3S", "2H", "AC"],
            "S": ["9C", "8D"],
            "W": ["AS"],
            "NE": ["KH", "QS", "JH"],
            "SE": ["KS"],
            "SW": ["KD"],
            "NW": ["KC"],
        },
        [],
        ending="blocked",
    )
    return kc_spec(state)


def kc_end() -> JSON:
    state = kc_state(
        [["KH", "6C", "2D"], ["4S"]],
        {"N": ["6S", "5H"], "E": ["9S", "8D"], "S": ["JC"], "W": ["3S"], "NE": ["KS", "QH"]},
        6,
        to_play=1,
    )
    return kc_spec(KC.play(state, "4S>N"))


def kc_draw_last() -> JSON:
    rules = {**STANDARD, "draw": "last"}
    before = kc_state(
        [["9C", "4D", "JS"], ["5C", "2H", "TS", "6D"]],
        {"N": ["8H"], "E": ["QC", "JD"], "S": ["6S"], "W": ["TH"]},
        ["KH", "2C", "3D", "5S", "7C", "AD"],
        rules,
    )
    after, events = KC.play_events(before, "end")
    corner = next(e.public["pile"] for e in events if e.kind == "king_to_corner")
    view = KC.view(after, 0)
    return {
        "kind": "kc",
        "view": view,
        "lastPiles": [corner],
        "showMovable": False,
        "corner": corner,
    }


def kc_kings_first() -> JSON:
    rules = {**STANDARD, "kings": "first"}
    state = kc_state(
        [["KS", "7H", "3C", "9D"], ["5C", "2H", "TS", "6D"]],
        {"N": ["TC"], "E": ["QD", "JS"], "S": ["4H"], "W": ["8S"]},
        8,
        rules,
    )
    return kc_spec(state, selection={"kind": "card", "card": "KS"})


def kc_dealt_kings() -> JSON:
    rules = {**STANDARD, "dealt_kings": "corner"}
    state = KC.new(10, {"players": 2, "rules": {**rules, "draw": "last"}})
    return kc_spec(state, showMovable=False)


def kc_pile_moves_off() -> JSON:
    rules = {**STANDARD, "pile_moves": False}
    state = kc_state(PILE_POSITION["hands"], PILE_POSITION["piles"], 10, rules)
    return kc_spec(state)


# "Your turn": play, play, move a pile, end the turn (standard rules, the drawn card marked).
TURN_MOVES = ("7D>N", "6C>N", "W>S", "end")


def turn_states() -> list[Any]:
    state = kc_state(
        [["QH", "6C", "3H", "AS", "7D"], ["5C", "2H", "TS", "6D", "JC"]],
        {"N": ["8S"], "E": ["4C"], "S": ["JD", "TC"], "W": ["9D"]},
        9,
        last_draw=[0, "7D"],
    )
    states = [state]
    for move in TURN_MOVES:
        state = KC.play(state, move)
        states.append(state)
    return states


def kc_turn(step: int) -> Callable[[], JSON]:
    def build() -> JSON:
        state = turn_states()[step]
        extra: JSON = {"showMovable": step == 2}
        move = TURN_MOVES[step] if step < len(TURN_MOVES) else None
        if move and move != "end":
            src = move.split(">")[0]
            extra["selection"] = (
                {"kind": "pile", "pile": src}
                if src in ("N", "E", "S", "W")
                else {"kind": "card", "card": src}
            )
        return kc_spec(state, **extra)

    return build


# --- Poker Squares ----------------------------------------------------------------------------

CELLS = [(r, c) for r in range(5) for c in range(5)]
DECK = [r + s for s in "SHDC" for r in "A23456789TJQK"]


def ps_state(grid: dict[tuple[int, int], str], current: str | None, table: str = "american") -> Any:
    """A deal whose placed cards are `grid` (in row order) and whose next card is `current`."""
    placed = list(grid.items())
    used = {code for _, code in placed} | ({current} if current else set())
    rest = [c for c in DECK if c not in used]
    cards = [code for _, code in placed] + ([current] if current else [])
    cards += rest[: 25 - len(cards)]
    return PS.from_dict(
        {
            "format": "poker-squares/1",
            "table": table,
            "target": "normal",
            "seed": None,
            "cards": cards,
            "placements": [[r, c] for (r, c), _ in placed],
            "practice": False,
            "replay": False,
        }
    )


def ps_spec(state: Any, **extra: Any) -> JSON:
    view = PS.view(state, 0)
    return {"kind": "ps", "view": view, "current": view["card"], **extra}


def _grid(rows: list[str]) -> dict[tuple[int, int], str]:
    """Rows of five cards or '..' for an empty cell."""
    out = {}
    for r, row in enumerate(rows):
        for c, code in enumerate(row.split()):
            if code != "..":
                out[(r, c)] = code
    return out


PLACE_GRID = _grid(
    [
        "7H .. .. KS ..",
        ".. 7C .. .. ..",
        ".. .. 2D .. ..",
        "7S .. .. .. 9D",
        ".. .. .. .. ..",
    ]
)


def ps_place() -> JSON:
    return ps_spec(ps_state(PLACE_GRID, "7D"))


LINES_GRID = _grid(
    [
        "5H 5C 9S 9D 5S",
        "QH .. 2C .. ..",
        "8H .. .. 4D ..",
        "3H .. JC .. ..",
        "AH .. .. .. 6S",
    ]
)


def ps_lines() -> JSON:
    return ps_spec(ps_state(LINES_GRID, "TD"))


HINT_GRID = _grid(
    [
        "KH KD .. .. ..",
        "4C .. 8C .. ..",
        ".. .. .. .. ..",
        "9S .. .. 3H ..",
        ".. .. TC .. ..",
    ]
)


def ps_hint() -> JSON:
    state = ps_state(HINT_GRID, "KC")
    view = PS.view(state, 0)
    row, col = hint(view, budget=0)
    return ps_spec(state, hint={"row": row, "col": col}, estimates=evaluate(view, budget=0))


def ps_complete() -> JSON:
    state = PS.new(7, {"table": "american", "target": "normal"})
    for _ in range(25):
        view = PS.view(state, 0)
        row, col = hint(view, budget=0)
        state = PS.play(state, "abcde"[col] + str(row + 1))
    return ps_spec(state, current=None)


def ps_complete_facts(spec: JSON) -> JSON:
    view = spec["view"]
    return {
        "line_scores": view["line_scores"],
        "line_hands": view["line_hands"],
        "total": view["total"],
    }


HAND_EXAMPLES = {
    "royal_flush": "TS JS QS KS AS",
    "straight_flush": "5H 6H 7H 8H 9H",
    "four_of_a_kind": "9C 9D 9H 9S 4D",
    "full_house": "QH QC QD 6S 6H",
    "flush": "2D 7D 9D JD KD",
    "straight": "AC 2D 3H 4S 5C",
    "three_of_a_kind": "8S 8D 8C KH 3C",
    "two_pair": "JH JC 4S 4H 9D",
    "one_pair": "TD TC 6S 3H AS",
    "nothing": "KC 9H 7S 4D 2C",
}


def hand_strip(key: str) -> Callable[[], JSON]:
    def build() -> JSON:
        cards = HAND_EXAMPLES[key].split()
        found = classify(Card.parse(c) for c in cards)
        if found.key != key:
            raise AssertionError(f"{key} example is a {found.key}")
        return {"kind": "strip", "cards": cards}

    return build


def hand_facts(key: str) -> Callable[[JSON], JSON]:
    def facts(spec: JSON) -> JSON:
        hand = Hand[key.upper()]
        return {"points": {table: TABLES[table][hand] for table in ("american", "british")}}

    return facts


def kc_end_facts(spec: JSON) -> JSON:
    return {"penalties": spec["view"]["penalties"]}


M, A = Marker, Arrow

FIGURES: tuple[Figure, ...] = (
    Figure(
        "kc-deal",
        kc_deal,
        (
            M(1, "card:JC", "t"),
            M(2, "tail:N", "tr"),
            M(3, "pile:NE", "c"),
            M(4, "stock", "tr"),
            M(5, "seat:1", "r"),
        ),
    ),
    Figure(
        "kc-build",
        kc_build,
        (M(1, "card:8S", "t"), M(2, "card:8D", "t")),
        (A("card:8S", "tail:W"), A("card:8D", "tail:W", "no")),
    ),
    Figure(
        "kc-corner",
        kc_corner,
        (M(1, "card:KD", "t"), M(2, "pile:NE", "tr")),
        (A("card:KD", "pile:NW"),),
    ),
    Figure(
        "kc-pile",
        kc_pile,
        (M(1, "head:W", "tl"), M(2, "tail:E", "tr"), M(3, "card:6S", "t")),
        (A("pile:W", "tail:E"), A("card:6S", "pile:W", "next")),
    ),
    Figure(
        "kc-blocked",
        kc_blocked,
        (M(1, "stock", "tr"), M(2, "card:8H", "t"), M(3, "tail:N", "tr")),
    ),
    Figure(
        "kc-end",
        kc_end,
        (M(1, "seat:1", "r"), M(2, "card:KH", "t"), M(3, "card:6C", "t"), M(4, "card:2D", "t")),
        facts=kc_end_facts,
    ),
    Figure("kc-draw-last", kc_draw_last, (M(1, "stock", "tr"), M(2, "pile:NW", "tr"))),
    Figure(
        "kc-kings-first",
        kc_kings_first,
        (M(1, "card:KS", "t"), M(2, "card:7H", "t")),
        (A("card:KS", "pile:SW"), A("card:7H", "tail:W", "no")),
    ),
    Figure("kc-dealt-kings", kc_dealt_kings, (M(1, "tail:NW", "tr"), M(2, "tail:S", "tr"))),
    Figure(
        "kc-pile-moves-off",
        kc_pile_moves_off,
        (M(1, "head:W", "tl"),),
        (A("pile:W", "tail:E", "no"),),
    ),
    Figure("kc-turn-1", kc_turn(0), (M(1, "card:7D", "t"),), (A("card:7D", "tail:N"),)),
    Figure("kc-turn-2", kc_turn(1), (M(2, "card:6C", "t"),), (A("card:6C", "tail:N"),)),
    Figure("kc-turn-3", kc_turn(2), (M(3, "pile:W", "tl"),), (A("pile:W", "tail:S"),)),
    Figure("kc-turn-4", kc_turn(3), (M(4, "pile:W", "c"),)),
    Figure("kc-turn-5", kc_turn(4), (M(5, "seat:1", "r"),)),
    Figure(
        "ps-place",
        ps_place,
        (M(1, "current", "tl"), M(2, "cell:3,1", "tr"), M(3, "cell:0,0", "tl")),
        (A("current", "cell:3,1"),),
    ),
    Figure(
        "ps-lines", ps_lines, (M(1, "score:0", "tr"), M(2, "score:5", "bl"), M(3, "score:1", "r"))
    ),
    Figure(
        "ps-hint", ps_hint, (M(1, "current", "tl"), M(2, "cell:0,2", "tr"), M(3, "cell:4,4", "tr"))
    ),
    Figure(
        "ps-complete",
        ps_complete,
        (M(1, "score:0", "tr"), M(2, "score:5", "bl"), M(3, "total", "br")),
        facts=ps_complete_facts,
    ),
    *(Figure(f"ps-hand-{key}", hand_strip(key), facts=hand_facts(key)) for key in HAND_EXAMPLES),
)


def describe(figure: Figure) -> JSON:
    """Everything the image and its markers depend on in the engine and the description."""
    spec = figure.build()
    return {
        "name": figure.name,
        "spec": spec,
        "markers": [m.__dict__ for m in figure.markers],
        "arrows": [a.__dict__ for a in figure.arrows],
        "facts": figure.facts(spec),
    }
