"""A waiting player whose page is gone (no status asked for `stale_seconds`) is not seated:
a person who closed the tab does not leave a stranger at a table with no one there; their
page coming back makes them count again (docs/quickplay.md, "The stored queue")."""

from __future__ import annotations

import pytest

from cardtable.server.core.quick_config import QuickSettings
from cardtable.server.quickplay.store import expire_quick
from tests.server.quickplay.conftest import Site
from tests.server.quickplay.test_seating import seated_together


@pytest.fixture
def quick_options() -> QuickSettings:
    return QuickSettings()  # the product's own stale time (the other tests' clocks jump)


def test_a_page_gone_quiet_is_not_seated_until_it_asks_again(site: Site) -> None:
    stale = site.quick().settings.stale_seconds
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    site.now += stale + 1  # Ann's page has asked nothing since she joined
    b.join(2, "Bea")
    assert site.match() == 0
    status = b.status()
    assert status["state"] == "waiting" and status["waiting"] == 1  # Bea alone counts
    # Ann's page asks again: she counts, and the two are seated together.
    assert a.status()["state"] == "waiting"
    assert site.match() == 1
    seated_together([a, b])


def test_a_page_that_keeps_asking_stays_in_the_queue(site: Site) -> None:
    s = site.quick().settings
    a, b = site.person(), site.person()
    a.join(2, "Ann")
    for _ in range(int(s.stale_seconds // s.seen_every) + 2):
        site.now += s.seen_every  # the page asks every few seconds, as it does
        assert a.status()["state"] == "waiting"
    b.join(2, "Bea")
    assert site.match() == 1
    seated_together([a, b])


def test_retention_deletes_a_row_unseen_for_long(site: Site) -> None:
    a = site.person()
    a.join(2, "Ann")
    s = site.quick().settings
    runtime = site.apps[0].state.runtime
    assert expire_quick(runtime, site.now + s.unseen_hold_seconds - 1) == 0
    assert expire_quick(runtime, site.now + s.unseen_hold_seconds + 1) == 1
    assert a.status()["state"] == "idle"
