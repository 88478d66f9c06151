"""Play-outs for the look-past player: one determinised round played to its end, fast.

A play-out starts where a seat ends its turn (its hand and the piles after its last play)
with every hidden card placed (the other hands and the stock's order, a sample drawn by
`lookahead`). It ends that turn exactly as the engine does (`engine._end_turn` /
`engine.begin_turn`: the draw-last draw and its King going to a corner, the next seat's
draw-first draw, the blocked check of KC-20), then lets every seat play a cheap policy on
raw tuples until a hand empties, the round blocks, or ``turn_cap`` turns have passed (then
it is settled like a blocked round: lowest penalty wins, ties share).

Policies (each a step function ``(hand, piles, pile_moves, kings_first) -> move code``,
moves from the engine's own generator, `engine.move_codes`):

- ``greedy``: the last card if it fits; a King into a corner; the highest card that fits a
  tail; the highest card into an empty centre slot; a pile move; else end the turn.
- ``tails``: as greedy, but never into an empty centre slot unless it holds no other play
  and a card in hand builds on the card it lays there (a little more careful than greedy).
"""

from __future__ import annotations

from collections.abc import Callable

from cardtable.kings_corner._tables import KING, KING_CORNER_ORDER, PENALTY, RANK
from cardtable.kings_corner.engine import move_codes
from cardtable.kings_corner.moves import END_CODE, PLACE_BASE, SHIFT_BASE
from cardtable.kings_corner.position import Hand, Piles, is_blocked

from .evaluate import model_for
from .fast import apply
from .strong import plan, stall_penalty

Step = Callable[[Hand, Piles, bool, bool], int]


def _scan(hand: Hand, piles: Piles, pm: bool, kf: bool, careful: bool) -> tuple[int, ...]:
    """What both policies look at: a move to make at once (a last card, a King; else -1), the
    highest card onto a centre pile, the highest card into an empty slot (``careful``: only
    one a card in hand can follow), the first pile shift, and the end of the turn."""
    ms = move_codes(hand, piles, pm, kf)
    best = best_rank = slot = slot_rank = shift = -1
    for m in ms:
        if m == END_CODE:
            continue
        if m >= SHIFT_BASE:
            if shift < 0:
                shift = m
            continue
        card, pile = divmod(m - PLACE_BASE, 8)
        if len(hand) == 1 or KING[card]:
            return m, best, slot, shift, ms[-1]
        r = RANK[card]
        if piles[pile]:
            if r > best_rank:
                best, best_rank = m, r
        elif r > slot_rank and (not careful or any(RANK[c] + 1 == r for c in hand)):
            slot, slot_rank = m, r
    return -1, best, slot, shift, ms[-1]


def greedy_step(hand: Hand, piles: Piles, pm: bool, kf: bool) -> int:
    """The greedy policy's next move code (see the module docstring): at once, onto a pile,
    into a slot, a shift, else the end (under kings-first a King was returned already)."""
    for m in _scan(hand, piles, pm, kf, False):
        if m >= 0:
            return m
    raise AssertionError("a turn always has its end")  # pragma: no cover


def tails_step(hand: Hand, piles: Piles, pm: bool, kf: bool) -> int:
    """Greedy on tails, careful with empty centre slots (see the module docstring): at once,
    onto a pile, a shift before a slot, else the end."""
    now, best, slot, shift, end = _scan(hand, piles, pm, kf, True)
    for m in (now, best, shift, slot):
        if m >= 0:
            return m
    return end


POLICIES: dict[str, Step] = {"greedy": greedy_step, "tails": tails_step}


def strong_turn(
    hands: list[Hand],
    piles: Piles,
    stock_left: int,
    mover: int,
    turn: int,
    draw_last: bool,
    pile_moves: bool,
    kings_first: bool,
) -> list[int]:
    """The strong player's whole turn for ``mover`` in a play-out, planned from what its
    view would show (its hand, the piles, the hand sizes, the stock count), as
    `strong.choose` plans it."""
    hand = tuple(sorted(hands[mover]))
    seen = set(hand)
    for p in piles:
        seen.update(p)
    unseen = tuple(c for c in range(52) if c not in seen)
    sizes = [len(h) for h in hands]
    others = tuple(n for i, n in enumerate(sizes) if i != mover)
    model = model_for(
        rules_draw_last=draw_last,
        pile_moves=pile_moves,
        kings_first=kings_first,
        seat=mover,
        sizes=sizes,
        stock_count=stock_left,
        unseen=unseen,
        seed=f"kc-strong|{mover}|{turn}|{others}|{stock_left}|{unseen}",
        left=piles,
    )
    model.stall = stall_penalty(stock_left, turn)
    return plan(hand, piles, model, node_cap=SMART_NODE_CAP)


