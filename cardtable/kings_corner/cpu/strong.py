"""The strong player: searches every sequence of its turn and scores where each one ends.

From a position it explores, depth first, every play and pile move (Kings and their
corners, the order of plays, pile moves that open a centre slot or a corner), merging
positions reached twice (also those that differ only by which centre slot or corner holds
what), and collects each position where the turn may end. A sequence that empties the hand
wins on the spot and is taken at once. Every end is scored by `evaluate.evaluate`; the best
one (ties broken by the position itself, so the choice never depends on search order) is the
plan.

A decision is a function of the view alone (DESIGN: "the same view gives the same choice in
any process"). The view's ``turn_start`` is the board and our hand when this turn began
(after its draw); everything the model uses (the unseen cards, the other hands' sizes, the
stock count, the turn number, the board the previous player left) stays the same through
the turn. So each call plans the whole turn from the turn start, then walks that plan to
the current position: when the current position lies on it, the plan's next move is played.
A position off the plan (a person's turn handed over part way, say) is planned afresh from
where it stands, with the same model. Nothing is remembered between calls except a bounded
cache of plans keyed by every argument a plan depends on, which saves time and never
changes a choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from cardtable.kings_corner.engine import move_codes
from cardtable.kings_corner.moves import END_CODE, Move, by_code
from cardtable.kings_corner.position import Hand, Piles
from cardtable.kings_corner.rules import Rules
from cardtable.kings_corner.state import State
from cardtable.kings_corner.view import view

from .evaluate import DEFAULT, Model, Weights, evaluate, model_for, oracle_model
from .fast import apply, canonical
from .sampling import hand_codes, pile_codes, turn_start_codes, unseen_cards

NODE_CAP = 500  # positions explored per turn at most (the rest of the tree is cut)
PLAN_CACHE = 512  # plans kept (a plan is a short tuple of move codes)

Line = tuple[int, ...]


def plan(
    hand: Hand,
    piles: Piles,
    model: Model,
    node_cap: int = NODE_CAP,
    start_size: int | None = None,
) -> list[int]:
    """The best sequence of move codes for this turn from ``(hand, piles)``, ending with
    ``END_CODE`` (or with the play that empties the hand). ``start_size`` is how many cards
    the hand held when the turn began (default: ``len(hand)``): an end still holding that
    many sheds nothing this turn and costs ``model.stall``."""
    pm, kf = model.pile_moves, model.kings_first
    stalled = len(hand) if start_size is None else start_size
    start_key = canonical(hand, piles)
    parent: dict[Any, tuple[Any, int] | None] = {start_key: None}
    stack: list[tuple[Hand, Piles, Any]] = [(hand, piles, start_key)]
    ends: list[tuple[Hand, Piles, Any]] = []
    while stack:
        h, p, key = stack.pop()
        ms = move_codes(h, p, pm, kf)
        if ms[-1] == END_CODE:
            ends.append((h, p, key))
        for m in reversed(ms):  # the stack explores the engine's first moves first
            if m == END_CODE:
                continue
            nh, np_ = apply(h, p, m)
            nkey = canonical(nh, np_)
            if nkey in parent:
                continue
            parent[nkey] = (key, m)
            if not nh:
                return _path(parent, nkey)
            if len(parent) < node_cap:
                stack.append((nh, np_, nkey))
    best: tuple[float, Any] | None = None
    for h, p, key in ends:
        v = evaluate(h, p, model)
        if len(h) >= stalled:
            v -= model.stall
        if best is None or v > best[0] or (v == best[0] and key < best[1]):
            best = (v, key)
    if best is None:  # cannot happen: a legal end always exists once Kings are placed
        raise RuntimeError("no end of turn found")
    return [*_path(parent, best[1]), END_CODE]


def _path(parent: dict[Any, tuple[Any, int] | None], key: Any) -> list[int]:
    out: list[int] = []
    link = parent[key]
    while link is not None:
        key, m = link
        out.append(m)
        link = parent[key]
    out.reverse()
    return out


def next_on(line: Line, hand: Hand, piles: Piles, at_hand: Hand, at_piles: Piles) -> int | None:
    """The move ``line`` (played from ``(hand, piles)``) makes at ``(at_hand, at_piles)``, or
    None when that position is not on it. A plan never passes one position twice (the
    search merges repeated positions), so the answer is unique."""
    h, p = hand, piles
    for m in line:
        if h == at_hand and p == at_piles:
            return m
        if m == END_CODE:
            break
        h, p = apply(h, p, m)
    return None


def choose(view: Mapping[str, Any], weights: Weights = DEFAULT) -> Move:
    """The strong player's move for the seat whose ``view`` this is (its turn): a function
    of the view alone."""
    rules = Rules.from_dict(view["rules"])
    hand = hand_codes(view)
    piles = pile_codes(view)
    start = turn_start_codes(view)
    # Without a turn start (a view from before it existed) the current position stands in.
    start_hand, start_piles = start if start is not None else (hand, piles)
    seat = int(view["seat"])
    sizes = [int(n) for n in view["hand_sizes"]]
    sizes[seat] = len(start_hand)  # our own size changes during the turn; the model skips it
    args = (
        rules,
        seat,
        int(view["turn"]),
        tuple(sizes),
        int(view["stock_count"]),
        unseen_cards(view),
        start_piles,
        weights,
    )
    code = next_on(_line(*args, start_hand, start_piles), start_hand, start_piles, hand, piles)
    if code is None:  # not on the plan: plan from here, with the same model
        code = _line(*args, hand, piles)[0]
    return by_code(code)


@lru_cache(maxsize=PLAN_CACHE)
def _line(
    rules: Rules,
    seat: int,
    turn: int,
    sizes: tuple[int, ...],
    stock: int,
    unseen: tuple[int, ...],
    start_piles: Piles,
    weights: Weights,
    hand: Hand,
    piles: Piles,
) -> Line:
    """The strong plan from ``(hand, piles)`` in a turn that began on ``start_piles`` with
    ``sizes[seat]`` cards in our hand; a pure function of its arguments (so caching it
    never changes a choice)."""
    others = tuple(n for i, n in enumerate(sizes) if i != seat)
    model = model_for(
        rules_draw_last=rules.draw == "last",
        pile_moves=rules.pile_moves,
        kings_first=rules.kings == "first",
        seat=seat,
        sizes=list(sizes),
        stock_count=stock,
        unseen=unseen,
        seed=f"kc-strong|{seat}|{turn}|{others}|{stock}|{unseen}",
        left=start_piles,
        weights=weights,
    )
    model.stall = stall_penalty(stock, turn)
    return tuple(plan(hand, piles, model, start_size=sizes[seat]))


def stall_penalty(stock: int, turn: int) -> float:
    """Cost of a turn that sheds nothing once the stock is empty, growing with the turn
    number: passing with plays in hand never blocks the round (KC-20), so two players who
    both wait would play forever. Both facts stay the same through a turn, so every call
    of the turn sees the same cost."""
    if stock:
        return 0.0
    return 0.5 + 0.4 * max(0, turn - 30)


def choose_oracle(state: State, weights: Weights = DEFAULT) -> Move:
    """Strong search with perfect knowledge of every hand and the stock (benchmarks only).
    Stateless like `choose`: it plans from the turn start and follows the plan."""
    seat = state.to_play
    v = view(state, seat)
    hand = hand_codes(v)
    piles = pile_codes(v)
    start = turn_start_codes(v)
    start_hand, start_piles = start if start is not None else (hand, piles)
    hands = tuple(tuple(c.index for c in h) for h in state.hands)
    hands = (*hands[:seat], start_hand, *hands[seat + 1 :])  # the model skips our own hand
    stock = tuple(c.index for c in state.stock)
    args = (state.rules, seat, state.turn, hands, stock, weights)
    code = next_on(
        _oracle_line(*args, start_hand, start_piles), start_hand, start_piles, hand, piles
    )
    if code is None:
        code = _oracle_line(*args, hand, piles)[0]
    return by_code(code)


@lru_cache(maxsize=PLAN_CACHE)
def _oracle_line(
    rules: Rules,
    seat: int,
    turn: int,
    hands: tuple[Hand, ...],
    stock: Hand,
    weights: Weights,
    hand: Hand,
    piles: Piles,
) -> Line:
    model = oracle_model(
        rules_draw_last=rules.draw == "last",
        pile_moves=rules.pile_moves,
        kings_first=rules.kings == "first",
        seat=seat,
        hands=hands,
        stock=stock,
        weights=weights,
    )
    model.stall = stall_penalty(len(stock), turn)
    return tuple(plan(hand, piles, model, start_size=len(hands[seat])))
