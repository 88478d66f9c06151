"""The site around the games: home, how-to-play pages, language switch, four-colour cards."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage

PAGES = ["/", "/rules-poker-squares.html", "/rules-kings-corner.html", "/poker-squares.html"]


def test_home_links_both_games(page: Page) -> None:
    page.goto("/")
    expect(page.locator("h1")).to_have_text("Card games at your table")
    expect(page.locator("#play-ps")).to_have_attribute("href", "poker-squares.html")
    expect(page.locator("#play-kc")).to_have_attribute("href", "kings-corner.html")
    expect(page.locator("#rules-ps")).to_have_attribute("href", "rules-poker-squares.html")
    expect(page.locator("#rules-kc")).to_have_attribute("href", "rules-kings-corner.html")
    expect(page.get_by_role("img", name="ace of spades")).to_be_visible()
    page.locator("#rules-ps").click()
    expect(page.locator("article[lang=en] h1")).to_have_text("How to play Poker Squares")


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_home_on_a_phone_shows_both_games_buttons(new_page: NewPage, locale: str) -> None:
    """At 390x844 "Play with friends" is on the first screen, the daily button never touches
    Play, and every control in the page is a 44 px tap target."""
    page = new_page(phone=True, locale=locale)
    page.goto("/")
    expect(page.locator("#daily-home")).to_be_visible()
    friends = page.locator("#friends-kc").bounding_box()
    assert friends is not None and friends["y"] + friends["height"] <= 844, friends
    daily = page.locator("#daily-home").bounding_box()
    play = page.locator("#play-ps").bounding_box()
    assert daily is not None and play is not None
    assert play["y"] - (daily["y"] + daily["height"]) >= 8, (daily, play)
    check_screen(page, f"home on a phone ({locale})", phone=True)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_language_switch(page: Page, path: str) -> None:
    page.goto(path)
    expect(page.locator("[data-set-lang=en]")).to_have_attribute("aria-pressed", "true")
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("[data-set-lang=ja]")).to_have_attribute("aria-pressed", "true")
    # No key is left untranslated or empty.
    texts = page.locator("[data-i18n]:visible").all_inner_texts()
    assert texts and all(t.strip() and "." not in t.split()[0][:12] for t in texts), texts
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    page.locator("[data-set-lang=en]").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_language_defaults_to_the_browser(new_page: NewPage) -> None:
    page = new_page(locale="ja-JP")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("h1")).to_have_text("ブラウザで遊ぶトランプ")
    expect(page.get_by_role("img", name="スペードのエース")).to_be_visible()


def test_rules_pages_in_both_languages(page: Page) -> None:
    page.goto("/rules-poker-squares.html")
    en = page.locator("article[lang=en]")
    expect(en).to_be_visible()
    expect(page.locator("article[lang=ja]")).to_be_hidden()
    for text in ["Royal flush", "100", "Q-K-A-2-3", "Questions", "Tips", "18", "38"]:
        expect(en).to_contain_text(text)
    page.locator("[data-set-lang=ja]").click()
    ja = page.locator("article[lang=ja]")
    expect(ja).to_be_visible()
    expect(en).to_be_hidden()
    for text in ["ロイヤルフラッシュ", "英国式", "よくある質問", "コツ"]:
        expect(ja).to_contain_text(text)
    page.goto("/rules-kings-corner.html")
    expect(page.locator("article[lang=ja]")).to_contain_text("キングスコーナーの遊び方")
    page.locator("[data-set-lang=en]").click()
    kc = page.locator("article[lang=en]")
    for text in ["Kings first", "Draw last", "Simple", "penalty", "Questions", "Tips"]:
        expect(kc).to_contain_text(text)


def test_four_colour_option(page: Page) -> None:
    page.goto("/")
    diamond = page.locator("#sample-cards .suit-D .ink").first
    red = diamond.evaluate("el => getComputedStyle(el).fill")
    page.locator("#settings-open").click()
    page.locator("#opt-four-colour").check()
    page.locator("[data-close]").click()
    expect(page.locator("html")).to_have_class(re.compile("four-colour"))
    blue = diamond.evaluate("el => getComputedStyle(el).fill")
    assert red != blue and blue == "rgb(10, 85, 200)", (red, blue)
    page.reload()
    expect(page.locator("html")).to_have_class(re.compile("four-colour"))


def test_rules_page_states_the_servers_grace_period(tmp_path: Path) -> None:
    """The online section of the Kings Corner rules gives the grace period the server runs
    with (Settings.online.grace_seconds), not a figure written into the page."""
    settings = Settings(
        data_dir=tmp_path, database_url=None, online=OnlineSettings(grace_seconds=45.0)
    )
    with TestClient(create_app(settings)) as client:
        page = client.get("/rules-kings-corner.html")
    assert page.status_code == 200
    assert "waits 45 seconds for them to come back" in page.text
    assert "45秒のあいだ戻りを待ちます" in page.text
    assert "60 seconds for them" not in page.text


def test_a_second_visit_asks_the_server_again_for_the_page_alone(new_page: NewPage) -> None:
    """The import map gives every module, string table and style sheet a versioned URL, cached
    for a year: a second visit revalidates the page and fetches no module again (before it,
    every load asked again for each of 20-34 modules and got a 304). The one other file asked
    again may be the card back, which two style sheets name by plain URL."""
    page = new_page(fresh=True)
    strings = "**/assets/i18n/en.json?v=*"
    with page.expect_response(strings):
        page.goto("/kings-corner.html")
    asked: list[tuple[str, int]] = []
    page.on("response", lambda r: asked.append((r.url.split("/", 3)[3], r.status)))
    with page.expect_response(strings):
        page.goto("/kings-corner.html")
    modules = [url for url, _ in asked if url.startswith("assets/js/")]
    assert len(modules) >= 15 and all("?v=" in url for url in modules), modules
    served = [url for url, status in asked if status == 304 or "?v=" not in url]
    assert served[0] == "kings-corner.html", asked
    assert set(served) <= {"kings-corner.html", "assets/img/card-back.svg"}, asked
