"""Daily fair play: is an entry's score plausible given its own placements? (docs/daily.md)

A player who knows the cards to come places each card where a later card will pay it off.
An honest player, strong or weak, cannot: the deck is shuffled uniformly, so whatever grid
an honest player has built, the next card is a uniform draw from the cards still unseen.

The check reads the deal card by card (`fairplay_reading`): each card's *luck* (how much
better it was for the player's grid than the average unseen card) and each placement's
*regret* (the expected points it gave away by the hint engine's learned evaluator), and
weighs both with the total and the deal's par in one linear score (`Model`), fitted by ``python -m
bench.daily_fairplay fit`` on calibration entries of the three measured players and stored in
``data/fairplay-<table>.json``. A clairvoyant gives points away early and is paid back by the
cards that come; an honest player who gives points away is not. An entry whose score reaches
the model's threshold is held for review.

About 15 ms of one core per entry; it runs once, when the entry is settled. A pure
function of the cards and the placements: no clock, no randomness.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from cardtable.cards import Card
from cardtable.server.daily.fairplay_reading import STEPS, Reading, read

FROM_CARD = 9
"""The luck `z` (shown with the verdict) sums from the 9th card: earlier cards barely
separate."""

SHIFT = 0.0
"""Added to every model's threshold (the tests that are not about fair play set it to
infinity: tests/conftest.py)."""

REASON = (
    "Your total is far above what your own placements predicted: the points your placements "
    "gave away came back, card after card, as chance does not allow."
)
UNCHECKED = (
    "This attempt's placements could not be read back, so its total could not be checked; "
    "it stays off the board."
)


def feature_names() -> list[str]:
    """The model's inputs, in order: per card the luck in units of its spread and the
    placement's regret, per card from the 3rd the lookahead's gain over the previous
    after-state's value, the total and the total over the deal's par."""
    cards = range(2, STEPS + 2)
    return (
        [f"luck_{k}" for k in cards]
        + [f"regret_{k}" for k in cards]
        + [f"gain_{k}" for k in cards if k > 2]
        + ["total", "over_par"]
    )


def features(r: Reading) -> np.ndarray:
    """The feature vector of a reading, in `feature_names` order."""
    spread = np.sqrt(np.maximum(r.var, 1e-6))
    gain = r.mean[1:] - r.chosen[:-1]
    return np.concatenate([r.luck / spread, r.regret, gain, [float(r.total), r.total - r.par]])


def luck_z(r: Reading) -> float:
    """The self-normalised sum of the luck from `FROM_CARD` on: about a standard normal for
    any honest player, strong or weak (a sum of martingale differences)."""
    luck = r.luck[FROM_CARD - 2 :]
    spread = float(r.var[FROM_CARD - 2 :].sum()) ** 0.5
    return float(luck.sum()) / spread if spread > 0 else 0.0


@dataclass(frozen=True)
class Model:
    """A linear score over `features`: ``((x - center) / scale) @ weights``."""

    table: str
    center: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    threshold: float

    def score(self, r: Reading) -> float:
        return float(((features(r) - self.center) / self.scale) @ self.weights)

    def to_json(self, provenance: dict[str, object]) -> str:
        return json.dumps(
            {
                "table": self.table,
                "features": feature_names(),
                "center": [round(float(v), 6) for v in self.center],
                "scale": [round(float(v), 6) for v in self.scale],
                "weights": [round(float(v), 6) for v in self.weights],
                "threshold": round(self.threshold, 6),
                "provenance": provenance,
            },
            indent=1,
        )


def parse_model(text: str) -> Model:
    data = json.loads(text)
    if data["features"] != feature_names():
        raise ValueError("the model's features are not this check's")
    return Model(
        table=data["table"],
        center=np.array(data["center"], dtype=float),
        scale=np.array(data["scale"], dtype=float),
        weights=np.array(data["weights"], dtype=float),
        threshold=float(data["threshold"]),
    )


@cache
def load_model(table: str) -> Model:
    """The shipped model of a point table (``data/fairplay-<table>.json``)."""
    ref = resources.files("cardtable.server.daily") / "data" / f"fairplay-{table}.json"
    return parse_model(ref.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class FairPlayVerdict:
    """The fair-play reading of one finished deal."""

    total: int
    z: float
    """The luck alone (`luck_z`)."""
    regret: float
    """Expected points the placements gave away, summed."""
    score: float
    """The model's score; held from its threshold."""
    held: bool


def verdict(r: Reading, model: Model) -> FairPlayVerdict:
    score = model.score(r)
    return FairPlayVerdict(
        total=r.total,
        z=round(luck_z(r), 2),
        regret=round(float(r.regret.sum()), 1),
        score=round(score, 2),
        held=score >= model.threshold + SHIFT,
    )


def judge(table: str, cards: Sequence[Card], placements: Sequence[int]) -> FairPlayVerdict:
    """The verdict on a finished deal."""
    return verdict(read(table, cards, placements), load_model(table))
