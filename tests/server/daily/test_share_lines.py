"""The daily answer carries what the share box shows (docs/daily.md, "Sharing"): each line's
hand and its points at the day's table, the same as the finished game's own view, and never a
card. SQLite only: the points are computed from the stored hands, the store is the one of
tests/server/daily/test_api.py (which runs on both)."""

from __future__ import annotations

import pytest

from cardtable.poker_squares import hands
from cardtable.server.daily.service import line_scores
from tests.server.helpers import Api

from .test_api import board, finish, start


@pytest.mark.variants("table")
@pytest.mark.parametrize("table", ["american", "british"])
def test_the_answer_has_each_lines_hand_and_points(api: Api, table: str) -> None:
    done = finish(api, start(api, table)["game"])
    me = board(api, table)["me"]
    assert me["lines"] == done["view"]["line_hands"]
    assert me["line_scores"] == done["view"]["line_scores"]
    assert sum(me["line_scores"]) == me["total"] == done["view"]["total"]


def test_line_scores_follow_the_point_table() -> None:
    every = [h.key for h in hands.Hand]
    assert line_scores("american", every) == [hands.TABLES["american"][h] for h in hands.Hand]
    assert line_scores("british", ["straight", None]) == [12, None]
    assert line_scores("british", None) is None
