"""The rules themselves: `legal_moves`, `play`, `undo`, and the start of each turn.

This is the one place that decides legality (KC-4..KC-11, KC-13..KC-15, KC-18..KC-20).
A round's blocked ending (KC-20) is checked when a turn begins (after the draw, if any):
at the deal or setup, and after every "end". So a player whose own play leaves the table
blocked can still undo it; ending the turn then ends the round.
"""

from __future__ import annotations

from ._tables import (
    CENTRE,
    CORNERS,
    KING,
    KING_CORNER_ORDER,
    ON,
    PILE_NAMES,
    RANK,
    TEXT,
    colour_word,
)
from .moves import END, END_CODE, PLACE, SHIFT, SHIFT_BASE, IllegalMove, Move
from .rules import Rules
from .state import BLOCKED, RUNNING, WENT_OUT, Hand, Piles, Snapshot, State

_KINGS_FIRST = "kings first: a held King must go to an empty corner before anything else"


def legal_moves(state: State) -> list[Move]:
    """Every legal move for the player to play, in a fixed order: hand cards (hand order,
    piles N E S W NE SE SW NW), then pile moves, then "end". Empty when the round is over."""
    if state._outcome != RUNNING:
        return []
    rules = state._rules
    piles = state._piles
    hand = state._hands[state._to_play]
    empty_corners = [i for i in CORNERS if not piles[i]]
    if empty_corners and rules.kings == "first":
        kings = [c for c in hand if KING[c]]
        if kings:
            return [PLACE[k][i] for k in kings for i in empty_corners]
    tails = [(i, p[-1]) for i, p in enumerate(piles) if p]
    empty_centre = [i for i in CENTRE if not piles[i]]
    moves: list[Move] = []
    add = moves.append
    for c in hand:
        row = PLACE[c]
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
    if rules.pile_moves:
        for s in CENTRE:
            src = piles[s]
            if not src:
                continue
            head = src[0]
            row = SHIFT[s]
            if KING[head]:
                for i in empty_corners:
                    add(row[i])
            else:
                on = ON[head]
                for i, t in tails:
                    if on[t]:
                        add(row[i])
    add(END)
    return moves


def play(state: State, move: Move | str) -> State:
    """Apply one move and return the new state; `IllegalMove` (with ``.reason``) if the rules
    forbid it, `MoveError` if ``move`` is not a move at all. ``state`` never changes."""
    if not isinstance(move, Move):
        move = Move.parse(move)
    if state._outcome != RUNNING:
        raise IllegalMove("the round is over")
    code = move.code
    if code == END_CODE:
        return _end_turn(state)
    if code < SHIFT_BASE:
        card, pile = divmod(code - 1, 8)
        return _place(state, card, pile)
    source, target = divmod(code - SHIFT_BASE, 8)
    return _shift(state, source, target)


def undo(state: State) -> State:
    """The state before the last play or pile move of the current turn. Never undoes a draw
    or a hand-off: with nothing to undo it raises `IllegalMove`."""
    if state._outcome != RUNNING:
        raise IllegalMove("the round is over")
    if not state._undo:
        raise IllegalMove("nothing to undo in this turn")
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
) -> State:
    """The state at the start of ``seat``'s turn: the draw-first draw, then KC-20."""
    if rules.draw == "first" and stock:
        card = stock[0]
        stock = stock[1:]
        hands = (*hands[:seat], hands[seat] + (card,), *hands[seat + 1 :])
        drawn = (seat, card)
    outcome = RUNNING
    if any(not h for h in hands):
        outcome = WENT_OUT
    elif not stock and is_blocked(hands, piles, rules.pile_moves):
        outcome = BLOCKED
    return State(rules, players, seat, turn, hands, piles, stock, (), outcome, drawn)


def is_blocked(hands: tuple[Hand, ...], piles: Piles, pile_moves: bool) -> bool:
    """True when no hand can place any card and no pile move exists (KC-20, stock aside)."""
    tails = [p[-1] for p in piles if p]
    empty_centre = any(not piles[i] for i in CENTRE)
    empty_corner = any(not piles[i] for i in CORNERS)
    for hand in hands:
        for c in hand:
            if KING[c]:
                if empty_corner:
                    return False
            elif empty_centre or any(ON[c][t] for t in tails):
                return False
    if pile_moves:
        for s in CENTRE:
            src = piles[s]
            if src:
                head = src[0]
                if KING[head]:
                    if empty_corner:
                        return False
                elif any(ON[head][t] for t in tails):
                    return False
    return True


