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

from cardtable.kings_corner._tables import CENTRE, CORNERS, KING, ON, RANK
from cardtable.kings_corner.state import Hand, Piles

from .fast import ACCEPTS

OUT_MAX = 3  # estimate an opponent's chance of going out when it holds this many or fewer
SAMPLES = 24  # sampled hands per opponent for that estimate


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
    later: tuple[float, ...] = (1.0, 0.55, 0.35)  # next opponent, the one after, ...


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
    draw_last: bool
    opponents: list[Opponent]
    my_draw: list[tuple[int, float]]  # our next draw: (card, probability)
    weights: Weights = DEFAULT
    _out_cache: dict[Any, float] = field(default_factory=dict)

    def prepare(self) -> None:
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
    weights: Weights = DEFAULT,
) -> Model:
    """The strong player's model: hidden cards spread evenly over the unseen cards."""
    players = len(sizes)
    total = len(unseen)
    rng = random.Random(seed)
    opps = []
    for k in range(1, players):
        j = (seat + k) % players
        draws = 1 if (not rules_draw_last and stock_count >= k) else 0
        m = sizes[j] + draws
        p = min(1.0, m / total) if total else 0.0
        prob = [0.0] * 52
        for c in unseen:
            prob[c] = p
        samples = [tuple(rng.sample(unseen, m)) for _ in range(SAMPLES)] if m <= OUT_MAX else []
        opps.append(Opponent(sizes[j], m, prob, samples))
    mine = stock_count >= 1 if rules_draw_last else stock_count >= players
    my_draw = [(c, 1.0 / total) for c in unseen] if mine and total else []
    model = Model(pile_moves, kings_first, rules_draw_last, opps, my_draw, weights)
    model.prepare()
    return model


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
        if not rules_draw_last and len(stock) >= k:
            held = (*held, stock[k - 1])
        prob = [0.0] * 52
        for c in held:
            prob[c] = 1.0
        samples = [held] if len(held) <= OUT_MAX else []
        opps.append(Opponent(len(hands[j]), len(held), prob, samples))
    idx = 0 if rules_draw_last else players - 1
    my_draw = [(stock[idx], 1.0)] if len(stock) > idx else []
    model = Model(pile_moves, kings_first, rules_draw_last, opps, my_draw, weights)
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


def _my_shed(hand: Hand, tails: list[int], empty_centre: int, empty_corner: int) -> tuple[int, int]:
    """How many non-King cards of ``hand`` we could shed on this board (greedy), and Kings."""
    rest = sorted((c for c in hand if not KING[c]), key=lambda c: -RANK[c])
    kings = len(hand) - len(rest)
    tails = list(tails)
    shed = 0
    progress = True
    while progress and rest:
        progress = False
        for c in rest:
            on = ON[c]
            for j, t in enumerate(tails):
                if on[t]:
                    tails[j] = c
                    rest.remove(c)
                    shed += 1
                    progress = True
                    break
            if progress:
                break
        if not progress and empty_centre:
            c = rest.pop(0)
            tails.append(c)
            empty_centre -= 1
            shed += 1
            progress = True
    return shed, kings


def evaluate(hand: Hand, piles: Piles, model: Model) -> float:
    """Score of ending the turn with ``hand`` on ``piles`` (higher is better)."""
    if not hand:
        return 1e9
    w = model.weights
    tails = [p[-1] for p in piles if p]
    empty_centre = sum(1 for i in CENTRE if not piles[i])
    empty_corner = sum(1 for i in CORNERS if not piles[i])
    movable = 0
    if model.pile_moves:
        for s in CENTRE:
            src = piles[s]
            if src:
                head = src[0]
                if KING[head]:
                    if empty_corner:
                        movable += 1
                else:
                    on = ON[head]
                    if any(on[t] for t in tails):
                        movable += 1
    shed, kings = _my_shed(hand, tails, empty_centre, empty_corner)
    score = -len(hand) - w.king * kings + w.reserve * shed + w.king_reserve * kings
    if model.my_draw:
        fit = 0.0
        for c, p in model.my_draw:
            if KING[c] or empty_centre:
                fit += p
            else:
                on = ON[c]
                if any(on[t] for t in tails):
                    fit += p
        score += w.draw_fit * fit
    later = w.later
    for k, opp in enumerate(model.opponents):
        chain = opp.chain
        gain = sum(chain[t] for t in tails)
        slots = empty_centre + w.movable * movable
        if slots:
            gain += opp.wild * (slots if slots <= 1 else 1 + 0.7 * (slots - 1))
        weight = later[min(k, len(later) - 1)] * (1.0 + w.close / max(1, opp.size))
        penalty = gain
        if opp.samples:
            penalty += w.going_out * _out_chance(
                model, k, opp, tails, empty_centre + movable, empty_corner
            )
        score -= weight * penalty
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
