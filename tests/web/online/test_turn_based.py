"""Turn-based tables in the browser (issue 40, docs/online.md "Turn-based tables"): the host
makes one through the Kings Corner form (turn-based, a day a turn), the lobby says so, a friend
(through the API: a person with no browser) and a computer take the other seats, and once the
match is dealt the table says whose turn it is and until when, in the reader's own time zone
and language ("Ben's turn · until Sat 14:05 (1 day left)" / 「ベンの番・土 14:05まで（残り1日）」),
from the deadline the server sends (epoch seconds, UTC). English on a desktop and Japanese on
a phone, each in a time zone of its own, axe-clean."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Page, expect

from tests.web.a11y import assert_no_axe_violations
from tests.web.conftest import NewPage
from tests.web.online_helpers import API, LIVE_TIMEOUT, api_get, start_match

LANGS = [("en-US", False), ("ja-JP", True)]
"""(locale, phone) of the host: English at 1280x800, Japanese at 390x844."""
ZONES = {"en-US": "America/Los_Angeles", "ja-JP": "Asia/Tokyo"}
"""Each reader's own time zone, neither the server's nor UTC."""
WEEKDAYS = {
    "en-US": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    "ja-JP": ["月", "火", "水", "木", "金", "土", "日"],
}
WORDS = {
    "en-US": {
        "pace": "Turn-based: 1 day a turn",
        "away": "not at the table now",
        "you": "Your turn · until {when} (1 day left)",
        "other": "{who}'s turn · until {when} (1 day left)",
    },
    "ja-JP": {
        "pace": "ターン制：1手番1日",
        "away": "いまは席にいません",
        "you": "あなたの番・{when}まで（残り1日）",
        "other": "{who}の番・{when}まで（残り1日）",
    },
}


def create_turn_based(page: Page, name: str) -> str:
    """The host's form: three players (a friend by invite, an easy computer), turn-based with
    a day a turn. Returns the token."""
    page.goto("/kings-corner.html")
    expect(page.locator("#setup")).to_be_visible()
    page.locator("input[name=players][value='3']").check()
    page.locator("#seat-1").select_option("invite")
    page.locator("#seat-2").select_option("computer:easy")
    expect(page.locator("#online-options")).to_be_visible()
    page.locator("#host-name").fill(name)
    expect(page.locator("#turn-length-row")).to_be_hidden()
    page.locator("input[name=pace][value='turn']").check()
    # Turn-based: the live timer gives way to hours or days a turn, a day chosen at first.
    expect(page.locator("#live-timer-row")).to_be_hidden()
    expect(page.locator("#turn-length-row")).to_be_visible()
    expect(page.locator("#pace-note")).to_be_visible()
    expect(page.locator("input[name=turn_length][value='86400']")).to_be_checked()
    assert_no_axe_violations(page, "the turn-based choices of the form")
    page.locator("#start-btn").click()
    page.wait_for_url(re.compile(r"kings-corner-online\.html#"))
    expect(page.locator("#lobby")).to_be_visible(timeout=LIVE_TIMEOUT)
    return page.url.split("#", 1)[1]


def join_api(page: Page, token: str, name: str) -> str:
    """A friend with no browser takes the open seat through the API; returns their id."""
    pid = str(page.request.post("/api/players").json()["player_id"])
    version = api_get(page, token)["version"]
    answer = page.request.post(
        f"{API}/{token}/join",
        data=json.dumps({"version": version, "name": name}),
        headers={"X-Player-Id": pid, "Content-Type": "application/json"},
    )
    assert answer.ok, answer.text()
    return pid


def a_persons_turn(page: Page, token: str) -> dict[str, object]:
    """The table once it is a person's turn (the computer's come at once), from the API."""
    until = time.monotonic() + LIVE_TIMEOUT / 1000
    while True:
        table = api_get(page, token)
        turn = table.get("turn")
        if table["phase"] == "play" and turn and turn["deadline"]:
            return table
        assert time.monotonic() < until, f"never a person's turn: {table['phase']}"
        time.sleep(0.1)


@pytest.mark.parametrize("lang", LANGS, ids=["en-desktop", "ja-phone"])
def test_a_turn_based_table_shows_whose_turn_until_when_in_local_time(
    new_page: NewPage, lang: tuple[str, bool]
) -> None:
    locale, phone = lang
    host = new_page(phone=phone, locale=locale, timezone_id=ZONES[locale], fresh=True)
    token = create_turn_based(host, "Ana")
    words = WORDS[locale]
    expect(host.locator("#lobby-rules")).to_contain_text(words["pace"])
    join_api(host, token, "Ben")
    expect(host.locator(".lobby-seat[data-seat='1'] .lobby-seat-name")).to_have_text(
        "Ben", timeout=LIVE_TIMEOUT
    )
    start_match(host)
    table = a_persons_turn(host, token)
    turn = table["turn"]
    assert isinstance(turn, dict)
    settings = table["settings"]
    assert isinstance(settings, dict)
    assert settings["pace"] == "turn" and settings["turn_seconds"] == 86400
    deadline = float(turn["deadline"])
    assert deadline == pytest.approx(time.time() + 86400, abs=120)
    at = datetime.fromtimestamp(deadline, UTC).astimezone(ZoneInfo(ZONES[locale]))
    when = f"{WEEKDAYS[locale][at.weekday()]} {at:%H:%M}"
    expected = (
        words["you"].format(when=when)
        if turn["seat"] == 0
        else words["other"].format(when=when, who="Ben")
    )
    line = host.locator("#timer-line")
    expect(line).to_have_text(expected, timeout=LIVE_TIMEOUT)
    # Ben's device is nowhere: at a turn-based table that replaces no one.
    expect(host.locator("#table .conn.away")).to_have_text(words["away"])
    expect(host.locator("#presence-line")).to_be_hidden()  # no "the computer plays for Ben"
    # The computer's last cards may still be flying to their piles: axe reads the page still.
    host.wait_for_function(
        """() => document.getAnimations().every(
            a => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity)""",
        timeout=5_000,
    )
    # The pointer rests where Start was pressed; off the page, no link under it is hovered
    # (a hovered `a.button` is gold on white in base.css: a separate, site-wide matter).
    host.mouse.move(0, 0)
    assert_no_axe_violations(host, f"a turn-based table ({locale})")
