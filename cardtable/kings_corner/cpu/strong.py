"""The strong player: searches every sequence of its turn and scores where each one ends.

From the position at hand it explores, depth first, every play and pile move (Kings and
their corners, the order of plays, pile moves that open a centre slot or a corner), merging
positions reached twice (also those that differ only by which centre slot or corner holds
what), and collects each position where the turn may end. A sequence that empties the hand
wins on the spot and is taken at once. Every end is scored by `evaluate.evaluate`; the best
one (ties broken by the position itself, so the choice never depends on search order) is the
plan, and its first move is played.

The player is deterministic given the view: the sampled hands used for "could the next
player go out" are drawn from a generator seeded with what stays the same through the whole
turn (the unseen cards, the seat, the turn number, the other hands' sizes and the stock
count), so calling it
again after each planned move follows the same plan. A small cache makes those calls cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardtable.kings_corner.moves import END_CODE, Move, by_code
from cardtable.kings_corner.rules import Rules
from cardtable.kings_corner.state import Hand, Piles, State

from .evaluate import DEFAULT, Model, Weights, evaluate, model_for, oracle_model
from .fast import apply, canonical, moves
from .sampling import hand_codes, pile_codes, unseen_cards

NODE_CAP = 500  # positions explored per turn at most (the rest of the tree is cut)
_CACHE_MAX = 20000

_plans: dict[Any, int] = {}
# The board at the start of each recent turn (what the previous player left), by context.
_starts: dict[Any, Piles] = {}


def plan(hand: Hand, piles: Piles, model: Model, node_cap: int = NODE_CAP) -> list[int]:
    """The best sequence of move codes for this turn, ending with ``END_CODE`` (or with the
    play that empties the hand)."""
    pm, kf = model.pile_moves, model.kings_first
    start_key = canonical(hand, piles)
    parent: dict[Any, tuple[Any, int] | None] = {start_key: None}
    stack: list[tuple[Hand, Piles, Any]] = [(hand, piles, start_key)]
    ends: list[tuple[Hand, Piles, Any]] = []
    while stack:
        h, p, key = stack.pop()
        ms = moves(h, p, pm, kf)
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
        if len(h) == len(hand):
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


def _follow(context: Any, hand: Hand, piles: Piles, line: list[int]) -> None:
    """Remember each step of a plan so the next calls along it answer at once."""
    if len(_plans) > _CACHE_MAX:
        _plans.clear()
        _starts.clear()
    h, p = hand, piles
    for m in line:
        _plans[(context, h, p)] = m
        if m == END_CODE:
            break
        h, p = apply(h, p, m)


def choose(view: Mapping[str, Any], weights: Weights = DEFAULT) -> Move:
    """The strong player's move for the seat whose ``view`` this is (its turn)."""
    rules = Rules.from_dict(view["rules"])
    hand = hand_codes(view)
    piles = pile_codes(view)
    unseen = unseen_cards(view)
    sizes = [int(n) for n in view["hand_sizes"]]
    seat = int(view["seat"])
    stock = int(view["stock_count"])
    turn = int(view["turn"])
    # Everything here stays the same through our turn (our own hand size does not).
    others = tuple(n for i, n in enumerate(sizes) if i != seat)
    context = ("view", rules, seat, turn, others, stock, unseen, weights)
    code = _plans.get((context, hand, piles))
    if code is None:
        if not view["can_undo"]:
            _starts[context] = piles
        seed = f"kc-strong|{seat}|{turn}|{others}|{stock}|{unseen}"
        model = model_for(
            rules_draw_last=rules.draw == "last",
            pile_moves=rules.pile_moves,
            kings_first=rules.kings == "first",
            seat=seat,
            sizes=sizes,
            stock_count=stock,
            unseen=unseen,
            seed=seed,
            left=_starts.get(context, piles),
            weights=weights,
        )
        model.stall = stall_penalty(stock, turn, bool(view["can_undo"]))
        line = plan(hand, piles, model)
        _follow(context, hand, piles, line)
        code = line[0]
    return by_code(code)


def stall_penalty(stock: int, turn: int, moved: bool) -> float:
    """Cost of a turn that sheds nothing once the stock is empty, growing with the turn
    number: passing with plays in hand never blocks the round (KC-20), so two players who
    both wait would play forever. Only at the start of a turn (``moved`` false), so a plan
    made then is not changed by calls along it."""
    if stock or moved:
        return 0.0
    return 0.5 + 0.4 * max(0, turn - 30)


def choose_oracle(state: State, weights: Weights = DEFAULT) -> Move:
    """Strong search with perfect knowledge of every hand and the stock (benchmarks only)."""
    rules = state.rules
    seat = state._to_play
    hand = tuple(sorted(state._hands[seat]))
    piles = state._piles
    others_now = tuple(h for i, h in enumerate(state._hands) if i != seat)
    context = ("oracle", rules, seat, state._turn, others_now, state._stock, weights)
    code = _plans.get((context, hand, piles))
    if code is None:
        model = oracle_model(
            rules_draw_last=rules.draw == "last",
            pile_moves=rules.pile_moves,
            kings_first=rules.kings == "first",
            seat=seat,
            hands=state._hands,
            stock=state._stock,
            weights=weights,
        )
        model.stall = stall_penalty(len(state._stock), state._turn, bool(state._undo))
        line = plan(hand, piles, model)
        _follow(context, hand, piles, line)
        code = line[0]
    return by_code(code)
