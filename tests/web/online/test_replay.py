"""The replay of a finished online Kings Corner round from the table's end panel (issue 29,
docs/online.md "Replay"): the seated device and a spectator each press "Replay the round"
like a person, and the replay page (kc-replay.html, the review's page) shows that round's
every step on the cross with the table's names for the seats ("You" for the device's own
seat, the person's name for the spectator), in both languages, on a phone and a desktop;
axe finds nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from cardtable.server.core.settings import WEB_DIR
from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    API,
    LIVE_TIMEOUT,
    create_table_api,
    open_device,
    open_table,
    play_round,
    player_id,
    start_match,
    wait_phase,
)
from tests.web.online_helpers import online_server as serve_online

REPLAY_TIMEOUT = 30_000
"""The replay is worked out on the first fetch (every turn's strong suggestion, play-outs)."""
I18N = WEB_DIR / "assets" / "i18n"
WORDS = {
    lang: json.loads((I18N / f"{lang}.json").read_text("utf-8"))
    | json.loads((I18N / f"review.{lang}.json").read_text("utf-8"))
    for lang in ("en", "ja")
}
NAME = {"en": "Ana", "ja": "ちか"}


@pytest.fixture(scope="module")
def online_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(Path(tmp_path_factory.mktemp("online-replay")), step=0.02) as url:
        yield url


def replay_of(page: Page, token: str, round_no: int) -> dict[str, Any]:
    answer = page.request.get(
        f"{API}/{token}/rounds/{round_no}", headers={"X-Player-Id": player_id(page)}
    )
    assert answer.ok, answer.text()
    data: dict[str, Any] = answer.json()
    return data


def check_replay(
    page: Page, replay: dict[str, Any], names: list[str], lang: str, where: str
) -> None:
    """The replay page shows the round: its title, every step on the slider, the cross (eight
    piles round the stock), each hand under the seat's name, the last step as the round
    ended."""
    words = WORDS[lang]
    expect(page.locator("#replay")).to_be_visible(timeout=REPLAY_TIMEOUT)
    expect(page.locator("#replay-wait")).to_be_hidden()
    title = words["kr.title"].replace("{round}", str(replay["round"]))
    expect(page.locator("#replay-title")).to_have_text(title)
    steps = sum(len(turn["moves"]) for turn in replay["turns"])
    expect(page.locator("#step-slider")).to_have_attribute("max", str(steps))
    expect(page.locator("#piles .kr-slot")).to_have_count(8)
    expect(page.locator("#piles .stock")).to_have_count(1)
    heads = page.locator("#hands .kr-hand h3")
    expect(heads).to_have_count(len(names))
    for seat, name in enumerate(names):
        expect(heads.nth(seat)).to_contain_text(name)
    # The header's link leads back to the table.
    back = page.locator(".site-nav a")
    expect(back).to_have_text(words["kr.back_table"])
    href = back.get_attribute("href") or ""
    assert href.startswith("kings-corner-online.html#"), href
    page.locator("#next-btn").click()
    expect(page.locator("#step-slider")).to_have_value("1")
    expect(page.locator("#step-text")).not_to_be_empty()
    check_screen(page, where, phone=page.viewport_size["width"] < 500)  # type: ignore[index]
    page.locator("#last-btn").click()
    expect(page.locator("#last-btn")).to_be_disabled()
    for seat, hand in enumerate(replay["final"]["hands"]):
        shown = page.locator(f".kr-hand[data-seat='{seat}'] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert shown == hand


@pytest.mark.variants("rounds")  # the last round of three, or a one-round match
@pytest.mark.parametrize(
    ("lang", "phone", "rounds"),
    [("en", False, 3), ("ja", True, 1), ("en", True, 1), ("ja", False, 3)],
)
def test_replay_the_round_from_the_online_end_panel(
    browser: Browser,
    online_url: str,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    lang: str,
    phone: bool,
    rounds: int,
) -> None:
    locale = "ja-JP" if lang == "ja" else "en-US"
    words = WORDS[lang]
    size = "phone" if phone else "desktop"
    host = open_device(browser, online_url, console_guard, phone=phone, locale=locale)
    watcher = open_device(browser, online_url, console_guard, phone=phone, locale=locale)
    try:
        made = create_table_api(host, {
            "name": NAME[lang],
            "seats": [{"kind": "me"}, {"kind": "computer", "strength": "easy"},
                      {"kind": "computer", "strength": "normal"}],
            "rules": {"preset": "simple"}, "rounds": rounds,
        })  # fmt: skip
        token = made["token"]
        open_table(watcher, token)  # a spectator: the table's link, no seat
        start_match(host)  # a fair match, as for everyone: the end panel has Verify
        end = play_round([host], token)
        phase = "round_over" if rounds > 1 else "match_over"
        assert end["phase"] == phase

        wait_phase(host, phase)
        link = host.locator("#end #replay-round-btn")
        expect(link).to_have_text(words["kr.replay_btn"], timeout=LIVE_TIMEOUT)
        # Next to Verify, after the way on (next round or rematch).
        order = host.locator("#end a.button, #end button").evaluate_all("els => els.map(e => e.id)")
        assert order.index("replay-round-btn") + 1 == order.index("verify-btn"), order
        # The last move's card has landed (no slide caught half way in the screenshot).
        host.wait_for_function(
            "() => document.getAnimations().every(a => a.playState !== 'running')",
            timeout=LIVE_TIMEOUT,
        )
        host.screenshot(path=str(screenshot_dir / f"kco-replay-end-{lang}-{size}.png"))
        replay = replay_of(host, token, 1)
        assert replay["me"] == [0] and replay["names"] == [NAME[lang], None, None]
        link.click()
        host.wait_for_url("**/kc-replay.html?round=1#table=*")
        computers = [words["kc.computer_n"].replace("{n}", str(n)) for n in (2, 3)]
        check_replay(host, replay, [words["kc.you"], *computers], lang, f"online replay {lang}")
        host.locator("#first-btn").click()
        host.screenshot(path=str(screenshot_dir / f"kco-replay-{lang}-{size}.png"), full_page=True)

        # The spectator's end panel has the link too; its replay calls the seat by name.
        wait_phase(watcher, phase)
        watcher.locator("#end #replay-round-btn").click()
        check_replay(
            watcher, replay, [NAME[lang], *computers], lang, f"online replay, spectator {lang}"
        )
        watcher.locator("#first-btn").click()
        watcher.screenshot(
            path=str(screenshot_dir / f"kco-replay-spectator-{lang}-{size}.png"), full_page=True
        )
    finally:
        host.context.close()
        watcher.context.close()
