"""What the review feature does (docs/review.md): a finished Poker Squares deal reviewed by
the hint engine in the background (`jobs`), its steps put into words (`explain`), and a
finished Kings Corner round replayed with every hand shown (`kings_corner`). Nothing here
shows anything the player could not see already: a deal in progress is never reviewed and a
round in progress never replayed (409 ``wrong_phase``), which the engine decides from the
saved game, and someone else's game is 404 like every game route.
"""

from __future__ import annotations

import time

from fastapi.concurrency import run_in_threadpool

from cardtable import poker_squares as ps
from cardtable.poker_squares.review import REVIEW_BUDGET
from cardtable.server.core.errors import damaged, wrong_phase
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.store import GameRecord, Store
from cardtable.server.games.public import KCReplay, SavedMatch
from cardtable.server.games.public import records as games
from cardtable.server.review import jobs as review_jobs
from cardtable.server.review import kings_corner as review_kc
from cardtable.server.review.explain import explain, hinted_placements
from cardtable.server.review.models import PSReviewStatus
from cardtable.server.review.store import ReviewStore


def _finished_deal(store: Store, game_id: str, player: str) -> tuple[GameRecord, ps.Game]:
    record = games.load(store, game_id, player, "poker-squares")
    try:
        game = ps.ENGINE.from_dict(record.state)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        raise damaged("deal") from None
    if not game.is_over:
        raise wrong_phase("the deal is not over: a deal in progress is never reviewed")
    return record, game


def _budget(runtime: Runtime) -> int:
    budget = runtime.settings.hint_budget
    return REVIEW_BUDGET if budget is None else max(budget, 0)


def _answer(state: review_jobs.JobState, store: Store, game_id: str) -> PSReviewStatus:
    """The answer for a review's state; a done review with its words (`explain`) and the
    placements made after a hint, read from the game's move log."""
    name, done, total, review = state
    shown = None
    if review is not None:
        hinted = hinted_placements(store.move_log(game_id), review["placements"])
        shown = explain(review, hinted)
    return PSReviewStatus.model_validate(
        {"state": name, "done": done, "total": total, "review": shown}
    )


def start_poker_squares(
    runtime: Runtime, store: Store, player: str, game_id: str
) -> PSReviewStatus:
    """Start the review of a finished deal (or find it stored): its progress, and the review
    once done."""
    record, game = _finished_deal(store, game_id, player)
    return _answer(
        review_jobs.ensure(
            runtime, store, player, record.id, record.version, game, _budget(runtime)
        ),
        store,
        record.id,
    )


def poker_squares_status(store: Store, player: str, game_id: str) -> PSReviewStatus:
    """The stored review of a finished deal, or its progress (``none`` before it started)."""
    record, _ = _finished_deal(store, game_id, player)
    row = ReviewStore(store).load(record.id, review_jobs.PART)
    return _answer(review_jobs.status(row, time.time()), store, record.id)


async def kings_corner_round(
    runtime: Runtime, store: Store, player: str, game_id: str, number: int
) -> KCReplay:
    """Round ``number`` of a finished match replayed with every hand shown (worked out once,
    admitted like a hint; a wait for a round being worked out for another holds no thread)."""

    def loaded() -> tuple[str, SavedMatch]:
        record = games.load(store, game_id, player, "kings-corner")
        try:
            table = SavedMatch.from_dict(record.state)
        except ValueError:
            raise damaged("match") from None
        if number > table.match.rounds:
            raise wrong_phase(f"the match has {table.match.rounds} rounds")
        return record.id, table

    review_kc.REPLAYS.check(player)
    found, table = await run_in_threadpool(loaded)
    return await review_kc.replayed(
        runtime.admission, player, found, table, lambda: store.move_log(found), number
    )
