"""Kings Corner online in the browser (issue 13, docs/online.md): each device is its own
browser context on one real server with fast online timings (tests/web/online_helpers.py).

- a whole match of one round with three devices (a desktop host, a friend by link, a friend
  on a Japanese phone by room code) and a spectator: names shown as text, the lobby and the
  table checked with axe-core and for tap targets, no hand (and no hidden card) on the
  spectator's page, others' moves arriving live, the end for everyone, then the rematch with
  one press each;
- leaving and coming back: a reload mid-turn, a closed device (reconnecting countdown, then
  away with a computer playing and the host's Computer for good), the person returning;
- the turn timer running out (a computer finishes the turn), and the language switch.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.a11y import assert_no_axe_violations, assert_tap_targets
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    API,
    LIVE_TIMEOUT,
    PAGE,
    api_get,
    api_post,
    connect_live,
    create_table,
    create_table_api,
    devices,
    join_by_code,
    join_by_link,
    open_table,
    play_round,
    play_turn,
    play_turn_api,
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
    with devices(browser, online_url, console_guard) as make:
        yield make


SHARE_SHEET = (
    "window.__shared = []; navigator.share = async (data) => { window.__shared.push(data); };"
)


def seat_option(host: Page, seat: int, action: str) -> None:
    """The host opens an absent seat's options (its state line) and picks ``action``."""
    host.locator(f"#seat-options-{seat}").click()
    host.locator(f"#{action}-{seat}").click()
    expect(host.locator("#seat-options")).to_be_hidden()


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

    # The host picks a strength for seat 2 and keeps the keyboard on it; Ben joining (the
    # lobby drawn again) changes neither.
    strength = host.locator("#strength-2")
    strength.select_option("strong")
    strength.focus()
    ben = device()
    join_by_link(ben, token, "Ben")
    expect(host.locator(".lobby-seat[data-seat='1'] .lobby-seat-name")).to_have_text(
        "Ben", timeout=LIVE_TIMEOUT
    )
    expect(strength).to_have_value("strong")
    # (Not to_be_focused: the host's page is not the browser's focused window any more.)
    assert host.evaluate("() => document.activeElement?.id") == "strength-2"
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
    # Whose table it is, for a friend opening the invite (the host's name, as text).
    expect(chie.locator("#lobby-title")).to_have_text(
        "Ana <b>&amp;</b>さんのテーブル：参加者を待っています"
    )
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
    board_before = host.locator("#board-wrap").bounding_box()
    context = friend.context
    friend.close()
    seat = host.locator("#seats .seat[data-seat='1']")
    expect(seat.locator(".conn.reconnecting")).to_contain_text(
        re.compile(r"reconnecting 0:0\d"), timeout=LIVE_TIMEOUT
    )
    expect(seat.locator(".conn.away")).to_have_text("away: computer playing", timeout=LIVE_TIMEOUT)
    # The host's options for the seat open from its state line, in a dialog: the seat does
    # not grow a row of buttons that pushes the other seats and the board down.
    options = host.locator("#seat-options-1")
    # Its name is its content (the countdown stays current): the state, then whose seat.
    expect(options).to_have_accessible_name(
        re.compile(r"^away: computer playing\s*: options for Dee's seat")
    )
    board_after = host.locator("#board-wrap").bounding_box()
    assert board_before and board_after
    assert board_after["y"] - board_before["y"] <= 30, (board_before, board_after)
    options.click()
    remove = host.locator("#remove-seat-1")
    expect(remove).to_have_text("Computer for good")
    # Its name says how it differs from the stand-in already playing.
    expect(remove).to_have_attribute(
        "aria-label", re.compile(r"^Computer for good: .*cannot take it back")
    )
    expect(host.locator("#invite-new-1")).to_be_visible()
    assert_no_axe_violations(host, "the host's options for an away seat")
    host.keyboard.press("Escape")
    expect(host.locator("#seat-options")).to_be_hidden()
    expect(options).to_be_focused()
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
    expect(host.locator("#seat-options-1")).to_have_count(0)
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
    # A phone's share sheet: the invite offers it beside "Copy link".
    host.add_init_script(SHARE_SHEET)
    made = create_table_api(host, body)
    token = made["token"]
    expect(host.locator("#lobby-rules")).to_contain_text("Turn timer: 2 s")
    expect(host.locator("#lobby-rules")).to_contain_text("Rounds: 1")
    host.locator("#share-btn").click()
    expect(host.locator("#live")).to_have_text("Shared.")
    shared = host.evaluate("() => window.__shared")
    assert len(shared) == 1, shared
    assert shared[0]["text"] == f"Play Kings Corner at my table. Room code {made['code']}."
    assert shared[0]["url"].endswith(f"/kings-corner-online.html#{token}"), shared
    # The language switch re-fills the page in place.
    host.locator("[data-set-lang=ja]").click()
    expect(host.locator("#lobby-title")).to_have_text("あなたのテーブル：参加者を待っています")
    expect(host.locator("#lobby-rules")).to_contain_text("持ち時間：2秒")
    expect(host.locator("#lobby-rules")).to_contain_text("ラウンド数：1")
    host.locator("[data-set-lang=en]").click()
    expect(host.locator("#lobby-title")).to_have_text("Your table: waiting for players")
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
    # The log says the time ran out, and whose computer finished the turn.
    expect(watcher.locator("#move-log li[data-note='timer']")).to_have_count(1)
    expect(watcher.locator("#move-log li[data-by='timer']").first).to_contain_text(
        re.compile(r"Computer for|の代打ち")
    )


