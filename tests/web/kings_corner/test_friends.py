"""Playing with friends as a way in of its own (issue 29, item 1): "Play with friends" on the
home page and on the Kings Corner page leads straight to a table with invite seats, the
settings then speak of an online table (never of people sharing this device), and creating
it opens the online table's lobby with its room code and invite link. In English and
Japanese, at 390x844 and 1280x800; each new state is photographed and passes axe-core (and
the 44 px tap-target check on a phone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.kc_helpers import KC

LANGS = {"en": "en-US", "ja": "ja-JP"}
TEXT = {
    "en": {
        "home_button": "Play with friends",
        "home_text": "play with friends online",
        "create": "Create table",
        "online_note": "Friends join on their own devices",
        "shared_note": "People share this device",
        "computer_note": "You play against the computer",
    },
    "ja": {
        "home_button": "友だちと遊ぶ",
        "home_text": "友だちとそれぞれの端末でオンライン",
        "create": "テーブルを作る",
        "online_note": "友だちはそれぞれ自分の端末から参加します",
        "shared_note": "1台を回して遊びます",
        "computer_note": "コンピューターと対戦します",
    },
}


def visible_seat_choices(page: Page) -> list[str]:
    values: list[str] = page.eval_on_selector_all(
        "[data-seat-row]:not([hidden]) select", "nodes => nodes.map(n => n.value)"
    )
    return values


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_play_with_friends_from_the_home_page(
    new_page: NewPage, screenshot_dir: Path, phone: bool, lang: str
) -> None:
    page = new_page(phone=phone, locale=LANGS[lang])
    text = TEXT[lang]
    size = "phone" if phone else "desktop"
    page.goto("/")
    button = page.locator("#friends-kc")
    expect(button).to_have_text(text["home_button"])
    expect(button).to_have_attribute("href", "kings-corner.html?friends")
    expect(page.locator(".game-card").nth(1)).to_contain_text(text["home_text"])
    page.screenshot(path=str(screenshot_dir / f"friends-home-{size}-{lang}.png"), full_page=True)
    check_screen(page, f"home, play with friends ({size}, {lang})", phone=phone)

    # One tap: the settings with every other seat a friend to invite, the keyboard on the name.
    button.click()
    expect(page.locator("#online-options")).to_be_visible()
    assert visible_seat_choices(page) == ["invite"]
    expect(page.locator("#host-name")).to_be_focused()
    expect(page.locator("#start-btn")).to_have_text(text["create"])
    expect(page.locator("#friends-box")).to_be_hidden()
    note = page.locator("#seats-note")
    expect(note).to_contain_text(text["online_note"])
    expect(note).not_to_contain_text(text["shared_note"])
    page.screenshot(path=str(screenshot_dir / f"friends-setup-{size}-{lang}.png"), full_page=True)
    check_screen(page, f"kings corner settings, play with friends ({size}, {lang})", phone=phone)

    # Creating it opens the online table's lobby: a room code and an invite link to share.
    page.locator("#host-name").fill("Ana")
    page.locator("#start-btn").click()
    expect(page).to_have_url(re.compile(r"kings-corner-online\.html#"))
    expect(page.locator("#lobby")).to_be_visible()
    expect(page.locator("#room-code-text")).not_to_be_empty()
    token = page.url.split("#", 1)[1]
    expect(page.locator("#invite-link")).to_have_value(re.compile(token))

    # The Kings Corner page's own way in, above the settings.
    page.goto(KC)
    expect(page.locator("#friends-btn")).to_be_visible()
    page.screenshot(path=str(screenshot_dir / f"friends-box-{size}-{lang}.png"))
    check_screen(
        page, f"kings corner settings with Play with friends ({size}, {lang})", phone=phone
    )


def test_friends_button_on_the_kings_corner_page(page: Page) -> None:
    """On the Kings Corner page itself: with four players every other seat becomes an invite;
    the settings go back to the one-device note once no seat is an invite."""
    page.goto(KC)
    expect(page.locator("#setup")).to_be_visible()
    expect(page.locator("#friends-box")).to_be_visible()
    expect(page.locator("#seats-note")).to_contain_text(TEXT["en"]["computer_note"])
    page.locator("input[name=players][value='4']").check()
    page.locator("#friends-btn").click()
    assert visible_seat_choices(page) == ["invite", "invite", "invite"]
    expect(page.locator("#host-name")).to_be_focused()
    expect(page.locator("#seats-note")).to_contain_text(TEXT["en"]["online_note"])
    # A computer at one seat: still an online table.
    page.locator("#seat-2").select_option("computer:strong")
    expect(page.locator("#seats-note")).to_contain_text(TEXT["en"]["online_note"])
    expect(page.locator("#start-btn")).to_have_text("Create table")
    # No invite left: a match on this device again.
    page.locator("#seat-1").select_option("computer:normal")
    page.locator("#seat-3").select_option("human")
    expect(page.locator("#seats-note")).to_contain_text(TEXT["en"]["shared_note"])
    expect(page.locator("#online-options")).to_be_hidden()
    expect(page.locator("#friends-box")).to_be_visible()
    expect(page.locator("#start-btn")).to_have_text("Deal")


def test_friends_link_opens_the_settings_over_an_unfinished_match(
    page: Page, live_app: FastAPI
) -> None:
    """?friends shows the settings even when a match on this device would resume."""
    page.goto(KC)
    page.locator("#start-btn").click()
    expect(page.locator("#table")).to_be_visible()
    page.goto(f"{KC}?friends")
    expect(page.locator("#setup")).to_be_visible()
    expect(page.locator("#continue-box")).to_be_visible()
    assert visible_seat_choices(page) == ["invite"]
    expect(page.locator("#host-name")).to_be_focused()


@pytest.mark.parametrize("lang", list(LANGS))
def test_rules_explain_online_play(new_page: NewPage, live_app: FastAPI, lang: str) -> None:
    """The rules page explains the invite (link, code, QR), the grace period with its length
    as the server has it, stand-ins and the turn timer."""
    grace = round(live_app.state.runtime.settings.online.grace_seconds)
    page = new_page(locale=LANGS[lang])
    page.goto("/rules-kings-corner.html")
    section = page.locator(f"#{lang}-online")
    expect(section).to_be_visible()
    body = page.locator(f"article[lang={lang}]")
    words = {
        "en": [f"{grace} seconds", "invite link", "room code", "QR code", "stand-in", "30 seconds"],
        "ja": [
            f"{grace}秒",
            "招待リンク",
            "ルームコード",
            "QRコード",
            "代わりに打ちます",
            "持ち時間",
        ],
    }[lang]
    for word in words:
        expect(body).to_contain_text(word)
    expect(page.locator(f"article[lang={lang}] .toc a[href='#{lang}-online']")).to_be_visible()


@pytest.mark.parametrize("lang", list(LANGS))
def test_against_the_computer_the_note_says_so(new_page: NewPage, lang: str) -> None:
    """Issue 44: against the computer alone the settings do not speak of people sharing
    this device; with a second person at it they do."""
    page = new_page(phone=True, locale=LANGS[lang])
    page.goto(KC)
    note = page.locator("#seats-note")
    expect(note).to_contain_text(TEXT[lang]["computer_note"])
    expect(note).not_to_contain_text(TEXT[lang]["shared_note"])
    page.locator("#seat-1").select_option("human")
    expect(note).to_contain_text(TEXT[lang]["shared_note"])
    page.locator("#seat-1").select_option("computer:strong")
    expect(note).to_contain_text(TEXT[lang]["computer_note"])
