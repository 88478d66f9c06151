"""Shared steps of the quick-play browser tests: press Play on the home page's box as a person
does, wait until the page has taken its player to a table, and ask the server what it says of
a player (with the device's own player id)."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.web.online_helpers import LIVE_TIMEOUT, player_id

QP = "/api/quick-play"
SEATED_TIMEOUT = 45_000
"""How long (ms) a page may take to reach its table: at most the fill time (20 s on a
`cardtable serve` of default settings) when nobody else fits, then the poll's 2 s, a
matcher's round on a loaded machine and the table page's first live update."""


def open_home(page: Page) -> None:
    """The home page, once the box shows what the server says of this player."""
    page.goto("/")
    expect(page.locator("#quick-play[data-loaded]")).to_have_count(1)


def press_play(page: Page, name: str, players: str = "any", preset: str | None = None) -> None:
    """Chooses `players` ("2", "3", "4", "any") and `preset`, types `name` and presses Play."""
    page.locator(f"input[name=qp-players][value='{players}']").check()
    if preset is not None:
        page.locator("#qp-preset").select_option(preset)
    page.locator("#qp-name").fill(name)
    page.locator("#qp-play").click()


def wait_seated(page: Page) -> str:
    """Waits until the page went to its table and shows it; returns the table's token."""
    page.wait_for_url(re.compile(r"kings-corner-online\.html#"), timeout=SEATED_TIMEOUT)
    expect(page.locator("#table[data-version]")).to_have_count(1, timeout=LIVE_TIMEOUT)
    return page.url.split("#", 1)[1]


def quick_get(page: Page, path: str = "") -> Any:
    """`GET /api/quick-play{path}` as this device's player."""
    answer = page.request.get(f"{QP}{path}", headers={"X-Player-Id": player_id(page)})
    assert answer.ok, answer.text()
    return answer.json()


def quick_join(page: Page, pid: str, body: dict[str, Any]) -> Any:
    """`POST /api/quick-play` for the player `pid` (a person whose page is elsewhere)."""
    answer = page.request.post(
        QP, data=json.dumps(body), headers={"X-Player-Id": pid, "Content-Type": "application/json"}
    )
    assert answer.status == 201, answer.text()
    return answer.json()
