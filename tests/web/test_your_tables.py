"""The home page's "Your tables" (issue 40, docs/online.md): a player who sits at four online
tables (state built through the API: one waiting for their move, two for the other player's,
one still in the lobby) sees the one waiting for them first, then the others by last change,
three rows until "All your tables (4)" opens the last; the games' buttons stay on a phone's
first screen; a tap opens the table. Both languages, 390x844 and 1280x800, axe-core clean.
A player at no table sees no section at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import API, LIVE_TIMEOUT, PAGE, devices, ensure_player
from tests.web.online_helpers import online_server as serve_online

ANNS_TURN, BEAS_TURN = 1, 5
"""Deal seeds of a two-player table: the first to play is seat 0 (Ann), seat 1 (Bea)."""
TEXT = {
    "en-US": {"yours": "Your turn", "theirs": "Bea's turn", "lobby": "Waiting to start",
              "all": "All your tables (4)", "round": "Round 1 of 3", "left": "min left"},
    "ja-JP": {"yours": "あなたの番", "theirs": "Beaさんの番", "lobby": "開始待ち",
              "all": "すべてのテーブル（4）", "round": "第1ラウンド（全3）", "left": "残り"},
}  # fmt: skip


@pytest.fixture(scope="module")
def online_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(tmp_path_factory.mktemp("your-tables-web")) as url:
        yield url


def post(page: Page, path: str, body: dict[str, Any], pid: str, seed: int | None = None) -> Any:
    headers = {"X-Player-Id": pid, "Content-Type": "application/json"}
    if seed is not None:
        headers["X-Test-Seed"] = str(seed)
    answer = page.request.post(f"{API}{path}", data=json.dumps(body), headers=headers)
    assert answer.ok, answer.text()
    return answer.json()


def table(page: Page, ann: str, bea: str, seed: int | None, **body: Any) -> str:
    """A table Ann hosts and Bea joined, dealt from ``seed`` (None: left in the lobby)."""
    made = post(page, "", {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}],
                           "rounds": 3, **body}, ann)  # fmt: skip
    joined = post(page, f"/{made['token']}/join", {"version": 1, "name": "Bea"}, bea)
    if seed is not None:
        post(page, f"/{made['token']}/start", {"version": joined["version"]}, ann, seed)
    return str(made["token"])


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_home_lists_your_tables_waiting_first(
    browser: Browser, online_url: str, console_guard: ConsoleGuard, phone: bool, locale: str
) -> None:
    text = TEXT[locale]
    with devices(browser, online_url, console_guard) as make:
        page = make(phone=phone, locale=locale)
        page.goto("/")
        ann = ensure_player(page)
        page.reload()
        expect(page.locator("#your-tables[data-loaded]")).to_have_count(1)
        expect(page.locator("#your-tables")).to_be_hidden()  # no table: no empty box
        bea = str(page.request.post("/api/players").json()["player_id"])
        lobby = table(page, ann, bea, None)
        first = table(page, ann, bea, BEAS_TURN)
        yours = table(page, ann, bea, ANNS_TURN, turn_timer=120)
        last = table(page, ann, bea, BEAS_TURN)
        page.reload()
        rows = page.locator("#your-tables-list a.your-table")
        expect(rows).to_have_count(4)
        order = [rows.nth(i).get_attribute("data-token") for i in range(4)]
        assert order == [yours, last, first, lobby]
        top = rows.nth(0)
        expect(top).to_have_class("your-table your-move")
        expect(top).to_contain_text(text["yours"])
        expect(top).to_contain_text("Bea")
        expect(top).to_contain_text(text["round"])
        expect(top).to_contain_text(text["left"])
        expect(rows.nth(1)).to_contain_text(text["theirs"])
        expect(rows.nth(3)).to_be_hidden()  # three rows until the button opens the rest
        more = page.locator("#your-tables-all")
        expect(more).to_have_text(text["all"])
        expect(more).to_have_attribute("aria-expanded", "false")
        friends = page.locator("#friends-kc").bounding_box()
        height = page.viewport_size["height"] if page.viewport_size else 0
        assert friends is not None and friends["y"] + friends["height"] <= height, friends
        check_screen(page, f"your tables ({locale}, {'phone' if phone else 'desktop'})",
                     phone=phone)  # fmt: skip
        more.click()
        expect(more).to_have_attribute("aria-expanded", "true")
        expect(rows.nth(3)).to_be_visible()
        expect(rows.nth(3)).to_contain_text(text["lobby"])
        check_screen(page, f"all your tables ({locale})", phone=phone)
        top.click()
        page.wait_for_url(f"**{PAGE}#{yours}")
        expect(page.locator("#table[data-version]")).to_have_count(1, timeout=LIVE_TIMEOUT)