# -- issue 29: the table's story, your turn, the rematch line, the end's hands -----------------
STORY_GRACE = 30.0
"""A grace period long enough for the host to act on a seat that is still "reconnecting"."""
LANGS = [("en-US", False), ("ja-JP", True)]
"""(locale, phone) of the host; the other devices take the other pair, so every test runs in
both languages and at both sizes."""
WORDS = {
    "en-US": {"for": "Computer for ちか", "away": "While you were away", "turn": "▶ Your turn"},
    "ja-JP": {"for": "CPU（ちかの代打ち）", "away": "離れている間に", "turn": "▶ あなたの番"},
}


@pytest.fixture(scope="module")
def story_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(tmp_path_factory.mktemp("online-story"), grace=STORY_GRACE, step=0.1) as url:
        yield url


@pytest.fixture
def story_device(browser: Browser, story_url: str, console_guard: ConsoleGuard) -> Iterator[Device]:
    """A device on the server with the long grace period; closed after the test."""
    with devices(browser, story_url, console_guard) as make:
        yield make


def other(lang: tuple[str, bool]) -> tuple[str, bool]:
    return LANGS[1] if lang == LANGS[0] else LANGS[0]


def shot(page: Page, screenshot_dir: Path, name: str, locale: str) -> None:
    page.screenshot(path=str(screenshot_dir / f"online-{name}-{locale[:2]}.png"), full_page=True)


def api_player(page: Page) -> str:
    """A player id made through the API for a person with no browser (never connects live)."""
    return str(page.request.post("/api/players").json()["player_id"])


def api_join(page: Page, token: str, pid: str, name: str) -> None:
    version = api_get(page, token)["version"]
    answer = page.request.post(
        f"{API}/{token}/join",
        data=json.dumps({"version": version, "name": name}),
        headers={"X-Player-Id": pid, "Content-Type": "application/json"},
    )
    assert answer.ok, answer.text()


