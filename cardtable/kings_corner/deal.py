"""Starting positions: `deal` (a seeded fresh round), `setup` (an explicit position) and
`from_view` (a player's view plus a guess of the hidden cards, for computer players).

Positions are validated by `position.check_position`, the validator saved states use too.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from cardtable.cards import Card, shuffled_deck
from cardtable.fairness import Fair, fair_order

from ._tables import KING, KING_CORNER_ORDER
from .engine import begin_turn
from .position import (
    BLOCKED,
    RUNNING,
    WENT_OUT,
    Hand,
    StateError,
    card_codes,
    check_position,
    piles_from_names,
)
from .rules import Rules
from .state import State

HAND_SIZE = 7


def deal(
    players: int, rules: Rules, seed: int, *, first: int | None = None, fair: Fair | None = None
) -> State:
    """A fresh round: 7 cards each, four centre cards N E S W, the rest as stock (KC-1).

    With ``fair`` the deck comes from its server seed by the shuffle of docs/fairness.md
    (seat 0 gets the first 7 cards, seat 1 the next 7, ..., then N E S W, then the stock,
    top first); ``seed`` then only draws the first player when ``first`` is not given.

    The first player is drawn from ``seed`` unless ``first`` is given (a match rotates it).
    Under draw-first the first player's draw is already done (KC-13); under dealt Kings to
    corners (KC-16) each centre King goes to the first empty corner (NW, NE, SE, SW) and its
    slot is refilled from the stock.
    """
    _check_players(players)
    if not isinstance(rules, Rules):
        raise StateError(f"rules must be a Rules value, got {rules!r}")
    rng = random.Random(seed)
    deck = fair_order(fair.seed) if fair is not None else [c.index for c in shuffled_deck(rng)]
    if first is None:
        first = rng.randrange(players)
    elif not 0 <= first < players:
        raise StateError(f"first seat must be 0-{players - 1}, got {first}")
    hands = tuple(tuple(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(players))
    pos = players * HAND_SIZE
    centre = deck[pos : pos + 4]
    stock = deck[pos + 4 :]
    piles: list[Hand] = [()] * 8
    for i in range(4):
        while rules.dealt_kings == "corner" and KING[centre[i]]:
            corner = next(j for j in KING_CORNER_ORDER if not piles[j])
            piles[corner] = (centre[i],)
            centre[i] = stock.pop(0)
        piles[i] = (centre[i],)
    return begin_turn(rules, players, first, 1, hands, tuple(piles), tuple(stock), None)


def setup(
    rules: Rules,
    *,
    piles: Mapping[str, Sequence[str | Card]],
    hands: Sequence[Sequence[str | Card]],
    stock: Sequence[str | Card],
    to_play: int = 0,
) -> State:
    """An explicit position at the start of ``to_play``'s turn (turn 1).

    ``piles`` maps pile names to cards head first (missing names are empty); under
    draw-first the first card of ``stock`` goes into ``to_play``'s hand at once. Cards the
    position does not mention are out of play. Raises `StateError` for an impossible
    position. A position with an empty hand is already over; one that is blocked with an
    empty stock is over as well (KC-20 is checked at the start of every turn).
    """
    players = len(hands)
    _check_players(players)
    hs = tuple(tuple(card_codes(h, f"hand {i}")) for i, h in enumerate(hands))
    ps = piles_from_names(piles)
    st = tuple(card_codes(stock, "stock"))
    check_position(hs, ps, st)
    if not isinstance(to_play, int) or not 0 <= to_play < players:
        raise StateError(f"to_play must be a seat 0-{players - 1}, got {to_play!r}")
    if any(not h for h in hs):
        return State(rules, players, to_play, 1, hs, ps, st, (), WENT_OUT, None)
    return begin_turn(rules, players, to_play, 1, hs, ps, st, None)


def from_view(
    view: Mapping[str, Any],
    others: Mapping[int, Sequence[str | Card]],
    stock: Sequence[str | Card],
) -> State:
    """A full state consistent with ``view`` (see `view`): the viewer's hand and the piles
    from the view, each other seat's hand from ``others`` and the stock from ``stock``
    (sizes must match the view). For computer players that sample the hidden cards. The
    result has no undo history; the draw of the current turn is already in the hands.
    """
    try:
        rules = Rules.from_dict(view["rules"])
        players = int(view["players"])
        seat = int(view["seat"])
        sizes = [int(n) for n in view["hand_sizes"]]
        hand_lists: list[Sequence[str | Card]] = []
        for i in range(players):
            hand_lists.append(view["hand"] if i == seat else others[i])
        piles = piles_from_names(view["piles"])
        to_play, turn = int(view["to_play"]), int(view["turn"])
        stock_count = int(view["stock_count"])
    except (KeyError, TypeError, ValueError) as e:
        if isinstance(e, StateError):
            raise
        raise StateError(f"not a Kings Corner view or a hand is missing: {e!r}") from None
    hands = tuple(tuple(card_codes(h, f"hand {i}")) for i, h in enumerate(hand_lists))
    st = tuple(card_codes(stock, "stock"))
    for i, h in enumerate(hands):
        if len(h) != sizes[i]:
            raise StateError(f"hand {i} has {len(h)} cards, the view says {sizes[i]}")
    if len(st) != stock_count:
        raise StateError(f"stock has {len(st)} cards, the view says {stock_count}")
    check_position(hands, piles, st)
    outcome = RUNNING
    if view.get("is_over"):
        outcome = WENT_OUT if any(not h for h in hands) else BLOCKED
    drawn = None
    if view.get("last_draw") is not None:
        drawn = (seat, card_codes([view["last_draw"]], "last_draw")[0])
    return State(rules, players, to_play, turn, hands, piles, st, (), outcome, drawn)


def _check_players(players: int) -> None:
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise StateError(f"Kings Corner needs 2-4 players, got {players!r}")


def redeal_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same round with the cards hidden from ``seat`` (the other hands and the stock)
    dealt again at random into the same places and sizes: a state ``seat`` cannot tell from
    ``state``. The undo history and the last draw follow the cards, so undo still returns
    to a consistent position. Once the round is over the penalties are public, so Kings are
    then redealt among the places Kings held (a hand's penalty stays the same)."""
    if not isinstance(seat, int) or not 0 <= seat < state.players:
        raise StateError(f"seat must be 0-{state.players - 1}, got {seat!r}")
    hidden = [c for i, h in enumerate(state._hands) if i != seat for c in h]
    hidden += state._stock
    groups = [[c for c in hidden if KING[c]], [c for c in hidden if not KING[c]]]
    if not state.is_over:
        groups = [hidden]
    mapping: dict[int, int] = {}
    for group in groups:
        shuffled = group[:]
        rng.shuffle(shuffled)
        mapping.update(zip(group, shuffled, strict=True))

    def redealt(cards: Hand) -> Hand:
        return tuple(mapping.get(c, c) for c in cards)

    mover = state._to_play
    hands = tuple(h if i == seat else redealt(h) for i, h in enumerate(state._hands))
    # Piles hold no hidden card, so only the mover's hands in the undo history change.
    undo = state._undo if mover == seat else tuple((redealt(h), p) for h, p in state._undo)
    drawn = state._drawn
    if drawn is not None and drawn[0] != seat:
        drawn = (drawn[0], mapping.get(drawn[1], drawn[1]))
    return State(
        state._rules,
        state._players,
        mover,
        state._turn,
        hands,
        state._piles,
        redealt(state._stock),
        undo,
        state._outcome,
        drawn,
    )
