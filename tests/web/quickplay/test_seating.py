"""Quick play seats people across server processes (issue 41, "Done when"): browsers on two
real `cardtable serve` processes over one PostgreSQL (conftest.py `processes`), each pressing
Play on the home page as a person does, and each page taken to its table on its own:

- four devices asking for "any" are seated, every seat of every table a person or a
  computer, each person at exactly one table;
- two devices asking for 2 players are seated together, at one table of two persons;
- two devices asking for 4 are seated together with two computers once the fill time has
  come (moved in the store, not waited for).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import api_get, open_device

from .conftest import Pair
from .steps import open_home, press_play, wait_seated


@pytest.fixture
def guard() -> Iterator[ConsoleGuard]:
    guard = ConsoleGuard()
    guard.allow("409 (Conflict)")  # a live update racing a click: the page takes the table
    yield guard
    assert not guard.errors, "JavaScript errors:\n" + "\n".join(guard.errors)


def seat_all(pages: list[Page], players: str) -> dict[str, list[Page]]:
    """Every page presses Play for `players`; returns the pages by the table each reached."""
    for page in pages:
        open_home(page)
    # The presses close together, as people arriving at once (the pages are loaded first).
    for i, page in enumerate(pages):
        press_play(page, f"P{i + 1}", players=players)
    tables: dict[str, list[Page]] = {}
    for page in pages:
        tables.setdefault(wait_seated(page), []).append(page)
    return tables


# The fast tier: test_two_devices_for_two_are_seated_together (the pages across processes) and
# tests/server/quickplay/ (matching "any", the fill, on both databases).
@pytest.mark.deep
def test_four_devices_for_any_on_two_processes(
    browser: Browser, processes: Pair, guard: ConsoleGuard
) -> None:
    bases = [processes.a.base, processes.b.base] * 2
    pages = [open_device(browser, base, guard, phone=i % 2 == 1) for i, base in enumerate(bases)]
    try:
        tables = seat_all(pages, "any")
        persons = 0
        for token, seated in tables.items():
            table = api_get(seated[0], token)
            assert table["settings"]["quick"], table["settings"]
            kinds = [seat["kind"] for seat in table["seats"]]
            assert set(kinds) <= {"person", "computer"}, kinds  # no open seat
            assert kinds.count("person") == len(seated), (kinds, len(seated))
            for page in seated:  # each page's player holds a seat of its own table
                assert len(api_get(page, token)["me"]["seats"]) == 1
            persons += kinds.count("person")
        assert persons == 4
    finally:
        for page in pages:
            page.context.close()
    assert "Traceback" not in processes.logs()


def test_two_devices_for_two_are_seated_together(
    browser: Browser, processes: Pair, guard: ConsoleGuard
) -> None:
    pages = [
        open_device(browser, processes.a.base, guard, locale="ja-JP"),
        open_device(browser, processes.b.base, guard, phone=True),
    ]
    try:
        tables = seat_all(pages, "2")
        assert len(tables) == 1, list(tables)
        token = next(iter(tables))
        table = api_get(pages[0], token)
        assert [seat["kind"] for seat in table["seats"]] == ["person", "person"]
        assert {seat["name"] for seat in table["seats"]} == {"P1", "P2"}
    finally:
        for page in pages:
            page.context.close()
    assert "Traceback" not in processes.logs()


@pytest.mark.deep  # the fast tier: as above
def test_computers_fill_the_seats_at_the_fill_time(
    browser: Browser, processes: Pair, guard: ConsoleGuard
) -> None:
    """Two devices (one per process) ask for 4 players: they wait, both pages counting down
    to the stored fill time; moved to now in the store (not waited for), the table is made
    with both of them and computers in the two other seats, and both pages go there."""
    pages = [
        open_device(browser, processes.a.base, guard),
        open_device(browser, processes.b.base, guard, phone=True, locale="ja-JP"),
    ]
    try:
        for i, page in enumerate(pages):
            open_home(page)
            press_play(page, f"Q{i + 1}", players="4")
        for page in pages:
            expect(page.locator("#quick-play")).to_have_attribute("data-state", "waiting")
            expect(page.locator("#qp-wait-facts")).to_contain_text("2")  # both wait
        move_fill_time(processes.url)
        tables = {wait_seated(page) for page in pages}
        assert len(tables) == 1, tables
        table = api_get(pages[0], tables.pop())
        kinds = [seat["kind"] for seat in table["seats"]]
        assert sorted(kinds) == ["computer", "computer", "person", "person"], kinds
    finally:
        for page in pages:
            page.context.close()
    assert "Traceback" not in processes.logs()


def move_fill_time(url: str) -> None:
    """Every waiting player joined a minute earlier, as the store keeps it: the fill time
    (joined + `QuickSettings.fill_seconds`, 20 s) has come for them."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE quick_queue SET joined_at = joined_at - 60 WHERE table_id IS NULL")
