"""The end of a Poker Squares table's deal in the browser (docs/ps-tables.md): Share and
"Share as words" of this device's own grid (poker-squares/share.js: no card in either text,
the words reading each row and column in order), its accessible results table, a spectator's
view of the end (every grid, nothing to share), and Rematch: who is ready, then a new deal for
the same players once everyone is."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from cardtable.server.core.settings import WEB_DIR
from tests.web.a11y import check_screen
from tests.web.online_helpers import LIVE_TIMEOUT
from tests.web.pstable.conftest import Device
from tests.web.pstable.helpers import (
    CARD,
    api_get,
    create_api,
    join_api,
    open_table,
    place_api,
    wait_card,
    wait_phase,
)

SHARE_SHEET = (
    "window.__shared = []; navigator.share = async (data) => { window.__shared.push(data); };"
)
"""The system share sheet, recorded (headless Chromium has none)."""
LANGS = {"en": "en-US", "ja": "ja-JP"}
I18N = WEB_DIR / "assets" / "i18n"
RANKS = r"(?:\b(?:[2-9]|10|[AKQJ])[♠♥♦♣]|\b[2-9TJQKA][SHDC]\b)"
"""A card written the page's way ("10♥") or the engine's ("TH")."""


def finished_table(host: Page, friend: Page) -> str:
    """A table of the two devices whose deal is over (placed through the API); both pages
    show its end. Returns the token."""
    made = create_api(host, "Ana")
    token: str = made["token"]
    join_api(friend, token, "Ken")
    host.locator("#start-btn").click()
    wait_phase(host, "playing")
    for _ in range(25):
        place_api(host, token)
        place_api(friend, token)
    open_table(friend, token, "over")
    wait_phase(host, "over")
    return token


def shared_texts(page: Page) -> list[str]:
    texts: list[str] = page.evaluate("() => window.__shared.map((d) => d.text)")
    return texts


def assert_lines_in_order(words: str, lang: str, hands: list[str]) -> None:
    """The words name each row, then each column, in order, each with its hand."""
    main = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    share = json.loads((I18N / f"share.{lang}.json").read_text(encoding="utf-8"))
    names = [main["ps.line_row"].replace("{n}", str(n)) for n in range(1, 6)]
    names += [main["ps.line_col"].replace("{n}", str(n)) for n in range(1, 6)]
    said = [
        share["share.word_line"].replace("{line}", name).replace("{hand}", main[f"hand.{hand}"])
        for name, hand in zip(names, hands, strict=True)
    ]
    at = [words.find(line) for line in said]
    assert -1 not in at, f"a line is not read as {said}: {words!r}"
    assert at == sorted(at), "the lines are not read in order"


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("lang", list(LANGS))
def test_share_and_rematch(device: Device, lang: str, size: str) -> None:
    phone = size == "phone"
    host = device(phone=phone, locale=LANGS[lang])
    host.context.add_init_script(SHARE_SHEET)
    friend = device()
    token = finished_table(host, friend)
    host.reload()
    wait_phase(host, "over")
    check_screen(host, f"ps table, results ({lang}, {size})", phone=phone)
    mine = api_get(host, token)["game"]
    # The accessible table of this device's own lines: one row per line, its hand named.
    rows = host.locator("#share-table tbody tr")
    expect(rows).to_have_count(10)
    for line, hand in enumerate(mine["line_hands"]):
        expect(rows.nth(line)).to_have_attribute("data-hand", hand)
    host.locator("#share-btn").click()
    host.locator("#share-words-btn").click()
    host.wait_for_function("() => window.__shared.length === 2")
    marks, words = shared_texts(host)
    for text in (marks, words):
        assert not re.search(RANKS, text), f"a card in the shared text: {text!r}"
        assert not CARD.search(f'"{text}"')
        assert str(mine["total"]) in text
    expect(host.locator("#share-preview")).to_have_text(words)
    assert_lines_in_order(words, lang, mine["line_hands"])
    # A spectator sees every grid and the ranking, with nothing to share and no rematch.
    watcher = device(phone=phone, locale=LANGS[lang])
    open_table(watcher, token, "over")
    expect(watcher.locator("#grids li")).to_have_count(2)
    expect(watcher.locator("#ranking li")).to_have_count(2)
    expect(watcher.locator("#rematch-btn")).to_be_hidden()
    expect(watcher.locator("#share-box")).to_be_hidden()
    # Rematch: the friend is ready first; the host sees it, presses, and a new deal starts.
    friend.locator("#rematch-btn").click()
    expect(friend.locator("#rematch-btn")).to_be_disabled(timeout=LIVE_TIMEOUT)
    expect(host.locator("#ranking li[data-seat='1'] .rematch-tag")).to_be_visible(
        timeout=LIVE_TIMEOUT
    )
    expect(host.locator("#rematch-status")).not_to_be_empty()
    host.locator("#rematch-btn").click()
    for page in (host, friend):
        expect(page.locator("main[data-deal='2'][data-phase=playing]")).to_have_count(
            1, timeout=LIVE_TIMEOUT
        )
        wait_card(page, 0)
        expect(page.locator("#board .cell[data-card]")).to_have_count(0)
        expect(page.locator("#table-log li")).to_have_count(0)
