"""Preset reactions at an online table, on two devices (their own browser contexts) on a real
server, in English and Japanese, at 390x844 and 1280x800: Ann opens the React menu and
sends "Good luck"; it appears beside her seat on Bob's screen and is said to his screen
reader; "Mute reactions" (the table's side tools) hides it and the ones after it (the
reactions still arrive: the page is told, and shows nothing); the settings dialog shows the
same setting and turns it off again; past the rate, Ann's page says to wait. Every state is
axe-clean (and has 44 px tap targets on a phone)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.a11y import assert_no_axe_violations, check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    LIVE_TIMEOUT,
    create_table_api,
    devices,
    join_by_link,
    start_match,
)
from tests.web.online_helpers import online_server as serve_online

WORDS = {
    "en-US": {
        "good_luck": "Good luck!",
        "thanks": "Thanks!",
        "said": "Ann: Good luck!",
        "wait": re.compile(r"^Easy there! You can react again in \d+ s\.$"),
    },
    "ja-JP": {
        "good_luck": "よろしく！",
        "thanks": "ありがとう！",
        "said": "Ann：よろしく！",
        "wait": re.compile(r"^少し待ってね。\d+秒後にまた送れます。$"),
    },
}
# Every reaction the live channel hands the page, muted or not (online/live.js's event).
RECORD = """() => {
  window.__reactions = [];
  document.addEventListener("kco:reaction", (ev) => window.__reactions.push(ev.detail.key));
}"""


@pytest.fixture(scope="module")
def react_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(tmp_path_factory.mktemp("online-reactions")) as url:
        yield url


def send(page: Page, key: str) -> int:
    """Opens the React menu and presses ``key``; the answer's status."""
    page.locator("#react-btn").click()
    expect(page.locator("#react-menu")).to_be_visible()
    with page.expect_response(re.compile(r"/reactions$")) as answer:
        page.locator(f"#react-menu button[data-key={key}]").click()
    return answer.value.status


@pytest.mark.parametrize("phone", [False, True], ids=["1280x800", "390x844"])
@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
def test_a_reaction_shows_beside_the_seat_and_mute_hides_it(
    browser: Browser,
    react_url: str,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    locale: str,
    phone: bool,
) -> None:
    words = WORDS[locale]
    where = f"online reactions ({locale}, {'phone' if phone else 'desktop'})"
    console_guard.allow("429 (Too Many Requests)")
    with devices(browser, react_url, console_guard) as make:
        ann, bob = make(locale=locale, phone=phone), make(locale=locale, phone=phone)
        made = create_table_api(ann, {"name": "Ann", "seats": [{"kind": "me"}, {"kind": "invite"}]})
        join_by_link(bob, made["token"], "Bob")
        start_match(ann)
        expect(bob.locator("#table")).to_be_visible(timeout=LIVE_TIMEOUT)
        bob.evaluate(RECORD)

        # Ann's menu: five presets, keyboard reachable, Escape closes it.
        ann.locator("#react-btn").click()
        expect(ann.locator("#react-btn")).to_have_attribute("aria-expanded", "true")
        expect(ann.locator("#react-menu button")).to_have_count(5)
        expect(ann.locator("#react-menu button").first).to_be_focused()
        check_screen(ann, f"{where}, menu open", phone=phone)
        ann.keyboard.press("Escape")
        expect(ann.locator("#react-menu")).to_be_hidden()
        expect(ann.locator("#react-btn")).to_be_focused()

        assert send(ann, "good_luck") == 201
        expect(ann.locator('#seats li[data-seat="0"] .reaction')).to_contain_text(
            words["good_luck"]
        )
        bubble = bob.locator('#seats li[data-seat="0"] .reaction')
        expect(bubble).to_contain_text(words["good_luck"], timeout=LIVE_TIMEOUT)
        expect(bob.locator("#react-live")).to_have_text(words["said"])
        check_screen(bob, f"{where}, a reaction shown", phone=phone)
        bob.screenshot(path=screenshot_dir / f"online-reaction-{locale}-{int(phone)}.png")

        # Muted on Bob's device: the bubble goes, and the next reaction arrives unseen.
        bob.locator("#react-mute-btn").click()
        expect(bob.locator("#react-mute-btn")).to_have_attribute("aria-pressed", "true")
        expect(bubble).to_have_count(0)
        assert send(ann, "thanks") == 201
        bob.wait_for_function("() => window.__reactions.includes('thanks')", timeout=LIVE_TIMEOUT)
        expect(bob.locator("#seats .reaction")).to_have_count(0)
        expect(bob.locator("#react-live")).to_have_text("")
        assert_no_axe_violations(bob, f"{where}, muted")

        # The settings dialog holds the same choice, kept in this browser.
        bob.locator("#settings-open").click()
        box = bob.locator("#opt-mute-reactions")
        expect(box).to_be_checked()
        assert_no_axe_violations(bob, f"{where}, settings", within="#settings-dialog")
        box.uncheck()
        bob.locator("#settings-dialog [data-close]").click()
        expect(bob.locator("#react-mute-btn")).to_have_attribute("aria-pressed", "false")
        assert (
            bob.evaluate("() => localStorage.getItem('cardtable.settings')").find(
                '"reactionsMuted":false'
            )
            >= 0
        )

        # Past the rate, Ann's page says to wait.
        for _ in range(6):
            if send(ann, "oops") == 429:
                break
        expect(ann.locator("#react-note")).to_have_text(words["wait"])
        check_screen(ann, f"{where}, refused past the rate", phone=phone)
