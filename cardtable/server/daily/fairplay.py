"""Daily fair play: is an entry's score plausible given its own placements? (docs/daily.md)

A player who knows the cards to come places each card where a later card will pay it off.
An honest player, strong or weak, cannot: the deck is shuffled uniformly, so whatever grid
an honest player has built, the next card is a uniform draw from the cards still unseen.

The statistic, for a finished deal (cards ``c_1..c_25`` placed on cells ``p_1..p_25``):

- before card ``k`` is turned, every unseen card ``u`` would be worth
  ``w_k(u) = max over empty cells of value(grid + u on that cell)``, with ``value`` the
  learned evaluator of the hint engine (the after-state's estimate of the final total, as
  `hint.evaluate` at budget 0 gives it; the final total for the last card);
- ``d_k = w_k(c_k) - mean_u w_k(u)``: how much better the card that came was than the
  average unseen card, for this grid. With ``v_k`` the variance of ``w_k(u)`` over the unseen
  cards, an honest player's ``d_k`` has mean 0 and variance ``v_k`` given everything before,
  exactly, whoever plays (the grid depends only on cards already seen);
- ``z = sum d_k / sqrt(sum v_k)`` over the cards from `FROM_CARD` on (a self-normalised sum of
  martingale differences: about a standard normal for any honest player). A player who sees
  the future lines up cards that the later ones complete: ``d_k`` is positive card after card.
  The entry is held when ``z >= HOLD_Z``.

About 0.2 s of one core per entry (docs/daily.md, "Fair play"), so it runs once, when the
entry is settled. A pure function of the cards and the placements: no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardtable.cards import Card
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import cell_classes, static_estimate

FROM_CARD = 9
"""The sum starts at the 9th card turned: earlier cards barely separate (docs/daily.md)."""

HOLD_Z = 3.5
"""An entry whose `z` reaches this is held for review. 3.0 held 0.8% of a human-like honest
player's entries; 3.5 held 1 of 1,000 engine entries and none of 800 human-like ones
(a standard normal exceeds it 0.02% of the time) and 46% of clairvoyant ones (docs/daily.md,
"Fair play"; ``python -m bench.daily_fairplay``)."""

REASON = (
    "Your total is far above what your own placements predicted: card after card, the next "
    "card fitted your grid much better than chance allows."
)
UNCHECKED = (
    "This attempt's placements could not be read back, so its total could not be checked; "
    "it stays off the board."
)


@dataclass(frozen=True)
class FairPlayVerdict:
    """The fair-play reading of one finished deal."""

    total: int
    fit: float
    """Points the cards that came were worth above the average unseen card (``sum d_k``)."""
    z: float
    held: bool


def worths(
    table: str, cards: Sequence[Card], placements: Sequence[int]
) -> list[tuple[float, list[float]]]:
    """For the cards 2..25: ``(w_k(c_k), [w_k(u) for every unseen u])`` (module docstring)."""
    if len(cards) < CELLS or len(placements) != CELLS:
        raise ValueError("a finished deal has 25 cards and 25 placements")
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    out: list[tuple[float, list[float]]] = []
    for k in range(CELLS):
        card = cards[k].index
        if k > 0:
            worth: dict[int, float] = {}
            for u in range(52):
                if not pos.mask >> u & 1:
                    continue
                seen = pos.copy()
                seen.see(u)
                best = -1e9
                for cell in cell_classes(seen):
                    nxt = seen.copy()
                    nxt.put(cell, u, pts)
                    v = static_estimate(nxt, vt) if nxt.placed < CELLS else float(nxt.total)
                    best = max(best, v)
                worth[u] = best
            out.append((worth[card], list(worth.values())))
        pos.see(card)
        pos.put(placements[k], card, pts)
    return out


def fits(table: str, cards: Sequence[Card], placements: Sequence[int]) -> list[tuple[float, float]]:
    """``(d_k, v_k)`` for the cards 2..25 (module docstring)."""
    return [_fit(came, ws) for came, ws in worths(table, cards, placements)]


def _fit(came: float, ws: list[float]) -> tuple[float, float]:
    mean = sum(ws) / len(ws)
    return came - mean, sum((v - mean) ** 2 for v in ws) / len(ws)


def judge(table: str, cards: Sequence[Card], placements: Sequence[int]) -> FairPlayVerdict:
    """The verdict on a finished deal: held when ``z >= HOLD_Z``."""
    return verdict(table, cards, placements, fits(table, cards, placements))


def verdict(
    table: str,
    cards: Sequence[Card],
    placements: Sequence[int],
    all_steps: Sequence[tuple[float, float]],
) -> FairPlayVerdict:
    """The verdict from the deal's `fits` (computed once by the caller)."""
    steps = all_steps[FROM_CARD - 2 :]
    fit = sum(d for d, _ in steps)
    spread = sum(v for _, v in steps) ** 0.5
    z = fit / spread if spread > 0 else 0.0
    total = Game(table, tuple(cards[:CELLS]), tuple(placements)).total
    return FairPlayVerdict(total=total, fit=round(fit, 1), z=round(z, 2), held=z >= HOLD_Z)


def fits_of(all_worths: Sequence[tuple[float, list[float]]]) -> list[tuple[float, float]]:
    """`fits` from `worths` computed once."""
    return [_fit(came, ws) for came, ws in all_worths]
