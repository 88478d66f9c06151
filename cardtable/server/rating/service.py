"""What the rating routes answer: the player's rating with its history, and the board."""

from __future__ import annotations

from datetime import datetime, timedelta

from cardtable.server.core.names import NameRefused, check_polite, check_seen
from cardtable.server.core.store.base import Store
from cardtable.server.rating.models import Board, BoardRow, HistoryPoint, MyRating
from cardtable.server.rating.rate import iso
from cardtable.server.rating.scale import MU, PROVISIONAL_SIGMA, SIGMA, provisional, shown
from cardtable.server.rating.store import RatingStore

WINDOW = timedelta(days=30)
"""The board lists players rated in the last 30 days."""


def mine(store: Store, player: str) -> MyRating:
    ratings = RatingStore(store)
    r = ratings.ratings([player]).get(player)
    mu, sigma, matches = (MU, SIGMA, 0) if r is None else (r.mu, r.sigma, r.matches)
    history = [
        HistoryPoint(
            at=p.at, rating=shown(p.mu), provisional=provisional(p.sigma), place=p.place,
            players=p.players,
        )
        for p in ratings.history(player)
    ]  # fmt: skip
    return MyRating(
        rating=shown(mu), provisional=provisional(sigma), matches=matches, history=history
    )


def board(store: Store, player: str, now: datetime) -> Board:
    since = iso(now - WINDOW)
    rows = RatingStore(store).board(since, PROVISIONAL_SIGMA)
    return Board(
        since=since,
        rows=[
            BoardRow(
                rank=i + 1, name=shown_name(r.name), rating=shown(r.mu), matches=r.matches,
                mine=r.player == player,
            )
            for i, r in enumerate(rows)
        ],
    )  # fmt: skip


def shown_name(name: str | None) -> str | None:
    """A name strangers may read, checked again as it is shown (None: not shown)."""
    if name is None:
        return None
    try:
        check_seen(name)
        check_polite(name)
    except NameRefused:
        return None
    return name