@pytest.mark.parametrize("lang", LANGS, ids=["en-desktop-host", "ja-phone-host"])
def test_the_log_tells_a_drop_a_stand_in_move_and_a_return(
    story_device: Device, lang: tuple[str, bool], screenshot_dir: Path
) -> None:
    locale, phone = lang
    f_locale, f_phone = other(lang)
    host = story_device(locale=locale, phone=phone)
    made = create_table_api(
        host, {"name": "Ana", "seats": [{"kind": "me"}, {"kind": "invite"}], "rounds": 1}
    )
    token = made["token"]
    friend = story_device(locale=f_locale, phone=f_phone)
    join_by_link(friend, token, "ちか")
    # The grace period is stated in the lobby's rules.
    grace = "30 s" if locale == "en-US" else "30秒"
    expect(host.locator("#lobby-rules")).to_contain_text(grace)
    start_match(host, seed=21)
    wait_phase(friend, "play")
    expect(host.locator("#seats .seat[data-seat='1'] .conn.online")).to_be_visible(
        timeout=LIVE_TIMEOUT
    )

    # ちか's device goes: the log and the live line say so, with the grace period's length.
    context = friend.context
    friend.close()
    log = host.locator("#move-log")
    expect(log.locator("li[data-note='drop']")).to_contain_text("ちか", timeout=LIVE_TIMEOUT)
    expect(host.locator("#message")).to_contain_text("ちか")
    expect(host.locator("#presence-line")).to_contain_text(grace)
    expect(host.locator("#live-log p").last).to_contain_text("ちか")
    # The host does not wait 30 s: the computer plays for ちか now.
    seat_option(host, 1, "hand-now")
    expect(log.locator("li[data-note='handed']")).to_have_count(1, timeout=LIVE_TIMEOUT)
    expect(host.locator("#seats .seat[data-seat='1'] .conn.away")).to_be_visible()
    deadline = time.monotonic() + 30
    while not api_get(host, token)["log"] or not any(
        e.get("by") == "stand_in" for e in api_get(host, token)["log"]
    ):
        assert time.monotonic() < deadline, "the stand-in never moved"
        table = api_get(host, token)
        if table["phase"] != "play":
            break
        if table["turn"]["seat"] == 0:
            play_turn_api(host, token)
        else:
            time.sleep(0.1)
    stand_in = log.locator("li[data-by='stand_in']").first
    expect(stand_in).to_contain_text(WORDS[locale]["for"], timeout=LIVE_TIMEOUT)
    assert_no_axe_violations(host, f"online log with a drop and a stand-in ({locale})")
    if phone:
        assert_tap_targets(host, "online table, host tools on an away seat (phone)", within="main")
    shot(host, screenshot_dir, "story-host", locale)

    # ちか comes back from the same browser: "back" in the host's log, and a summary for ちか.
    back = context.new_page()
    back.goto(f"{PAGE}#{token}")
    expect(log.locator("li[data-note='back']")).to_contain_text("ちか", timeout=LIVE_TIMEOUT)
    summary = back.locator("#away-summary")
    expect(summary).to_be_visible(timeout=LIVE_TIMEOUT)
    expect(summary.locator("h2")).to_have_text(WORDS[f_locale]["away"])
    # Issue 44: opaque over the table, so its text never sits on the cards under it.
    assert summary.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(15, 45, 32)"
    made_for_me = [e for e in api_get(back, token)["log"] if e.get("by") and e["seat"] == 1]
    assert made_for_me
    expect(summary.locator("li")).not_to_have_count(0)
    expect(summary).to_contain_text(str(len([e for e in made_for_me if e["move"] != "end"])))
    assert_no_axe_violations(back, f"while you were away ({f_locale})")
    if f_phone:
        assert_tap_targets(back, "while you were away (phone)", within="main")
    shot(back, screenshot_dir, "away-summary", f_locale)
    back.locator("#away-ok").click()
    expect(summary).to_be_hidden()
    # Focus goes on to the table, not back to the top of the page (issue 44).
    expect(back.locator("#table-title")).to_be_focused()


