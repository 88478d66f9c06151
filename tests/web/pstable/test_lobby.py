"""Making and joining a Poker Squares table in the browser (docs/ps-tables.md): the way in from
the home page and the Poker Squares setup, the create form (point table, time per card, the
remembered name), the lobby (invite link, room code, QR, who has joined, Start for the host
once two are in), joining by the link and by the room code (the Kings Corner form finds these
tables too), and a spectator, who sees the card on show and how many placed it, then the
results. Each state is checked with axe-core (and on a phone for tap targets)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import LIVE_TIMEOUT
from tests.web.pstable.conftest import Device
from tests.web.pstable.helpers import (
    PAGE,
    api_get,
    create_api,
    join_api,
    open_table,
    place_api,
    wait_card,
    wait_phase,
)

LANGS = {"en": "en-US", "ja": "ja-JP"}


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("lang", list(LANGS))
def test_create_form_and_lobby(device: Device, lang: str, size: str) -> None:
    phone = size == "phone"
    host = device(phone=phone, locale=LANGS[lang])
    where = f"({lang}, {size})"
    host.goto("/")
    host.locator("#play-ps-together").click()
    expect(host.locator("#create")).to_be_visible()
    expect(host.locator("html")).to_have_attribute("lang", lang)
    check_screen(host, f"ps table, create {where}", phone=phone)
    host.locator("#create-btn").click()
    expect(host.locator("#create-name-msg")).to_be_visible()
    host.locator("#create-name").fill("Ana")
    host.locator("input[name=table][value=british]").check()
    host.locator("input[name=card_seconds][value='30']").check()
    host.locator("#create-btn").click()
    host.wait_for_url(re.compile(r"poker-squares-table\.html#"))
    token = host.url.split("#", 1)[1]
    wait_phase(host, "lobby")
    table = api_get(host, token)
    assert table["settings"] == {"table": "british", "card_seconds": 30, "max_players": 8}
    assert table["you"] == {"seat": 0, "host": True}
    expect(host.locator("#room-code-text")).to_have_text(f"{table['code'][:3]} {table['code'][3:]}")
    expect(host.locator("#invite-link")).to_have_value(
        re.compile(rf"/poker-squares-table\.html#{token}$")
    )
    host.wait_for_function("() => document.getElementById('qr').naturalWidth > 0")
    expect(host.locator("#lobby-players li")).to_have_count(1)
    expect(host.locator("#lobby-players")).to_contain_text("Ana")
    expect(host.locator("#start-btn")).to_be_disabled()
    check_screen(host, f"ps table, lobby {where}", phone=phone)
    # The name is remembered for the next table.
    host.goto(PAGE)
    expect(host.locator("#create-name")).to_have_value("Ana")


def test_join_by_link_and_by_code(device: Device, console_guard: ConsoleGuard) -> None:
    # The room-code form asks the Kings Corner tables first: Chromium logs their 404 (its
    # text names no address).
    console_guard.allow("404 (Not Found)")
    host = device()
    made = create_api(host, "Ana", card_seconds=15)
    token = made["token"]
    # By the link: the name field and Join.
    friend = device(phone=True)
    open_table(friend, token, "lobby")
    expect(friend.locator("#lobby-title")).to_contain_text("Ana")
    expect(friend.locator("#join-box")).to_be_visible()
    check_screen(friend, "ps table, lobby of a guest (phone)", phone=True)
    friend.locator("#join-name").fill("Ken")
    friend.locator("#join-btn").click()
    expect(friend.locator("#leave-btn")).to_be_visible(timeout=LIVE_TIMEOUT)
    expect(host.locator("#lobby-players")).to_contain_text("Ken", timeout=LIVE_TIMEOUT)
    # The friend's open page is their connection: here, not waiting out a grace period.
    ken = host.locator("#lobby-players li[data-seat='1'] .conn")
    expect(ken).to_have_text("here", timeout=LIVE_TIMEOUT)
    expect(host.locator("#start-btn")).to_be_enabled()
    # By the room code, on the Kings Corner setup's form: it finds this table too.
    third = device(locale="ja-JP")
    third.goto("/kings-corner.html?friends")
    third.locator("#room-code").fill(made["code"].lower())
    third.locator("#code-btn").click()
    third.wait_for_url(re.compile(rf"poker-squares-table\.html#{token}$"))
    wait_phase(third, "lobby")
    third.locator("#join-name").fill("Sora")
    third.locator("#join-btn").click()
    expect(host.locator("#lobby-players li")).to_have_count(3, timeout=LIVE_TIMEOUT)
    host.locator("#start-btn").click()
    for page in (host, friend, third):
        wait_card(page, 0)
    expect(third.locator("#placed-line")).to_have_text("3人中0人が置きました")
    # Someone opening the link now has no seat: the card on show, how many placed it, no grid.
    watcher = device(phone=True)
    open_table(watcher, token, "playing")
    friend.locator("#board .cell.empty").first.click()
    expect(watcher.locator("#placed-line")).to_have_text("1 of 3 placed", timeout=LIVE_TIMEOUT)
    expect(watcher.locator("#current-card")).to_have_attribute("data-index", "0")
    expect(watcher.locator("#watch-label")).to_be_visible()
    expect(watcher.locator(".cell[data-card]")).to_have_count(0)
    check_screen(watcher, "ps table, spectator (phone)", phone=True)


# Deep: a spectator through a whole deal; its fast guards are the watcher in
# test_join_by_link_and_by_code (the card on show, the count, no grid) and in
# test_end.py::test_share_and_rematch (the results).
@pytest.mark.deep
def test_spectator(device: Device) -> None:
    host = device()
    made = create_api(host, "Ana")
    token = made["token"]
    friend = device()
    join_api(friend, token, "Ken")
    host.locator("#start-btn").click()
    wait_phase(host, "playing")
    watcher = device(phone=True, locale="ja-JP")
    open_table(watcher, token, "playing")
    place_api(host, token)
    expect(watcher.locator("#placed-line")).to_have_text(
        "2人中1人が置きました", timeout=LIVE_TIMEOUT
    )
    expect(watcher.locator("#thinking-line")).to_contain_text("Ken")
    expect(watcher.locator("#watch-label")).to_be_visible()
    expect(watcher.locator("#board-wrap")).to_be_hidden()
    expect(watcher.locator(".cell[data-card]")).to_have_count(0)
    check_screen(watcher, "ps table, spectator (ja, phone)", phone=True)
    for _ in range(25 - 1):
        place_api(friend, token)
        place_api(host, token)
    place_api(friend, token)
    wait_phase(watcher, "over")
    expect(watcher.locator("#grids li")).to_have_count(2)
    expect(watcher.locator("#rematch-btn")).to_be_hidden()
    expect(watcher.locator("#share-box")).to_be_hidden()
    check_screen(watcher, "ps table, results of a spectator (ja, phone)", phone=True)
