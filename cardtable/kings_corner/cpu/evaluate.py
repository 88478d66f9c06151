"""How the strong player scores the end of a turn (and the oracle, with perfect knowledge).

A `Model` holds what is fixed for the whole turn: the rules, who plays next and with how
many cards, and, for each opponent, the probability that it holds each card at its next
turn. For the strong player that probability comes only from the view: every unseen card
(in no pile and not in our hand) is equally likely to be in any hidden place, so an
opponent who will hold ``m`` cards holds each unseen card with probability ``m / unseen``.
The oracle's model puts probability 1 on the cards really held (and drawn).

The score of an end position (our hand, the piles) is in "cards":

- minus the cards we keep, minus a little more per King kept (penalty 10 if blocked);
- plus part of what we could shed next turn on this board (cards kept back still count,
  since a playable card held back is a play in reserve) and the chance our next draw fits;
- minus, for each opponent, what the board hands it: the cards it can expect to play on the
  tails (chains of one rank down, probability-weighted), the empty centre slots and the
  centre piles that can be moved away (each an empty slot for any card), weighted more the
  closer that opponent is to going out and the sooner it plays; and, when it will hold at
  most three cards, the chance it goes out (estimated on sampled hands).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from cardtable.kings_corner._tables import KING, ON
from cardtable.kings_corner.engine import move_codes
from cardtable.kings_corner.position import Hand, Piles

from .fast import ACCEPTS

OUT_MAX = 3  # estimate an opponent's chance of going out when it holds this many or fewer
SAMPLES = 24  # sampled hands per opponent for that estimate
FUTURE_DRAWS = (0.8, 0.6, 0.4, 0.3)  # oracle: weight of an opponent's 1st..4th later draw


@dataclass(frozen=True)
class Weights:
    king: float = 0.6  # extra cost of a King kept (beyond one card)
    reserve: float = 0.55  # value of a card we could still shed next turn on this board
    king_reserve: float = 0.75  # value of a King kept (always playable later)
    draw_fit: float = 0.3  # chance our next draw fits this board
    wild: float = 1.4  # an empty centre slot handed to an opponent (cards it can shed)
    movable: float = 0.7  # a centre pile an opponent can move away (a slot one step off)
    going_out: float = 6.0  # an opponent going out on this board
    close: float = 2.0  # extra weight on an opponent's openings: close / its hand size
    # Weight of what the board hands the next opponent, the one after, and the third. Tuned
    # by simulation: above 1 (more careful than "a card for a card") wins more, heads-up
    # and at four players, against greedy.
    later: tuple[float, ...] = (2.2, 2.5, 2.5)
    passed: float = 0.2  # relative chance the previous player kept a card it could place


DEFAULT = Weights()


@dataclass
class Opponent:
    size: int  # cards it holds now
    cards: int  # cards it will hold when it plays (a draw-first draw included)
    prob: list[float]  # prob[c]: chance it holds card c when it plays
    samples: list[Hand]  # hands it may hold (only when cards <= OUT_MAX)
    chain: list[float] = field(default_factory=list)  # chain[t]: expected plays on tail t
    wild: float = 0.0  # expected plays through one empty centre slot


@dataclass
class Model:
    pile_moves: bool
    kings_first: bool
    opponents: list[Opponent]
    my_draw: list[tuple[int, float]]  # our next draw: (card, probability)
    weights: Weights = DEFAULT
    draw_prob: list[float] = field(default_factory=lambda: [0.0] * 52)
    draw_mass: float = 0.0  # total chance of a next draw
    draw_kings: float = 0.0  # chance that draw is a King (it always has a place)
    stall: float = 0.0  # subtracted from ends that shed nothing (see strong.stall_penalty)
    _out_cache: dict[Any, float] = field(default_factory=dict)

    def prepare(self) -> None:
        for c, p in self.my_draw:
            self.draw_prob[c] += p
            self.draw_mass += p
            if KING[c]:
                self.draw_kings += p
        for opp in self.opponents:
            opp.chain = _chains(opp.prob)
            nk = [(c, p) for c, p in enumerate(opp.prob) if p > 0 and not KING[c]]
            if nk:
                none = 1.0
                for _c, p in nk:
                    none *= max(0.0, 1.0 - p)
                mass = sum(p for _c, p in nk)
                best = sum(p * opp.chain[c] for c, p in nk) / mass
                opp.wild = (1.0 - none) * (1.0 + 1.5 * best)


def _chains(prob: list[float]) -> list[float]:
    """chain[t]: expected number of cards an opponent plays in a run starting on tail t."""
    d1 = [sum(prob[a] for a in ACCEPTS[t]) for t in range(52)]
    d2 = [sum(prob[a] * (1.0 + d1[a]) for a in ACCEPTS[t]) for t in range(52)]
    return [sum(prob[a] * (1.0 + d2[a]) for a in ACCEPTS[t]) for t in range(52)]


def fits_board(c: int, piles: Piles) -> bool:
    """Whether card ``c`` could be placed on this board (a tail, an empty slot or corner):
    the engine's generator lists a play for it besides "end"."""
    return len(move_codes((c,), piles, False, False)) > 1


