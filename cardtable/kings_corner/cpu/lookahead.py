"""The look-past player (issue 46), the strong level: the strong search's best few ends of
turn, each judged on sampled deals of the hidden cards.

1. **Shortlist.** The strong search (`strong`'s depth-first search over the turn, the same
   merging of positions and the same `evaluate` score and stall cost) lists every end of
   turn; the best ``shortlist`` of them, those within ``margin`` cards of the best score,
   are the candidates. A line that empties the hand is taken at once; a single candidate
   is taken as it is.
2. **Samples.** ``samples`` deals of the unseen cards (every card in neither our hand nor a
   pile) into the other hands (their sizes from the view) and the stock (its count from
   the view, its order random): states our view cannot tell apart, as `ENGINE.resample`
   deals them. The generator is seeded by the facts of the view that stay the same through
   the turn, so the same view gives the same samples in any process. Every candidate meets
   the same samples.
3. **Judging** (``mode``):
   - ``"reply"`` (the strong level, `STRONG`): the next seat's turn is played on each
     sample (`rollout.reply`, a greedy turn); the candidate's score is strong's, with its
     estimate of what the next seat sheds replaced by the sampled mean (cards shed, plus
     `Weights.going_out` for going out, times strong's weight for that seat);
   - ``"playout"``: every seat plays on to the end of the round (`rollout.play_out`, a
     cheap policy; ``smart`` turns of the strong search first), and the best mean of
     ``share - penalty_weight * penalty`` wins (``confidence``: leave strong's first
     choice only for a lead of that many standard errors; ``late``: only when another hand
     is small). Measured weaker than strong heads-up; kept for the benchmark.
   Equal scores go to the strong search's order.

Like strong, a decision is a function of the view alone: each call plans the whole turn
from the view's turn start and walks that plan to the current position (a position off the
plan is planned afresh from where it stands, with the same samples). A bounded cache of
plans keyed by every argument saves the work on the later calls of a turn and never
changes a choice. The work per turn is a count: one search (at most `strong.NODE_CAP`
positions) and ``shortlist * samples`` replies or play-outs (of at most ``turn_cap``
turns), never a clock, so the choice never depends on the machine's load.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from cardtable.kings_corner.engine import move_codes
from cardtable.kings_corner.moves import END_CODE, Move, by_code
from cardtable.kings_corner.position import Hand, Piles
from cardtable.kings_corner.rules import Rules

from .evaluate import DEFAULT as WEIGHTS
from .evaluate import Model, evaluate, model_for
from .fast import apply, canonical
from .rollout import POLICIES, play_out, reply
from .sampling import hand_codes, pile_codes, turn_start_codes, unseen_cards
from .strong import NODE_CAP, PLAN_CACHE, next_on, stall_penalty

Line = tuple[int, ...]


@dataclass(frozen=True)
class Settings:
    shortlist: int = 4  # ends of turn played out at most
    samples: int = 16  # deals of the hidden cards
    policy: str = "greedy"  # play-out policy (`rollout.POLICIES`)
    turn_cap: int = 60  # play-out turns at most (then settled on penalties)
    margin: float = 4.0  # ends scored further than this below the best are not candidates
    penalty_weight: float = 0.02  # per penalty point, against a whole win
    confidence: float = 0.0  # leave strong's end only for a lead of this many standard errors
    late: int = 52  # play out only when another hand holds at most this many cards
    mode: str = "playout"  # "playout" to the round's end, or "reply": the next seat's turn only
    reply_scale: float = 1.0  # reply mode: weight of a card the next seat sheds, times strong's
    smart: int = 0  # play-out turns played by the strong search before the policy takes over


# The strong level (`choose_move(view, "strong", rng)`): the reply mode, measured best (see
# docs/kings-corner-engine.md); also the benchmark's default.
STRONG = Settings(mode="reply", shortlist=8, samples=64, margin=100.0, reply_scale=1.5)
DEFAULT = STRONG


@dataclass(frozen=True)
class End:
    score: float
    key: Any
    line: Line  # move codes from the search's start, ending with END_CODE
    hand: Hand
    piles: Piles


def ends(hand: Hand, piles: Piles, model: Model, start_size: int) -> list[End]:
    """Every end of turn the strong search finds from ``(hand, piles)``, best first (ties by
    the position, as strong breaks them), or a single end when a line empties the hand."""
    pm, kf = model.pile_moves, model.kings_first
    start_key = canonical(hand, piles)
    parent: dict[Any, tuple[Any, int] | None] = {start_key: None}
    stack: list[tuple[Hand, Piles, Any]] = [(hand, piles, start_key)]
    found: list[tuple[Hand, Piles, Any]] = []
    while stack:
        h, p, key = stack.pop()
        ms = move_codes(h, p, pm, kf)
        if ms[-1] == END_CODE:
            found.append((h, p, key))
        for m in reversed(ms):
            if m == END_CODE:
                continue
            nh, np_ = apply(h, p, m)
            nkey = canonical(nh, np_)
            if nkey in parent:
                continue
            parent[nkey] = (key, m)
            if not nh:
                return [End(1e9, nkey, _path(parent, nkey), nh, np_)]
            if len(parent) < NODE_CAP:
                stack.append((nh, np_, nkey))
    out = []
    for h, p, key in found:
        v = evaluate(h, p, model)
        if len(h) >= start_size:
            v -= model.stall
        out.append(End(v, key, (*_path(parent, key), END_CODE), h, p))
    out.sort(key=lambda e: (-e.score, e.key))
    return out


def _path(parent: dict[Any, tuple[Any, int] | None], key: Any) -> Line:
    out: list[int] = []
    link = parent[key]
    while link is not None:
        key, m = link
        out.append(m)
        link = parent[key]
    out.reverse()
    return tuple(out)


def choose(view: Mapping[str, Any], settings: Settings = DEFAULT) -> Move:
    """The look-past player's move for the seat whose ``view`` this is (its turn): a
    function of the view (and ``settings``) alone."""
    rules = Rules.from_dict(view["rules"])
    hand = hand_codes(view)
    piles = pile_codes(view)
    start = turn_start_codes(view)
    start_hand, start_piles = start if start is not None else (hand, piles)
    seat = int(view["seat"])
    sizes = [int(n) for n in view["hand_sizes"]]
    sizes[seat] = len(start_hand)
    args = (
        rules,
        seat,
        int(view["turn"]),
        tuple(sizes),
        int(view["stock_count"]),
        unseen_cards(view),
        start_piles,
        settings,
    )
    code = next_on(_line(*args, start_hand, start_piles), start_hand, start_piles, hand, piles)
    if code is None:
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
    settings: Settings,
    hand: Hand,
    piles: Piles,
) -> Line:
    """The look-past plan from ``(hand, piles)``: a pure function of its arguments."""
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
        weights=WEIGHTS,
    )
    model.stall = stall_penalty(stock, turn)
    found = ends(hand, piles, model, sizes[seat])
    best = found[0].score
    cands = [e for e in found[: settings.shortlist] if e.score >= best - settings.margin]
    if len(cands) == 1 or min(others) > settings.late:
        return cands[0].line
    if settings.mode == "reply":
        return cands[_by_reply(cands, model, rules, seat, sizes, stock, unseen, settings)].line
    rng = random.Random(f"kc-look|{seat}|{turn}|{sizes}|{stock}|{unseen}|{start_piles}")
    results = [[0.0] * settings.samples for _ in cands]
    step = POLICIES[settings.policy]
    for k in range(settings.samples):
        hands, deck = deal_hidden(rng, unseen, sizes, seat, stock)
        for i, e in enumerate(cands):
            hands[seat] = e.hand
            share, pen, _turns = play_out(
                draw_last=rules.draw == "last",
                pile_moves=rules.pile_moves,
                kings_first=rules.kings == "first",
                hands=hands,
                piles=e.piles,
                stock=deck,
                mover=seat,
                me=seat,
                step=step,
                turn_cap=settings.turn_cap,
                turn=turn,
                smart=settings.smart,
            )
            results[i][k] = share - settings.penalty_weight * pen
    return cands[pick(results, settings.confidence)].line


def _by_reply(
    cands: list[End],
    model: Model,
    rules: Rules,
    seat: int,
    sizes: tuple[int, ...],
    stock: int,
    unseen: tuple[int, ...],
    settings: Settings,
) -> int:
    """Reply mode: strong's score of each end with its estimate of what the next seat
    sheds replaced by that seat's sampled reply (cards shed, going out)."""
    # evaluate() adds one term per opponent: keep ours and the later opponents' terms, and
    # replace the next seat's estimate by its sampled reply.
    own = replace(model, opponents=[], _out_cache={})
    first = replace(model, opponents=model.opponents[:1], _out_cache={})
    nxt = model.opponents[0]
    w = model.weights
    weight = settings.reply_scale * w.later[0] * (1.0 + w.close / max(1, nxt.size))
    rng = random.Random(f"kc-look|{seat}|{sizes}|{stock}|{unseen}|{len(cands)}")
    shed = [0.0] * len(cands)
    for _ in range(settings.samples):
        hands, deck = deal_hidden(rng, unseen, sizes, seat, stock)
        for i, e in enumerate(cands):
            hands[seat] = e.hand
            n, out = reply(
                draw_last=rules.draw == "last",
                pile_moves=rules.pile_moves,
                kings_first=rules.kings == "first",
                hands=hands,
                piles=e.piles,
                stock=deck,
                mover=seat,
                step=POLICIES[settings.policy],
            )
            shed[i] += n + (w.going_out if out else 0.0)
    values = []
    for i, e in enumerate(cands):
        if not e.hand:
            return i
        v = evaluate(e.hand, e.piles, own)
        if len(model.opponents) > 1:
            v += evaluate(e.hand, e.piles, model) - evaluate(e.hand, e.piles, first)
        if len(e.hand) >= sizes[seat]:
            v -= model.stall
        values.append(v - weight * shed[i] / settings.samples)
    return max(range(len(cands)), key=lambda i: (values[i], -i))