@pytest.mark.parametrize("lang", LANGS, ids=["en-desktop-host", "ja-phone-host"])
def test_the_title_changes_on_your_turn_and_a_notification_when_hidden(
    story_device: Device, lang: tuple[str, bool], screenshot_dir: Path
) -> None:
    locale, phone = lang
    f_locale, f_phone = other(lang)
    host = story_device(locale=locale, phone=phone)
    token = create_table_api(
        host, {"name": "Ana", "seats": [{"kind": "me"}, {"kind": "invite"}], "rounds": 1}
    )["token"]
    friend = story_device(locale=f_locale, phone=f_phone)
    # The friend's browser: notifications allowed, the tab "hidden" on demand, and every
    # notification recorded.
    friend.add_init_script(
        """
        window.__shown = [];
        window.__hidden = false;
        Object.defineProperty(document, 'hidden', { get: () => window.__hidden });
        window.Notification = class {
          static permission = 'default';
          static requestPermission() { window.Notification.permission = 'granted';
                                      return Promise.resolve('granted'); }
          constructor(title, options) { window.__shown.push([title, options.body]); }
          close() {}
        };
        """
    )
    join_by_link(friend, token, "ちか")
    api_post(host, token, "start", {}, seed=4)
    wait_phase(friend, "play")
    turn_title = WORDS[f_locale]["turn"]
    friend.locator("#notify-btn").click()
    expect(friend.locator("#notify-btn")).to_have_attribute("aria-pressed", "true")
    expect(friend.locator("#notify-note")).to_be_visible()
    if api_get(host, token)["turn"]["seat"] == 1:
        api_post(friend, token, "moves", {"move": "end"})  # the friend's first turn
    wait_version(friend, api_get(host, token)["version"])
    assert not friend.title().startswith("▶"), friend.title()
    base = friend.title()
    friend.evaluate("() => { window.__hidden = true; }")
    # The host moves on another device: the friend's title (and notification) say it is theirs.
    api_post(host, token, "moves", {"move": "end"})
    friend.wait_for_function(
        "t => document.title.startsWith(t)", arg=turn_title, timeout=LIVE_TIMEOUT
    )
    assert friend.title().split() == f"{turn_title} · {base}".split()
    shown = friend.evaluate("() => window.__shown")
    assert len(shown) == 1 and shown[0][0] in (
        "Your turn at Kings Corner",
        "キングスコーナー：あなたの番です",
    )
    assert_no_axe_violations(friend, f"your turn, notifications on ({f_locale})")
    shot(friend, screenshot_dir, "your-turn", f_locale)
    # After the turn the title is the page's own again.
    friend.evaluate("() => { window.__hidden = false; }")
    play_turn(friend, token)
    friend.wait_for_function("t => document.title === t", arg=base, timeout=LIVE_TIMEOUT)


@pytest.mark.parametrize("lang", LANGS, ids=["en-desktop-host", "ja-phone-host"])
def test_end_shows_every_hand_and_the_rematch_waits_only_for_those_present(
    story_device: Device, lang: tuple[str, bool], screenshot_dir: Path
) -> None:
    locale, phone = lang
    host = story_device(locale=locale, phone=phone)
    body = {"name": "Ana", "seats": [{"kind": "me"}] + [{"kind": "invite"}] * 3, "rounds": 1}
    token = create_table_api(host, body)["token"]
    names = ["Bob", "Cy", "Dee"]
    players = [api_player(host) for _ in names]
    for pid, name in zip(players, names, strict=True):
        api_join(host, token, pid, name)
    start_match(host)  # a fair deal: the end panel links to the shuffle's verification
    # Nobody but the host has a browser: the host hands the three seats to the computer, all
    # at once through the API (a stand-in may go out on its first turn and end the match
    # before a second click; the menu's "hand-now" is clicked in
    # test_the_log_tells_a_drop_a_stand_in_move_and_a_return).
    for seat in (1, 2, 3):
        api_post(host, token, f"seats/{seat}/stand-in", {})
    for seat in (1, 2, 3):
        expect(host.locator(f"#seats .seat[data-seat='{seat}'] .conn.away")).to_be_visible(
            timeout=LIVE_TIMEOUT
        )
    deadline = time.monotonic() + 60
    while (table := api_get(host, token))["phase"] == "play":
        assert time.monotonic() < deadline, "the round never ended"
        if table["turn"]["seat"] == 0:
            play_turn_api(host, token)
        else:
            time.sleep(0.1)
    wait_phase(host, "match_over")
    final = api_get(host, token)
    hands = final["hands"]
    assert hands is not None and len(hands) == 4
    rows = host.locator("#end .hands-left li.hand-left")
    expect(rows).to_have_count(4)
    for seat, cards in enumerate(hands):
        codes = (
            rows.nth(seat).locator(".mini-card").evaluate_all("els => els.map(e => e.dataset.card)")
        )
        assert codes == cards
    assert sum(len(h) for h in hands) == sum(s["cards"] for s in final["seats"])
    expect(host.locator("#end #verify-btn")).to_be_visible()
    # A stand-in's win is the computer's, named as such.
    winners = final["match"]["winners"]
    summary = host.locator("#end-summary")
    if len(winners) == 1 and winners[0] != 0:
        words = "Computer for" if locale == "en-US" else "の代打ち"
        expect(summary).to_contain_text(words)
        # ... and so is the announcement of the match's end.
        expect(host.locator("#live-log p").last).to_contain_text(words)
    # Bob and Cy come back (their devices connect); Dee stays away and is not waited for.
    for pid in players[:2]:
        with connect_live(host, token, pid):
            pass
    # (Each closed again at once: they are "reconnecting", present for the rematch.)
    status = host.locator("#rematch-status")
    if locale == "en-US":
        expect(status).to_have_text(
            "Waiting for: you, Bob, and Cy. The new match starts without Dee (away).",
            timeout=LIVE_TIMEOUT,
        )
    else:
        expect(status).to_have_text(
            "待っている人：あなた、Bob、Cy。Dee（離席中）を待たずに新しいマッチを始めます。",
            timeout=LIVE_TIMEOUT,
        )
    assert_no_axe_violations(host, f"online end with every hand ({locale})")
    shot(host, screenshot_dir, "end-hands", locale)