def model_for(
    *,
    rules_draw_last: bool,
    pile_moves: bool,
    kings_first: bool,
    seat: int,
    sizes: list[int],
    stock_count: int,
    unseen: tuple[int, ...],
    seed: str,
    left: Piles | None = None,
    weights: Weights = DEFAULT,
) -> Model:
    """The strong player's model: hidden cards spread over the unseen cards.

    ``left`` is the board the previous player ended its turn on (our turn-start board),
    when known: a card it could have placed there is less likely to be in its hand
    (weight ``weights.passed`` instead of 1), except the card it drew after ending.
    """
    players = len(sizes)
    total = len(unseen)
    rng = random.Random(seed)
    prev = (seat - 1) % players
    opps = []
    for k in range(1, players):
        j = (seat + k) % players
        draws = 1 if (not rules_draw_last and stock_count >= k) else 0
        n = sizes[j]
        m = n + draws
        weight = [1.0] * 52
        if j == prev and left is not None and total:
            for c in unseen:
                if fits_board(c, left):
                    weight[c] = weights.passed
        prob = _spread(unseen, n, weight, free=1 if rules_draw_last and j == prev else 0)
        if draws:
            rest = total - n
            for c in unseen:
                prob[c] += (1.0 - prob[c]) * (1.0 / rest if rest > 0 else 0.0)
        samples = (
            [_weighted_sample(rng, unseen, prob, m) for _ in range(SAMPLES)] if m <= OUT_MAX else []
        )
        opps.append(Opponent(n, m, prob, samples))
    mine = stock_count >= 1 if rules_draw_last else stock_count >= players
    my_draw = [(c, 1.0 / total) for c in unseen] if mine and total else []
    model = Model(pile_moves, kings_first, opps, my_draw, weights)
    model.prepare()
    return model


def _spread(unseen: tuple[int, ...], n: int, weight: list[float], free: int) -> list[float]:
    """Chance of each unseen card being among ``n`` held cards: ``n - free`` of them drawn
    in proportion to ``weight``, ``free`` of them uniformly (clipped at 1)."""
    prob = [0.0] * 52
    if not unseen or n <= 0:
        return prob
    free = min(free, n)
    wsum = sum(weight[c] for c in unseen)
    uni = free / len(unseen)
    for c in unseen:
        prob[c] = min(1.0, (n - free) * weight[c] / wsum + uni)
    return prob


def _weighted_sample(
    rng: random.Random, unseen: tuple[int, ...], prob: list[float], m: int
) -> Hand:
    """``m`` distinct cards, each drawn with chance roughly proportional to ``prob``."""
    keyed = sorted(unseen, key=lambda c: -(rng.random() ** (1.0 / max(prob[c], 1e-9))))
    return tuple(keyed[:m])


def oracle_model(
    *,
    rules_draw_last: bool,
    pile_moves: bool,
    kings_first: bool,
    seat: int,
    hands: tuple[Hand, ...],
    stock: Hand,
    weights: Weights = DEFAULT,
) -> Model:
    """The oracle's model: it knows every hand and the order of the stock."""
    players = len(hands)
    opps = []
    for k in range(1, players):
        j = (seat + k) % players
        held = tuple(hands[j])
        first = k - 1 if not rules_draw_last else k  # index of its next draw in the stock
        if not rules_draw_last and len(stock) > first:
            held = (*held, stock[first])
            first += players
        prob = [0.0] * 52
        for c in held:
            prob[c] = 1.0
        # The cards it will draw on later turns: an opening left now may still serve them.
        for i, weight in enumerate(FUTURE_DRAWS):
            at = first + i * players
            if at < len(stock):
                prob[stock[at]] = max(prob[stock[at]], weight)
        samples = [held] if len(held) <= OUT_MAX else []
        opps.append(Opponent(len(hands[j]), len(held), prob, samples))
    idx = 0 if rules_draw_last else players - 1
    my_draw = [(stock[idx], 1.0)] if len(stock) > idx else []
    model = Model(pile_moves, kings_first, opps, my_draw, weights)
    model.prepare()
    return model


