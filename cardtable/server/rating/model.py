"""The library's model: OpenSkill's Plackett-Luce over a match's finishing order
(docs/rating.md, "Why OpenSkill"), with the library's defaults (mu 25, sigma 25/3,
beta 25/6, tau 25/300)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Entrant:
    """One seat of a rated match as the model sees it."""

    mu: float
    sigma: float
    rank: float
    """Lower finished better; equal ranks tie (the match's penalty total, or last)."""


def rate(entrants: Sequence[Entrant]) -> list[tuple[float, float]]:
    """Each entrant's (mu, sigma) after the match, in order."""
    teams = [[MODEL.rating(mu=e.mu, sigma=e.sigma)] for e in entrants]
    after = MODEL.rate(teams, ranks=[e.rank for e in entrants])
    return [(t[0].mu, t[0].sigma) for t in after]