def pick(results: list[list[float]], confidence: float) -> int:
    """The candidate to play: the best mean result, if it is ahead of the first candidate
    (strong's choice) by at least ``confidence`` standard errors of the paired difference
    (the same samples), else the first. Equal means go to the earlier candidate."""
    n = len(results[0])
    means = [sum(r) / n for r in results]
    best = max(range(len(results)), key=lambda i: (means[i], -i))
    if best == 0 or confidence <= 0 or n < 2:
        return best
    diffs = [a - b for a, b in zip(results[best], results[0], strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return best if mean > confidence * (var / n) ** 0.5 else 0


def deal_hidden(
    rng: random.Random, unseen: tuple[int, ...], sizes: tuple[int, ...], seat: int, stock: int
) -> tuple[list[Hand], Hand]:
    """One deal of the unseen cards: each other seat's hand (its size from the view) and
    the stock (``stock`` cards, in a random order); our own hand is left empty. Cards the
    view cannot place (out of play) are left over."""
    cards = list(unseen)
    rng.shuffle(cards)
    hands: list[Hand] = []
    at = 0
    for i, n in enumerate(sizes):
        if i == seat:
            hands.append(())
            continue
        hands.append(tuple(cards[at : at + n]))
        at += n
    return hands, tuple(cards[at : at + stock])