def can_go_out(cards: Hand, tails: tuple[int, ...], empty_centre: int, empty_corner: int) -> bool:
    """Whether ``cards`` can all be played on a board with these tails and empty places
    (pile moves aside: callers count movable piles as empty centre slots)."""
    if not cards:
        return True
    for i, c in enumerate(cards):
        rest = cards[:i] + cards[i + 1 :]
        if KING[c]:
            if empty_corner and can_go_out(rest, (*tails, c), empty_centre, empty_corner - 1):
                return True
            continue
        on = ON[c]
        for j, t in enumerate(tails):
            if on[t] and can_go_out(
                rest, (*tails[:j], c, *tails[j + 1 :]), empty_centre, empty_corner
            ):
                return True
        if empty_centre and can_go_out(rest, (*tails, c), empty_centre - 1, empty_corner):
            return True
    return False


def evaluate(hand: Hand, piles: Piles, model: Model) -> float:
    """Score of ending the turn with ``hand`` on ``piles`` (higher is better)."""
    if not hand:
        return 1e9
    w = model.weights
    tails: list[int] = []
    empty_centre = empty_corner = 0
    for i in (0, 1, 2, 3):
        p = piles[i]
        if p:
            tails.append(p[-1])
        else:
            empty_centre += 1
    for i in (4, 5, 6, 7):
        p = piles[i]
        if p:
            tails.append(p[-1])
        else:
            empty_corner += 1
    acc: set[int] = set()
    for t in tails:
        acc.update(ACCEPTS[t])
    movable = 0
    if model.pile_moves:
        for i in (0, 1, 2, 3):
            p = piles[i]
            if p and ((KING[p[0]] and empty_corner) or p[0] in acc):
                movable += 1
    # What we could shed next turn on this board: cards that fit a tail, cards that fit
    # on those, and one card per empty centre slot.
    kings = 0
    fit1: list[int] = []
    others: list[int] = []
    for c in hand:
        if KING[c]:
            kings += 1
        elif c in acc:
            fit1.append(c)
        else:
            others.append(c)
    shed = len(fit1)
    if others:
        acc2: set[int] = set()
        for c in fit1:
            acc2.update(ACCEPTS[c])
        rest = 0
        for c in others:
            if c in acc2:
                shed += 1
            else:
                rest += 1
        shed += min(empty_centre, rest)
    score = -len(hand) - w.king * kings + w.reserve * shed + w.king_reserve * kings
    if model.my_draw:
        if empty_centre:
            fit = model.draw_mass
        else:
            pd = model.draw_prob
            fit = model.draw_kings + sum(pd[a] for a in acc)
        score += w.draw_fit * fit
    later = w.later
    slots = empty_centre + w.movable * movable
    for k, opp in enumerate(model.opponents):
        chain = opp.chain
        gain = 0.0
        for t in tails:
            gain += chain[t]
        if slots:
            gain += opp.wild * (slots if slots <= 1 else 1 + 0.7 * (slots - 1))
        weight = later[min(k, len(later) - 1)] * (1.0 + w.close / max(1, opp.size))
        if opp.samples:
            gain += w.going_out * _out_chance(
                model, k, opp, tails, empty_centre + movable, empty_corner
            )
        score -= weight * gain
    return score


def _out_chance(
    model: Model, k: int, opp: Opponent, tails: list[int], empty_centre: int, empty_corner: int
) -> float:
    key = (k, tuple(sorted(tails)), empty_centre, empty_corner)
    hit = model._out_cache.get(key)
    if hit is not None:
        return hit
    t = tuple(tails)
    outs = sum(1 for h in opp.samples if can_go_out(h, t, empty_centre, empty_corner))
    value = outs / len(opp.samples)
    model._out_cache[key] = value
    return value
