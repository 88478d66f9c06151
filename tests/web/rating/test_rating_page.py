"""The rating on the statistics page (docs/rating.md): the player's rating with the "?" of a
provisional one (said in words to screen readers), its history as a chart, and the board of
settled ratings by name; in both languages, on a phone and a desktop, axe-clean. The ratings
are made through the store by the server's own rater (a match's end, not played here)."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable.server.devices.players import player_key
from cardtable.server.rating.rate import Rater
from cardtable.server.rating.scale import PROVISIONAL_SIGMA
from tests.server.helpers import Api
from tests.server.rating.helpers import computer, finish, person
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage

WORDS = {
    "en": {
        "provisional": "provisional",
        "board": "Top ratings",
        "you": "You",
        "none": "Play a rated",
    },
    "ja": {
        "provisional": "暫定",
        "board": "レーティング上位",
        "you": "あなた",
        "none": "レート戦を遊ぶと",
    },
}


def new_player(url: str) -> str:
    with httpx.Client(base_url=url, timeout=30) as client:
        api = Api.new_player(client)  # type: ignore[arg-type]
    assert api.player_id is not None
    return api.player_id


def rated(app: FastAPI, key: str, name: str, matches: int, *, settle: bool = False) -> None:
    """``matches`` rated matches of ``key`` against the normal computer (won, lost, won...);
    with ``settle``, more won until the rating is no longer provisional."""
    rater: Rater = app.state.rater
    tag = secrets.token_hex(4)
    for i in range(40):
        if i >= matches and not settle:
            return
        known = rater.store.ratings([key])
        if i >= matches and key in known and known[key].sigma < PROVISIONAL_SIGMA:
            return
        totals = (9, 1) if i % 2 and i < matches else (0, 7)
        finish(rater, f"{tag}-{i}", (person(key, name), computer("normal")), totals)


def open_stats(new_page: NewPage, player_id: str, phone: bool, lang: str) -> Page:
    script = f"localStorage.setItem('cardtable.player', {player_id!r});"
    page = new_page(init_script=script, phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    page.goto("/stats.html")
    expect(page.locator("#rating-box")).to_have_attribute("data-ready", "true")
    return page


@pytest.mark.parametrize(
    ("lang", "phone"), [("en", False), ("ja", True), ("en", True), ("ja", False)]
)
@pytest.mark.variants("lang", "phone")
def test_a_provisional_rating_its_chart_and_the_board(
    new_page: NewPage, live_app: FastAPI, live_url: str, screenshot_dir: Path, lang: str,
    phone: bool,
) -> None:  # fmt: skip
    pid = new_player(live_url)
    rated(live_app, player_key(pid), "Ann", 3)
    tag = secrets.token_hex(3)
    rated(live_app, f"rival-{tag}", f"Rosa {tag}", 0, settle=True)
    page = open_stats(new_page, pid, phone, lang)
    value = page.locator("#rating-value")
    expect(value.locator(".rating-number")).to_contain_text("?")
    expect(value.locator(".rating-number")).to_have_attribute("aria-hidden", "true")
    expect(value.locator(".visually-hidden")).to_contain_text(WORDS[lang]["provisional"])
    expect(page.locator("#rating-chart svg circle")).to_have_count(3)
    expect(page.locator("#rating-chart svg")).to_have_attribute("role", "img")
    expect(page.locator("#rating-board-title")).to_have_text(WORDS[lang]["board"])
    expect(page.locator("#rating-board li").filter(has_text=f"Rosa {tag}")).to_have_count(1)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= (390 if phone else 1280), f"horizontal overflow: {width}px"
    size = "phone" if phone else "desktop"
    page.locator("#rating-box").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / f"rating-{lang}-{size}.png"), full_page=True)
    check_screen(page, f"stats, rating provisional ({lang}, {size})", phone=phone)


@pytest.mark.parametrize(("lang", "phone"), [("ja", False), ("en", True)])
@pytest.mark.variants("lang", "phone")
def test_a_settled_rating_on_the_board_and_a_new_player(
    new_page: NewPage, live_app: FastAPI, live_url: str, lang: str, phone: bool
) -> None:
    pid = new_player(live_url)
    rated(live_app, player_key(pid), "Mika", 2, settle=True)
    page = open_stats(new_page, pid, phone, lang)
    number = page.locator("#rating-value .rating-number")
    expect(number).not_to_contain_text("?")
    mine = page.locator("#rating-board li.mine")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("Mika")
    expect(mine).to_contain_text(WORDS[lang]["you"])
    check_screen(page, f"stats, rating settled ({lang})", phone=phone)
    # A player with no rated match: 1500?, and a line instead of a chart.
    fresh = open_stats(new_page, new_player(live_url), phone, lang)
    expect(fresh.locator("#rating-value .rating-number")).to_have_text("1500?")
    expect(fresh.locator("#rating-empty")).to_contain_text(WORDS[lang]["none"])
    expect(fresh.locator("#rating-chart")).to_be_hidden()
    check_screen(fresh, f"stats, no rating yet ({lang})", phone=phone)
