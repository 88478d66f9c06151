"""The rating feature's entry for the other features (the quick-play queue matches by it):

- `rating_for_matching`: each player's rating on the points scale (`scale.points` of their
  ``mu``; a player never rated has a new player's 1500);
- `computer_rating`: a computer strength's fixed rating on the same scale;
- `forget` and `exported`: delete or export what the rating keeps of a player
  (statistics' "delete my data" and "export my data");
- `model`, `points`, `COMPUTERS` and `PROVISIONAL_SIGMA`: the library's model, the scale,
  the computers' ratings and the provisional threshold, for the benchmarks that measure
  them (bench/rating_choice.py, bench/computer_ratings.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from cardtable.server.core.store.base import Store
from cardtable.server.core.store.sql import SqlStore
from cardtable.server.rating import model
from cardtable.server.rating.computers import COMPUTERS
from cardtable.server.rating.scale import MU, PROVISIONAL_SIGMA, points
from cardtable.server.rating.store import RatingStore

__all__ = [
    "COMPUTERS",
    "PROVISIONAL_SIGMA",
    "computer_rating",
    "exported",
    "forget",
    "model",
    "points",
    "rating_for_matching",
]


def rating_for_matching(store: SqlStore, players: Sequence[str]) -> dict[str, float]:
    """Player key -> points, for every one of ``players`` (one read)."""
    known = RatingStore(store).ratings(players)
    return {p: points(known[p].mu if p in known else MU) for p in players}


def computer_rating(strength: str) -> float:
    """The fixed points of the computer of ``strength`` ("easy", "normal", "strong")."""
    return points(COMPUTERS[strength][0])


def forget(store: Store, player: str) -> None:
    """Delete ``player``'s rating, history and leaver rows."""
    RatingStore(store).delete_player(player)


def exported(store: Store, player: str) -> dict[str, Any]:
    """``player``'s rating (None: never rated) and every history row kept, as stored."""
    ratings = RatingStore(store)
    mine = ratings.ratings([player]).get(player)
    rating = None if mine is None else {k: v for k, v in asdict(mine).items() if k != "player"}
    return {"rating": rating, "history": [asdict(p) for p in ratings.history(player)]}