def _kings_due(hand: Hand, piles: Piles) -> bool:
    return any(KING[c] for c in hand) and any(not piles[i] for i in CORNERS)


def build_reason(card: int, tail: int) -> str | None:
    """Why ``card`` cannot go on ``tail`` (None when it can)."""
    if ON[card][tail]:
        return None
    if RANK[tail] == 1:
        return f"nothing goes on an Ace ({TEXT[tail]})"
    if KING[card]:
        return f"a King only starts an empty corner, it cannot go on {TEXT[tail]}"
    if RANK[card] + 1 != RANK[tail]:
        return f"{TEXT[card]} is not one rank below {TEXT[tail]}"
    return f"{TEXT[card]} is {colour_word(card)} like {TEXT[tail]}"


def _place(state: State, card: int, pile: int) -> State:
    seat = state._to_play
    hand = state._hands[seat]
    piles = state._piles
    if card not in hand:
        raise IllegalMove(f"{TEXT[card]} is not in your hand")
    king_to_corner = KING[card] and pile >= 4 and not piles[pile]
    if state._rules.kings == "first" and not king_to_corner and _kings_due(hand, piles):
        raise IllegalMove(_KINGS_FIRST)
    dest = piles[pile]
    if dest:
        reason = build_reason(card, dest[-1])
        if reason:
            raise IllegalMove(reason)
    elif pile < 4:
        if KING[card]:
            raise IllegalMove("a King cannot go to an empty centre pile")
    elif not KING[card]:
        raise IllegalMove(f"only a King can start an empty corner, not {TEXT[card]}")
    i = hand.index(card)
    new_hand = hand[:i] + hand[i + 1 :]
    new_piles = (*piles[:pile], (*dest, card), *piles[pile + 1 :])
    # Going out ends the round on the spot (KC-18): nothing is left to undo.
    undo: tuple[Snapshot, ...] = (*state._undo, (hand, piles)) if new_hand else ()
    return State(
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


def _shift(state: State, source: int, target: int) -> State:
    rules = state._rules
    piles = state._piles
    seat = state._to_play
    hand = state._hands[seat]
    if not rules.pile_moves:
        raise IllegalMove("pile moves are off in these rules")
    if rules.kings == "first" and _kings_due(hand, piles):
        raise IllegalMove(_KINGS_FIRST)
    name = PILE_NAMES[source]
    if source >= 4:
        raise IllegalMove(f"a corner pile never moves ({name} is a corner)")
    src = piles[source]
    if not src:
        raise IllegalMove(f"pile {name} is empty")
    if source == target:
        raise IllegalMove("a pile cannot move onto itself")
    dest = piles[target]
    head = src[0]
    if dest:
        reason = build_reason(head, dest[-1])
        if reason:
            raise IllegalMove(f"{name} starts with {TEXT[head]}: {reason}")
    elif target < 4:
        raise IllegalMove("a pile never moves into an empty centre pile")
    elif not KING[head]:
        raise IllegalMove(
            f"only a pile headed by a King can move to an empty corner "
            f"({name} starts with {TEXT[head]})"
        )
    new_piles = list(piles)
    new_piles[target] = dest + src
    new_piles[source] = ()
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


def _end_turn(state: State) -> State:
    rules = state._rules
    seat = state._to_play
    hands = state._hands
    piles = state._piles
    stock = state._stock
    drawn = state._drawn
    if rules.kings == "first" and _kings_due(hands[seat], piles):
        raise IllegalMove(_KINGS_FIRST)
    if rules.draw == "last" and stock:
        card = stock[0]
        stock = stock[1:]
        drawn = (seat, card)
        corner = next((i for i in KING_CORNER_ORDER if not piles[i]), None)
        if KING[card] and corner is not None:
            # KC-14: a drawn King goes straight to the first empty corner.
            piles = (*piles[:corner], (card,), *piles[corner + 1 :])
        else:
            hands = (*hands[:seat], hands[seat] + (card,), *hands[seat + 1 :])
    nxt = (seat + 1) % state._players
    return begin_turn(rules, state._players, nxt, state._turn + 1, hands, piles, stock, drawn)
