"""What the fair-play check reads from a finished deal (docs/daily.md, "Fair play").

For the cards 2..25 (card ``k`` turned when ``k - 1`` lie on the grid), from the hint
engine's learned evaluator (the after-state's estimate of the final total, as
`hint.evaluate` at budget 0 gives it; the final total for the last card):

- ``w_k(u)``, for every card ``u`` still unseen before card ``k`` is turned: the best value
  ``u`` would reach on any empty cell. Its mean over the unseen cards is the one-card
  lookahead value of the grid the player had built;
- ``came``: ``w_k`` of the card that came, and ``chosen``: the value of that card on the cell
  the player chose, so ``came - chosen`` (>= 0) is the expected points the placement gave
  away (its *regret*);
- ``par``: the total of the hint engine's learned evaluator placing the same cards in the same
  order, each card on its best cell (the review's par at budget 0): what the deal gave an
  honest strong player.

The deck is shuffled uniformly and an honest grid depends only on cards already seen, so for
any honest player ``came - mean`` (the card's *luck*) has mean 0 and variance ``var`` given
everything before. A pure function of the cards and the placements; one context of the
search (`search_look.Context`) per card values every unseen card on every empty cell at once:
about 15 ms of one core per deal with the par.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from cardtable.cards import Card
from cardtable.poker_squares.game import CELLS, Game
from cardtable.poker_squares.hint.abstract import line_points, load_values
from cardtable.poker_squares.hint.position import Position
from cardtable.poker_squares.hint.search import analyse
from cardtable.poker_squares.hint.search_look import Context

Vec = npt.NDArray[np.float64]
STEPS = CELLS - 1
"""Readings per deal: the cards 2..25 (the first card meets an empty grid)."""


@dataclass(frozen=True)
class Reading:
    """One finished deal as the check sees it: one entry per card 2..25."""

    total: int
    par: int
    """The budget-0 engine's total on the same cards in the same order."""
    came: Vec
    """``w_k`` of the card that came."""
    mean: Vec
    """Mean of ``w_k`` over the cards unseen before card ``k``."""
    var: Vec
    """Variance of ``w_k`` over the same cards."""
    chosen: Vec
    """Value of the card that came on the cell the player chose."""

    @property
    def luck(self) -> Vec:
        """``came - mean``: how much better the card was than the average unseen card."""
        return self.came - self.mean

    @property
    def regret(self) -> Vec:
        """``came - chosen``: the expected points each placement gave away."""
        return self.came - self.chosen


def read(table: str, cards: Sequence[Card], placements: Sequence[int]) -> Reading:
    """The reading of a finished deal (module docstring)."""
    if len(cards) < CELLS or len(placements) != CELLS:
        raise ValueError("a finished deal has 25 cards and 25 placements")
    total = Game(table, tuple(cards[:CELLS]), tuple(placements)).total
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    came = np.zeros(STEPS)
    mean = np.zeros(STEPS)
    var = np.zeros(STEPS)
    chosen = np.zeros(STEPS)
    for k in range(CELLS):
        card = cards[k].index
        if k > 0:
            ctx = Context(pos, pos.placed, vt, pts)
            best, gains, empt = ctx.leaves(pos)
            x = ctx.xs.index(card)
            came[k - 1] = best[x]
            mean[k - 1] = best.mean()
            var[k - 1] = best.var()
            chosen[k - 1] = best[x] - gains[:, x].max() + gains[empt.index(placements[k]), x]
        pos.see(card)
        pos.put(placements[k], card, pts)
    return Reading(total=total, par=par(table, cards), came=came, mean=mean, var=var, chosen=chosen)


def par(table: str, cards: Sequence[Card]) -> int:
    """The total of the budget-0 engine on these cards in this order."""
    vt = load_values(table)
    pts = line_points(table)
    pos = Position()
    for card in cards[:CELLS]:
        pos.see(card.index)
        _, cell = analyse(pos, card.index, vt, pts, 0)
        pos.put(cell, card.index, pts)
    return pos.total
