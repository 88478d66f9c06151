"""The per-player join rate of quick play (docs/quickplay.md, "Hostile clients"), on SQLite
and PostgreSQL: kept in the store, so one player's joins on two apps draw from one bucket."""

from __future__ import annotations

import pytest

from cardtable.server import Settings
from cardtable.server.core.quick_config import QuickSettings

from .conftest import Site


@pytest.fixture
def quick_options() -> QuickSettings:
    # Leaves never cool down here: the join rate alone is tested.
    return QuickSettings(leave_burst=1000, leave_rate=100.0)


def test_the_join_rate_holds_across_apps(database: Settings) -> None:
    site = Site(database, apps=2)
    try:
        s = site.quick().settings
        a = site.person(app=0)
        b_http = site.person(app=1)
        b_http.player_id = a.player_id  # the same player on the other process
        for i in range(s.join_burst):
            (a if i % 2 else b_http).join(2, "Ann")
            (a if i % 2 else b_http).leave()
        err = a.join(2, "Ann", status=429)
        assert err["code"] == "rate_limited"
        b_http.join(2, "Ann", status=429)
        site.now += 1 / s.join_rate
        b_http.join(2, "Ann")
    finally:
        site.close()
