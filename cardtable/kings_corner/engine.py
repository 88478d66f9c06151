"""The rules themselves: the move generator, `refusal`, `play` / `play_events`, `undo`, and
the start of each turn.

This is the one place that decides legality (KC-4..KC-11, KC-13..KC-15, KC-18..KC-20):
`generate` lists the legal moves of a position (as `Move` values for `legal_moves`, as
integer codes for `move_codes`), and `refusal` says why any other move is refused, as a
stable key and parameters (worded by `reasons.text`). `play` raises exactly that refusal
as `IllegalMove`, and `view` shows it for every card and pile; tests check that a move is
either generated or refused, never both.

A round's blocked ending (KC-20) is checked when a turn begins (after the draw, if any):
at the deal or setup, and after every "end". So a player whose own play leaves the table
blocked can still undo it; ending the turn then ends the round.

`play` returns the new state only (it runs in the computer players' hot loops);
`play_events` also reports what happened, as `cardtable.interface.Event` values the same
code path records while it plays (never by comparing states):

- ``play`` (seat; card, pile), ``pile_move`` (seat; from, to), ``end_turn`` (seat);
- ``draw`` (seat; the card only in ``private``, owner the drawer): under draw-first the next
  player's draw as their turn begins, under draw-last the ender's draw;
- ``king_to_corner`` (seat; card, pile): a King drawn under draw-last goes straight to a
  corner (KC-14); that draw's card is then public too;
- ``turn`` (the next seat; turn): the next turn begins;
- ``round_over`` (no seat; ending "out" | "blocked", winners, penalties).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from cardtable.interface import Event

from ._tables import CENTRE, CORNERS, KING, KING_CORNER_ORDER, ON, PILE_NAMES, TEXT
from .moves import (
    END,
    END_CODE,
    PLACE,
    PLACE_CODE,
    SHIFT,
    SHIFT_BASE,
    SHIFT_CODE,
    IllegalMove,
    Move,
)
from .position import (
    BLOCKED,
    BUILD_KEY,
    RUNNING,
    WENT_OUT,
    Hand,
    Piles,
    Refusal,
    Snapshot,
    is_blocked,
)
from .reasons import text
from .rules import Rules
from .state import State

__all__ = [
    "begin_turn",
    "default_move",
    "end_refusal",
    "generate",
    "illegal",
    "is_blocked",
    "kings_due",
    "legal_moves",
    "move_codes",
    "place_refusal",
    "play",
    "play_events",
    "refusal",
    "shift_refusal",
    "undo",
]

T = TypeVar("T")


# -- what is legal -------------------------------------------------------------------------
def generate(
    hand: Hand,
    piles: Piles,
    pile_moves: bool,
    kings_first: bool,
    place: Sequence[Sequence[T]],
    shift: Sequence[Sequence[T]],
    end: T,
) -> list[T]:
    """The legal moves of the player holding ``hand`` (the round running), in a fixed order:
    hand cards (hand order, piles N E S W NE SE SW NW), then pile moves, then ``end`` (absent
    when kings-first forces a King). Each move is ``place[card][pile]``,
    ``shift[source][target]`` or ``end``: pass the `Move` tables (`legal_moves`) or the code
    tables (`move_codes`); one generator serves both."""
    empty_corners = [i for i in CORNERS if not piles[i]]
    if empty_corners and kings_first:
        kings = [c for c in hand if KING[c]]
        if kings:
            return [place[k][i] for k in kings for i in empty_corners]
    tails = [(i, p[-1]) for i, p in enumerate(piles) if p]
    empty_centre = [i for i in CENTRE if not piles[i]]
    out: list[T] = []
    add = out.append
    for c in hand:
        row = place[c]
        if KING[c]:
            for i in empty_corners:
                add(row[i])
        else:
            on = ON[c]
            for i, t in tails:
                if on[t]:
                    add(row[i])
            for i in empty_centre:
                add(row[i])
    if pile_moves:
        for s in CENTRE:
            src = piles[s]
            if not src:
                continue
            head = src[0]
            row = shift[s]
            if KING[head]:
                for i in empty_corners:
                    add(row[i])
            else:
                on = ON[head]
                for i, t in tails:
                    if on[t]:
                        add(row[i])
    add(end)
    return out


def move_codes(hand: Hand, piles: Piles, pile_moves: bool, kings_first: bool) -> list[int]:
    """The legal move codes (see `moves`) of a position, in `legal_moves` order, "end"
    (``END_CODE``) last: the raw generator for searches that keep positions as tuples."""
    return generate(hand, piles, pile_moves, kings_first, PLACE_CODE, SHIFT_CODE, END_CODE)


def legal_moves(state: State) -> list[Move]:
    """Every legal move for the player to play, in a fixed order: hand cards (hand order,
    piles N E S W NE SE SW NW), then pile moves, then "end". Empty when the round is over."""
    if state._outcome != RUNNING:
        return []
    rules = state._rules
    return generate(
        state._hands[state._to_play],
        state._piles,
        rules.pile_moves,
        rules.kings == "first",
        PLACE,
        SHIFT,
        END,
    )


def default_move(state: State) -> Move:
    """The move that changes least, for a server that must move for a seat (a computer
    player's mistake): "end", or under kings-first the first compulsory King placement."""
    legal = legal_moves(state)
    if not legal:
        raise illegal({"key": "round_over", "params": {}})
    return END if legal[-1] is END else legal[0]


# -- what is refused, and why --------------------------------------------------------------
def refusal(state: State, move: Move | str) -> Refusal | None:
    """Why the rules refuse ``move`` here, as ``{"key", "params"}`` (see `reasons`), or None
    when it is legal. `play` raises exactly this; `view` lists it per card and pile."""
    if not isinstance(move, Move):
        move = Move.parse(move)
    if state._outcome != RUNNING:
        return {"key": "round_over", "params": {}}
    code = move.code
    rules = state._rules
    hand = state._hands[state._to_play]
    piles = state._piles
    due = kings_due(rules, hand, piles)
    if code == END_CODE:
        return end_refusal(due)
    if code < SHIFT_BASE:
        card, pile = divmod(code - 1, 8)
        return place_refusal(hand, piles, card, pile, due)
    source, target = divmod(code - SHIFT_BASE, 8)
    return shift_refusal(piles, source, target, rules.pile_moves, due)


def kings_due(rules: Rules, hand: Hand, piles: Piles) -> bool:
    """Whether kings-first binds the player holding ``hand``: the rule is on, they hold a
    King and a corner is empty (KC-15). The refusal functions take this flag."""
    return rules.kings == "first" and _kings_due(hand, piles)


def end_refusal(kings_due: bool) -> Refusal | None:
    """Why the player may not end the turn (None: they may)."""
    return {"key": "kings_first", "params": {}} if kings_due else None


def place_refusal(
    hand: Hand, piles: Piles, card: int, pile: int, kings_due: bool
) -> Refusal | None:
    """Why ``card`` from ``hand`` may not go on pile number ``pile`` (None: it may)."""
    if card not in hand:
        return {"key": "not_in_hand", "params": {"card": TEXT[card]}}
    dest = piles[pile]
    king = KING[card]
    if kings_due and not (king and pile >= 4 and not dest):
        return {"key": "kings_first", "params": {}}
    if dest:
        tail = dest[-1]
        key = BUILD_KEY[card][tail]
        return (
            None
            if key is None
            else {"key": key, "params": {"card": TEXT[card], "tail": TEXT[tail]}}
        )
    if pile < 4:
        return {"key": "king_to_centre", "params": {"card": TEXT[card]}} if king else None
    return None if king else {"key": "corner_needs_king", "params": {"card": TEXT[card]}}


def shift_refusal(
    piles: Piles, source: int, target: int, pile_moves: bool, kings_due: bool
) -> Refusal | None:
    """Why the whole pile ``source`` may not move onto pile ``target`` (None: it may)."""
    if not pile_moves:
        return {"key": "pile_moves_off", "params": {}}
    if kings_due:
        return {"key": "kings_first", "params": {}}
    name = PILE_NAMES[source]
    if source >= 4:
        return {"key": "corner_never_moves", "params": {"pile": name}}
    src = piles[source]
    if not src:
        return {"key": "empty_source", "params": {"pile": name}}
    if source == target:
        return {"key": "onto_itself", "params": {"pile": name}}
    dest = piles[target]
    head = src[0]
    if dest:
        tail = dest[-1]
        key = BUILD_KEY[head][tail]
        if key is None:
            return None
        return {"key": key, "params": {"card": TEXT[head], "tail": TEXT[tail], "pile": name}}
    if target < 4:
        return {"key": "pile_to_empty_centre", "params": {"pile": name}}
    return (
        None
        if KING[head]
        else {"key": "pile_corner_needs_king", "params": {"pile": name, "card": TEXT[head]}}
    )


def illegal(refused: Refusal) -> IllegalMove:
    """The `IllegalMove` for a refusal: its sentence, key and params."""
    key, params = refused["key"], refused["params"]
    return IllegalMove(text(key, params), key=key, params=params)


def _kings_due(hand: Hand, piles: Piles) -> bool:
    return any(KING[c] for c in hand) and any(not piles[i] for i in CORNERS)


# -- playing -------------------------------------------------------------------------------
def play(state: State, move: Move | str) -> State:
    """Apply one move and return the new state; `IllegalMove` (with ``.reason``, ``.key``,
    ``.params``) if the rules forbid it, `MoveError` if ``move`` is not a move at all.
    ``state`` never changes."""
    if not isinstance(move, Move):
        move = Move.parse(move)
    return _apply(state, move, None)  # no event list: `play` runs in hot loops


def play_events(state: State, move: Move | str) -> tuple[State, list[Event]]:
    """`play`, and what happened (see the module docstring for the events)."""
    if not isinstance(move, Move):
        move = Move.parse(move)
    events: list[Event] = []
    return _apply(state, move, events), events


def _apply(state: State, move: Move, events: list[Event] | None) -> State:
    if state._outcome != RUNNING:
        raise illegal({"key": "round_over", "params": {}})
    code = move.code
    if code == END_CODE:
        return _end_turn(state, events)
    if code < SHIFT_BASE:
        card, pile = divmod(code - 1, 8)
        return _place(state, card, pile, events)
    source, target = divmod(code - SHIFT_BASE, 8)
    return _shift(state, source, target, events)


def undo(state: State) -> State:
    """The state before the last play or pile move of the current turn. Never undoes a draw
    or a hand-off: with nothing to undo it raises `IllegalMove`."""
    if state._outcome != RUNNING:
        raise illegal({"key": "round_over", "params": {}})
    if not state._undo:
        raise illegal({"key": "nothing_to_undo", "params": {}})
    hand, piles = state._undo[-1]
    seat = state._to_play
    hands = (*state._hands[:seat], hand, *state._hands[seat + 1 :])
    return State(
        state._rules,
        state._players,
        seat,
        state._turn,
        hands,
        piles,
        state._stock,
        state._undo[:-1],
        RUNNING,
        state._drawn,
    )


def begin_turn(
    rules: Rules,
    players: int,
    seat: int,
    turn: int,
    hands: tuple[Hand, ...],
    piles: Piles,
    stock: Hand,
    drawn: tuple[int, int] | None,
    events: list[Event] | None = None,
) -> State:
    """The state at the start of ``seat``'s turn: the draw-first draw, then KC-20."""
    if events is not None:
        events.append(Event("turn", seat, {"turn": turn}))
    if rules.draw == "first" and stock:
        card = stock[0]
        stock = stock[1:]
        hands = (*hands[:seat], hands[seat] + (card,), *hands[seat + 1 :])
        drawn = (seat, card)
        if events is not None:
            events.append(_draw_event(seat, card))
    outcome = RUNNING
    if any(not h for h in hands):
        outcome = WENT_OUT
    elif not stock and is_blocked(hands, piles, rules.pile_moves):
        outcome = BLOCKED
    state = State(rules, players, seat, turn, hands, piles, stock, (), outcome, drawn)
    if events is not None and outcome != RUNNING:
        events.append(_round_over(state))
    return state


def _draw_event(seat: int, card: int, *, public: bool = False) -> Event:
    face = {"card": TEXT[card]}
    return Event("draw", seat, face if public else {}, private=face, owner=seat)


def _round_over(state: State) -> Event:
    return Event(
        "round_over",
        None,
        {
            "ending": state.ending,
            "winners": list(state.winners or ()),
            "penalties": list(state.penalties or ()),
        },
    )


def _place(state: State, card: int, pile: int, events: list[Event] | None) -> State:
    seat = state._to_play
    hand = state._hands[seat]
    piles = state._piles
    due = state._rules.kings == "first" and _kings_due(hand, piles)  # kings_due, inlined
    refused = place_refusal(hand, piles, card, pile, due)
    if refused is not None:
        raise illegal(refused)
    i = hand.index(card)
    new_hand = hand[:i] + hand[i + 1 :]
    new_piles = (*piles[:pile], (*piles[pile], card), *piles[pile + 1 :])
    # Going out ends the round on the spot (KC-18): nothing is left to undo.
    undo: tuple[Snapshot, ...] = (*state._undo, (hand, piles)) if new_hand else ()
    new = State(
        state._rules,
        state._players,
        seat,
        state._turn,
        (*state._hands[:seat], new_hand, *state._hands[seat + 1 :]),
        new_piles,
        state._stock,
        undo,
        RUNNING if new_hand else WENT_OUT,
        state._drawn,
    )
    if events is not None:
        events.append(Event("play", seat, {"card": TEXT[card], "pile": PILE_NAMES[pile]}))
        if not new_hand:
            events.append(_round_over(new))
    return new


def _shift(state: State, source: int, target: int, events: list[Event] | None) -> State:
    rules = state._rules
    piles = state._piles
    seat = state._to_play
    hand = state._hands[seat]
    due = rules.kings == "first" and _kings_due(hand, piles)  # kings_due, inlined
    refused = shift_refusal(piles, source, target, rules.pile_moves, due)
    if refused is not None:
        raise illegal(refused)
    new_piles = list(piles)
    new_piles[target] = piles[target] + piles[source]
    new_piles[source] = ()
    if events is not None:
        events.append(
            Event("pile_move", seat, {"from": PILE_NAMES[source], "to": PILE_NAMES[target]})
        )
    return State(
        rules,
        state._players,
        seat,
        state._turn,
        state._hands,
        tuple(new_piles),
        state._stock,
        (*state._undo, (hand, piles)),
        RUNNING,
        state._drawn,
    )


def _end_turn(state: State, events: list[Event] | None) -> State:
    rules = state._rules
    seat = state._to_play
    hands = state._hands
    piles = state._piles
    stock = state._stock
    drawn = state._drawn
    refused = end_refusal(rules.kings == "first" and _kings_due(hands[seat], piles))
    if refused is not None:
        raise illegal(refused)
    if events is not None:
        events.append(Event("end_turn", seat))
    if rules.draw == "last" and stock:
        card = stock[0]
        stock = stock[1:]
        drawn = (seat, card)
        corner = next((i for i in KING_CORNER_ORDER if not piles[i]), None)
        if KING[card] and corner is not None:
            # KC-14: a drawn King goes straight to the first empty corner.
            piles = (*piles[:corner], (card,), *piles[corner + 1 :])
            if events is not None:
                events.append(_draw_event(seat, card, public=True))
                events.append(
                    Event("king_to_corner", seat, {"card": TEXT[card], "pile": PILE_NAMES[corner]})
                )
        else:
            hands = (*hands[:seat], hands[seat] + (card,), *hands[seat + 1 :])
            if events is not None:
                events.append(_draw_event(seat, card))
    nxt = (seat + 1) % state._players
    return begin_turn(
        rules, state._players, nxt, state._turn + 1, hands, piles, stock, drawn, events
    )