SMART_NODE_CAP = 200  # positions a play-out's strong turn searches at most

STEP_CAP = 200  # moves in one play-out turn at most (a policy bug, not a game situation)


def play_out(
    *,
    draw_last: bool,
    pile_moves: bool,
    kings_first: bool,
    hands: list[Hand],
    piles: Piles,
    stock: Hand,
    mover: int,
    me: int,
    step: Step,
    turn_cap: int,
    turn: int = 0,
    smart: int = 0,
) -> tuple[float, int, int]:
    """Play the round on from ``mover`` ending its turn on ``(hands, piles)`` with ``stock``
    to draw from; the first ``smart`` turns after it are played by the strong search
    (`strong_turn`; ``turn`` is the number of ``mover``'s turn), the rest by ``step``.
    Returns ``(share, penalty, turns)``: seat ``me``'s share of the win (1/k for k
    winners), its penalty at the end and how many turns were played."""
    players = len(hands)
    hands = list(hands)
    si = 0
    ns = len(stock)
    turns = 0
    while True:
        # End ``mover``'s turn: the draw-last draw (a King goes to the first empty corner).
        if draw_last and si < ns:
            card = stock[si]
            si += 1
            corner = -1
            if KING[card]:
                for i in KING_CORNER_ORDER:
                    if not piles[i]:
                        corner = i
                        break
            if corner >= 0:
                piles = (*piles[:corner], (card,), *piles[corner + 1 :])
            else:
                hands[mover] = hands[mover] + (card,)
        mover = (mover + 1) % players
        turns += 1
        if not draw_last and si < ns:
            hands[mover] = hands[mover] + (stock[si],)
            si += 1
        if si >= ns and is_blocked(tuple(hands), piles, pile_moves):
            return _settle(hands, me, turns)
        if turns > turn_cap:
            return _settle(hands, me, turns)
        hand = hands[mover]
        if turns <= smart:
            for m in strong_turn(
                hands, piles, ns - si, mover, turn + turns, draw_last, pile_moves, kings_first
            ):
                if m == END_CODE:
                    break
                hand, piles = apply(hand, piles, m)
            if not hand:
                if mover == me:
                    return 1.0, 0, turns
                return 0.0, sum(PENALTY[c] for c in hands[me]), turns
            hands[mover] = hand
            continue
        for _ in range(STEP_CAP):
            m = step(hand, piles, pile_moves, kings_first)
            if m == END_CODE:
                break
            hand, piles = apply(hand, piles, m)
            if not hand:
                if mover == me:
                    return 1.0, 0, turns
                return 0.0, sum(PENALTY[c] for c in hands[me]), turns
        hands[mover] = hand


def reply(
    *,
    draw_last: bool,
    pile_moves: bool,
    kings_first: bool,
    hands: list[Hand],
    piles: Piles,
    stock: Hand,
    mover: int,
    step: Step,
) -> tuple[int, bool]:
    """The next seat's reply to ``mover`` ending its turn on ``(hands, piles)``: how many
    cards it sheds in its turn played by ``step`` and whether it goes out (0 and False when
    the round blocks first)."""
    players = len(hands)
    hand = hands[mover]
    si = 0
    if draw_last and stock:
        card = stock[0]
        si = 1
        corner = -1
        if KING[card]:
            for i in KING_CORNER_ORDER:
                if not piles[i]:
                    corner = i
                    break
        if corner >= 0:
            piles = (*piles[:corner], (card,), *piles[corner + 1 :])
        else:
            hand = (*hand, card)
    nxt = (mover + 1) % players
    theirs = hands[nxt]
    if not draw_last and si < len(stock):
        theirs = (*theirs, stock[si])
        si += 1
    if si >= len(stock):
        now = [hand if i == mover else theirs if i == nxt else h for i, h in enumerate(hands)]
        if is_blocked(tuple(now), piles, pile_moves):
            return 0, False
    start = len(theirs)
    for _ in range(STEP_CAP):
        m = step(theirs, piles, pile_moves, kings_first)
        if m == END_CODE:
            break
        theirs, piles = apply(theirs, piles, m)
        if not theirs:
            return start, True
    return start - len(theirs), False


def _settle(hands: list[Hand], me: int, turns: int) -> tuple[float, int, int]:
    pens = [sum(PENALTY[c] for c in h) for h in hands]
    low = min(pens)
    winners = sum(1 for p in pens if p == low)
    share = 1.0 / winners if pens[me] == low else 0.0
    return share, pens[me], turns
