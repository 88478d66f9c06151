"""A Kings Corner online round in Chromium with the devices on two real `cardtable serve`
processes sharing one PostgreSQL (conftest.py): the host's browser on process A creates the
table through the setup page, a friend's browser on process B joins by the invite link, and
they play the round to its end, each seeing the other's moves live (the steps are
tests/web/online_helpers.py's)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    LIVE_TIMEOUT,
    api_get,
    create_table,
    join_by_link,
    open_device,
    play_round,
    start_match,
    wait_phase,
    wait_version,
)

from .conftest import Cluster


@pytest.fixture
def guard() -> Iterator[ConsoleGuard]:
    guard = ConsoleGuard()
    guard.allow("409 (Conflict)")  # a live update racing a click: the page takes the table
    yield guard
    assert not guard.errors, "JavaScript errors:\n" + "\n".join(guard.errors)


# Two processes only: the API tests (test_two_processes.py) run against two workers too.
@pytest.mark.parametrize("cluster", ["processes"], indirect=True)
@pytest.mark.deep  # the fast tier: test_two_processes.py (API and live channel across processes)
def test_a_round_with_the_devices_on_two_processes(
    browser: Browser, cluster: Cluster, guard: ConsoleGuard
) -> None:
    host = open_device(browser, cluster.a.base, guard)
    friend = open_device(browser, cluster.b.base, guard, phone=True)
    pages: list[Page] = [host, friend]
    try:
        token = create_table(host, seats=["invite"], name="Ana")
        join_by_link(friend, token, "Ben")
        for page in pages:
            expect(page.locator(".lobby-seat .conn.online")).to_have_count(2, timeout=LIVE_TIMEOUT)
        start_match(host)
        for page in pages:
            wait_phase(page, "play")
        # Each page shows its own hand only.
        hands = [set(p.locator("#hand .hand-card").evaluate_all("e => e.map(c => c.dataset.card)"))
                 for p in pages]  # fmt: skip
        assert all(len(h) >= 7 for h in hands) and not hands[0] & hands[1]
        final = play_round(pages, token, clicked_turns=1, timeout=90)
        assert final["phase"] == "match_over"
        totals = [str(t) for t in final["match"]["totals"]]
        for page in pages:
            wait_version(page, final["version"])
            wait_phase(page, "match_over")
            expect(page.locator("#end")).to_be_visible()
            expect(page.locator("#end-table td.total")).to_have_text(totals)
        # Both processes answer the same table.
        assert api_get(host, token)["version"] == api_get(friend, token)["version"]
    finally:
        for page in pages:
            page.context.close()
    assert "Traceback" not in cluster.logs()
