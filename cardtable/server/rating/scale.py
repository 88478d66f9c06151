"""The rating's numbers (docs/rating.md, "The scale"): the library's defaults, the points
people read, and when a rating stops being provisional.

The library keeps a skill estimate ``mu`` and its uncertainty ``sigma`` (a new player:
25 and 25/3). People read ``points(mu)``: 1500 for a new player, 30 points per unit of
``mu``, which makes a 400-point gap about 10 to 1 odds between two settled players, as on
the Elo scale people know from chess. A rating is provisional ("?") while ``sigma`` is at or
above `PROVISIONAL_SIGMA`.
"""

from __future__ import annotations

MU = 25.0
"""A new player's ``mu`` (the library's default)."""
SIGMA = 25.0 / 3.0
"""A new player's ``sigma`` (the library's default)."""
BASE = 1500.0
"""The points of a new player's ``mu``."""
PER_MU = 30.0
"""Points per unit of ``mu``: with the library's beta (25/6), two settled players a
400-point gap apart win about 10 to 1 (c = sqrt(2) * beta, 400 / 30 * ln(10) / c)."""
PROVISIONAL_SIGMA = 5.5
"""A rating whose ``sigma`` is at or above this is provisional: two thirds of a new
player's, 165 points either way for one standard deviation. With the library's updates that
is about 8 matches against computers, 14 head-to-head against other newcomers or 19 at
four-player tables (docs/rating.md, "Provisional")."""


def points(mu: float) -> float:
    """``mu`` on the scale people read."""
    return BASE + PER_MU * (mu - MU)


def shown(mu: float) -> int:
    """The whole points a page shows."""
    return round(points(mu))


def provisional(sigma: float) -> bool:
    return sigma >= PROVISIONAL_SIGMA
