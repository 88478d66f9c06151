"""Kings Corner online in the browser (issue 13, docs/online.md): each device is its own
browser context on one real server with fast online timings (tests/web/online_helpers.py).

- a whole match of one round with three devices (a desktop host, a friend by link, a friend
  on a Japanese phone by room code) and a spectator: names shown as text, the lobby and the
  table checked with axe-core and for tap targets, no hand (and no hidden card) on the
  spectator's page, others' moves arriving live, the end for everyone, then the rematch with
  one press each;
- leaving and coming back: a reload mid-turn, a closed device (reconnecting countdown, then
  away with a computer playing and the host's Remove seat), the person returning;
- the turn timer running out (a computer finishes the turn), and the language switch.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.a11y import assert_no_axe_violations, assert_tap_targets
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    LIVE_TIMEOUT,
    PAGE,
    api_get,
    api_post,
    create_table,
    create_table_api,
    join_by_code,
    join_by_link,
    open_device,
    open_table,
    play_round,
    play_turn,
    start_match,
    wait_phase,
    wait_turn,
    wait_version,
)
from tests.web.online_helpers import online_server as serve_online

Device = Callable[..., Page]
GRACE = 2.5


@pytest.fixture(scope="module")
def online_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(tmp_path_factory.mktemp("online-web"), grace=GRACE, step=0.1) as url:
        yield url


@pytest.fixture
def device(browser: Browser, online_url: str, console_guard: ConsoleGuard) -> Iterator[Device]:
    """Opens a device (a new browser context) on the online server; closed after the test."""
    pages: list[Page] = []
    # Chromium logs every refused request (a 409 when two devices race) as a console error.
    console_guard.allow("409 (Conflict)")

    def make(**options: Any) -> Page:
        page = open_device(browser, online_url, console_guard, **options)
        pages.append(page)
        return page

    yield make
    for page in pages:
        page.context.close()


def hand_codes(page: Page) -> list[str]:
    codes: list[str] = page.locator("#hand .hand-card").evaluate_all(
        "els => els.map(e => e.dataset.card)"
    )
    return codes


def test_a_match_on_three_devices_with_a_spectator_then_a_rematch(device: Device) -> None:
    host = device()
    token = create_table(host, seats=["invite", "invite"], name="Ana <b>&amp;</b>")
    code = api_get(host, token)["code"]
    expect(host.locator("#room-code-text")).to_have_text(f"{code[:3]} {code[3:]}")
    expect(host.locator("#invite-link")).to_have_value(
        re.compile(rf"/kings-corner-online\.html#{token}$")
    )
    qr = host.locator("#qr")
    expect(qr).to_have_attribute("alt", "QR code of the invite link")
    assert host.evaluate("() => document.getElementById('qr').naturalWidth") > 0
    host.locator("#copy-btn").click()
    assert host.evaluate("() => navigator.clipboard.readText()").endswith(f"#{token}")
    expect(host.locator("#start-match-btn")).to_be_disabled()

    ben = device()
    join_by_link(ben, token, "Ben")
    chie = device(phone=True, locale="ja-JP")
    assert join_by_code(chie, code, "ちえ") == token
    # Every device sees who has joined, names as text (never markup).
    for page in (host, ben, chie):
        expect(page.locator(".lobby-seat-name")).to_have_count(3, timeout=LIVE_TIMEOUT)
        expect(page.locator(".lobby-seat .conn.online")).to_have_count(3, timeout=LIVE_TIMEOUT)
    expect(ben.locator(".lobby-seat[data-seat='0'] .lobby-seat-name")).to_have_text(
        "Ana <b>&amp;</b>"
    )
    assert ben.locator("#lobby-seats b").count() == 0
    expect(host.locator(".lobby-seat[data-seat='2'] .lobby-seat-name")).to_have_text("ちえ")
    expect(chie.locator("#lobby-title")).to_have_text("参加者を待っています")
    expect(chie.locator("#lobby-status")).to_have_text("ホストが始めるのを待っています。")
    expect(host.locator("#start-match-btn")).to_be_enabled()
    assert_no_axe_violations(host, "online lobby, host (desktop)")
    assert_no_axe_violations(chie, "online lobby, friend (phone, Japanese)")
    assert_tap_targets(chie, "online lobby (phone)", within="main")

    watcher = device()
    open_table(watcher, token)
    expect(watcher.locator("#lobby-status")).to_have_text("Every seat is taken: you can watch.")
    expect(watcher.locator("button.take-seat")).to_have_count(0)

    start_match(host, seed=98)
    for page in (ben, chie, watcher):
        wait_phase(page, "play")
    # The spectator: a clear label, no hand, and no card of any hand anywhere in its page.
    expect(watcher.locator("#watch-label")).to_be_visible()
    expect(watcher.locator("#hand .hand-card")).to_have_count(0)
    expect(watcher.locator("#end-btn")).to_be_hidden()
    html = watcher.content()
    hands = {p: hand_codes(p) for p in (host, ben, chie)}
    assert all(len(h) >= 7 for h in hands.values())
    for cards in hands.values():
        for card in cards:
            assert f'data-card="{card}"' not in html, f"{card} of a hand is in the spectator's page"
    # Each device shows only its own hand, and every seat's card count.
    assert not set(hands[host]) & set(hands[ben])
    counts = watcher.locator("#seats .seat-count").evaluate_all(
        "els => els.map(e => +e.dataset.count)"
    )
    assert sorted(counts)[-1] >= 7 and len(counts) == 3
    assert_no_axe_violations(chie, "online table (phone, Japanese)")
    assert_tap_targets(chie, "online table (phone)", within="main")

    # A move made on one device arrives on the others and is said in their live region.
    first = api_get(watcher, token)
    mover = {0: host, 1: ben, 2: chie}[first["turn"]["seat"]]
    play_turn(mover, token)
    after = api_get(watcher, token)["version"]
    for page in (host, ben, chie, watcher):
        wait_version(page, after)
    expect(watcher.locator("#move-log li").first).not_to_be_empty()

    final = play_round([host, ben, chie], token, clicked_turns=1)
    assert final["phase"] == "match_over"
    totals = [str(t) for t in final["match"]["totals"]]
    for page in (host, ben, chie, watcher):
        wait_phase(page, "match_over")
        expect(page.locator("#end")).to_be_visible()
        expect(page.locator("#end-table td.total")).to_have_text(totals)
    expect(watcher.locator("#rematch-btn")).to_have_count(0)
    assert_no_axe_violations(host, "online match over (desktop)")

    # The rematch: one press each, everyone sees who is ready; the last press deals.
    host.locator("#rematch-btn").click()
    expect(host.locator("#rematch-btn")).to_be_disabled()
    expect(ben.locator(".seat[data-seat='0'] .rematch-tag")).to_be_visible(timeout=LIVE_TIMEOUT)
    expect(host.locator("#rematch-status")).to_contain_text("Ben")
    ben.locator("#rematch-btn").click()
    expect(chie.locator(".seat .rematch-tag")).to_have_count(2, timeout=LIVE_TIMEOUT)
    chie.route(
        re.compile(r"/rematch$"),
        lambda r: r.continue_(headers={**r.request.headers, "x-test-seed": "12"}),
    )
    chie.locator("#rematch-btn").click()
    for page in (host, ben, chie, watcher):
        wait_phase(page, "play")
        expect(page.locator("#end")).to_be_hidden()
        expect(page.locator("#seats .seat-total").first).to_have_attribute("data-total", "0")


def test_leaving_and_coming_back(device: Device, online_url: str) -> None:
    host = device()
    made = create_table_api(
        host,
        {
            "name": "Host",
            "seats": [{"kind": "me"}, {"kind": "invite"}],
            "rules": {"preset": "standard"},
            "rounds": 1,
        },
    )
    token = made["token"]
    friend = device(reduced_motion=True)
    join_by_link(friend, token, "Dee")
    start_match(host, seed=5)
    wait_phase(friend, "play")

    # A reload mid-turn: the device reconnects and carries on with the same hand.
    table = wait_turn(friend, token)
    version = table["version"]
    wait_version(friend, version)
    before = hand_codes(friend)
    friend.reload()
    # (Its seat was "reconnecting" for a moment and is "online" again: two more versions.)
    wait_version(friend, version)
    expect(friend.locator("#hand")).to_have_class(re.compile(r"my-turn"), timeout=LIVE_TIMEOUT)
    assert sorted(hand_codes(friend)) == sorted(before)
    expect(friend.locator("#turn-line")).to_contain_text("Your turn")
    play_turn(friend, token)

    # Closed: the others see "reconnecting" counting down, then "away" with a computer
    # playing that seat, and the host may remove the seat.
    context = friend.context
    friend.close()
    seat = host.locator("#seats .seat[data-seat='1']")
    expect(seat.locator(".conn.reconnecting")).to_contain_text(
        re.compile(r"reconnecting 0:0\d"), timeout=LIVE_TIMEOUT
    )
    expect(seat.locator(".conn.away")).to_have_text("away: computer playing", timeout=LIVE_TIMEOUT)
    expect(host.locator("#remove-seat-1")).to_be_visible()
    # The stand-in plays Dee's turns while the host plays theirs.
    closed_at = max((e["n"] for e in api_get(host, token)["log"]), default=0)
    for _ in range(2):
        table = wait_turn(host, token)
        if table["phase"] != "play":
            break
        play_turn(host, token)
    log = api_get(host, token)["log"]
    assert any(e["seat"] == 1 and e["n"] > closed_at for e in log), "the stand-in never played"
    expect(host.locator("#move-log")).to_contain_text("Dee")

    # Back from the same browser: online again, and the seat is theirs at their next turn.
    back = context.new_page()
    back.goto(f"/kings-corner-online.html#{token}")
    expect(seat.locator(".conn.online")).to_be_visible(timeout=LIVE_TIMEOUT)
    expect(host.locator("#remove-seat-1")).to_have_count(0)
    played = False
    for _ in range(40):
        table = api_get(host, token)
        if table["phase"] != "play":
            break
        seat_to_play = table["turn"]["seat"]
        if seat_to_play == 1 and not table["seats"][1]["stand_in"]:
            expect(back.locator("#hand")).to_have_class(
                re.compile(r"my-turn"), timeout=LIVE_TIMEOUT
            )
            expect(back.locator("#turn-line")).to_contain_text("Your turn")
            play_turn(back, token)
            played = True
            break
        if seat_to_play == 0:
            play_turn(host, token)
        else:
            time.sleep(0.2)  # the stand-in finishes the turn it was in
    assert played or table["phase"] != "play", "Dee never had the seat back"


def test_turn_timer_and_language(device: Device) -> None:
    host = device()
    friend = device(locale="ja-JP")
    body = {
        "name": "Eve",
        "seats": [{"kind": "me"}, {"kind": "invite"}],
        "rules": {"preset": "standard"},
        "rounds": 1,
        "turn_timer": 2,
    }
    token = create_table_api(host, body)["token"]
    expect(host.locator("#lobby-rules")).to_contain_text("Turn timer: 2 s")
    # The language switch re-fills the page in place.
    host.locator("[data-set-lang=ja]").click()
    expect(host.locator("#lobby-title")).to_have_text("参加者を待っています")
    expect(host.locator("#lobby-rules")).to_contain_text("持ち時間：2秒")
    host.locator("[data-set-lang=en]").click()
    expect(host.locator("#lobby-title")).to_have_text("Waiting for players")
    # Without an invite link the page asks for a room code (here in Japanese).
    friend.goto(PAGE)
    expect(friend.locator("#code-entry h1")).to_have_text("キングスコーナー オンライン")
    friend.locator("#room-code").fill("0O1IL")
    friend.locator("#code-btn").click()
    expect(friend.locator("#error")).to_have_text(re.compile("K7QM2X"))
    assert_no_axe_violations(friend, "online page without a link (Japanese)")
    join_by_link(friend, token, "Fumi")
    api_post(host, token, "start", {}, seed=3)
    wait_phase(host, "play")
    first = api_get(host, token)["turn"]["seat"]
    idle = host if first == 0 else friend
    watcher = friend if first == 0 else host
    # Nobody moves: the countdown shows, then a computer finishes the turn.
    expect(idle.locator("#timer-line")).to_be_visible()
    left = re.compile(r"(Time left|残り時間) ?0:0[0-2]")
    expect(watcher.locator("#timer-line")).to_have_text(left)
    expect(watcher.locator("#table")).to_have_attribute(
        "data-to-play", str(1 - first), timeout=LIVE_TIMEOUT
    )
    log = api_get(host, token)["log"]
    assert any(e["seat"] == first and e["move"] == "end" for e in log)