@pytest.mark.parametrize("lang", LANGS, ids=["en-desktop-host", "ja-phone-host"])
def test_the_host_invites_someone_new_into_an_absent_seat(
    story_device: Device, lang: tuple[str, bool], screenshot_dir: Path
) -> None:
    locale, phone = lang
    g_locale, g_phone = other(lang)
    host = story_device(locale=locale, phone=phone)
    token = create_table_api(
        host, {"name": "Ana", "seats": [{"kind": "me"}, {"kind": "invite"}], "rounds": 1}
    )["token"]
    # A guest opens the link and presses Take seat without a name: a message by the field.
    guest = story_device(locale=g_locale, phone=g_phone)
    open_table(guest, token)
    guest.locator("#join-name").fill("")
    guest.locator("button.take-seat").first.click()
    name = guest.locator("#join-name")
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(name).to_have_attribute("aria-describedby", "join-name-msg")
    expect(guest.locator("#join-name-msg")).to_be_visible()
    expect(name).to_be_focused()
    assert_no_axe_violations(guest, f"lobby, name missing ({g_locale})")
    shot(guest, screenshot_dir, "name-missing", g_locale)
    # The room code's label reads as the page's ink on the dark green (not #444).
    colour = host.evaluate(
        "() => getComputedStyle(document.querySelector('#invite-box .code-label')).color"
    )
    assert colour == "rgb(246, 241, 227)", colour

    # Bob joins with no browser and never connects; the match starts.
    api_join(host, token, api_player(host), "Bob")
    api_post(host, token, "start", {}, seed=9)
    wait_phase(host, "play")
    wait_phase(guest, "play")
    seat_option(host, 1, "invite-new")
    panel = host.locator("#seat-open")
    expect(panel).to_be_visible(timeout=LIVE_TIMEOUT)
    expect(host.locator("#seat-invite-link")).to_have_value(re.compile(rf"#{token}$"))
    expect(host.locator("#move-log li[data-note='reopened']")).to_contain_text("Bob")
    shot(host, screenshot_dir, "seat-open-host", locale)
    # The guest (watching) sees the open seat, and takes it with a name.
    expect(guest.locator("#seat-open")).to_be_visible(timeout=LIVE_TIMEOUT)
    # Drawing the table again (here: the language changes; in play, a computer's step) keeps
    # the same button, so a press half made or the keyboard's focus is never lost.
    take = guest.locator("#take-seat-1")
    take.evaluate("b => { b.dataset.probe = 'kept'; }")
    before = take.inner_text()
    other_lang = "ja" if g_locale.startswith("en") else "en"
    guest.locator(f"[data-set-lang='{other_lang}']").click()
    expect(take).not_to_have_text(before)
    expect(take).to_have_attribute("data-probe", "kept")
    guest.locator(f"[data-set-lang='{g_locale[:2]}']").click()
    expect(take).to_have_text(before)
    guest.locator("#seat-join-name").fill("")
    guest.locator("#take-seat-1").click()
    expect(guest.locator("#seat-join-name")).to_have_attribute("aria-invalid", "true")
    assert_no_axe_violations(guest, f"an open seat mid-match ({g_locale})")
    guest.locator("#seat-join-name").fill("Gil")
    expect(guest.locator("#seat-join-name")).not_to_have_attribute("aria-invalid", "true")
    guest.locator("#take-seat-1").click()
    expect(guest.locator("#seat-open")).to_be_hidden(timeout=LIVE_TIMEOUT)
    expect(host.locator("#move-log li[data-note='joined']")).to_contain_text(
        "Gil", timeout=LIVE_TIMEOUT
    )
    assert api_get(guest, token)["me"]["seats"] == [1]
