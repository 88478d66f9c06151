"""The Kings Corner table's layout in a four-player round with a big hand (12 cards), at
390x844 (phone) and 1280x800 (desktop), in English and Japanese: no hand card lies under the
action bar, and on the phone the seats, the whole hand, the actions and the move log are all
in the window without scrolling. Each state is photographed (test-artifacts/screenshots/) and
passes axe-core and, on the phone, the 44 px tap-target check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.kc_helpers import Seat, big_hand, seeded_match, settle, shot

FOUR: tuple[Seat, ...] = (
    ("human", None),
    ("computer", "easy"),
    ("computer", "normal"),
    ("computer", "easy"),
)
HAND = 12
LANGS = {"en": "en-US", "ja": "ja-JP"}


def overlap(a: dict[str, Any], b: dict[str, Any]) -> float:
    """The area two boxes share (0 when they only touch)."""
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(0.0, w) * max(0.0, h)


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = page.eval_on_selector_all(
        selector,
        """nodes => nodes.map(n => { const r = n.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height,
                id: n.dataset.card || n.id}; })""",
    )
    return out


def assert_clear_of_actions(page: Page, where: str) -> None:
    """No hand card, and no line of the move log, shares a pixel with the action bar."""
    bar = boxes(page, "#actions")[0]
    for box in boxes(page, "#hand .hand-card") + boxes(page, "#move-log li"):
        assert overlap(box, bar) == 0, f"{where}: {box} lies under the action bar {bar}"


def assert_in_window(page: Page, selector: str, where: str) -> None:
    size = page.viewport_size or {"width": 0, "height": 0}
    for box in boxes(page, selector):
        inside = (
            box["x"] >= 0
            and box["y"] >= 0
            and box["x"] + box["width"] <= size["width"] + 0.5
            and box["y"] + box["height"] <= size["height"] + 0.5
        )
        assert inside, f"{where}: {selector} {box} is not inside the {size} window"


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_four_player_hand_clear_of_the_action_bar(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, phone: bool, lang: str
) -> None:
    page = new_page(phone=phone, locale=LANGS[lang])
    table = big_hand(FOUR, HAND)
    seeded_match(page, live_app, None, seats=FOUR, table=table)
    stored = settle(page, live_app)
    assert stored.phase == "play" and stored.match.state.to_play == 0
    held = len(stored.match.state.hands[0])
    assert held >= HAND
    expect(page.locator("#hand .hand-card")).to_have_count(held)
    expect(page.locator("#move-log li").first).to_be_visible()
    size = "phone" if phone else "desktop"
    where = f"four players, {held} cards, {size}, {lang}"
    page.evaluate("() => window.scrollTo(0, 0)")
    assert_clear_of_actions(page, where)
    if phone:
        # The whole table fits the phone's window: nothing to scroll to.
        for selector in ("#seats li", "#hand .hand-card", "#actions button", "#move-log li"):
            assert_in_window(page, selector, where)
    # Scrolled to the end, the action bar still covers nothing.
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    assert_clear_of_actions(page, where + ", scrolled down")
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, screenshot_dir, f"four-players-{size}-{lang}")
    check_screen(page, f"kings corner, {where}", phone=phone)


PASS_AND_PLAY: tuple[Seat, ...] = (
    ("human", None),
    ("human", None),
    ("computer", "easy"),
    ("human", None),
)


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_handoff_panel_clear_of_the_action_bar(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, phone: bool, lang: str
) -> None:
    """Four seats shared on one device, at the hand-off: the panel that hands the device on
    (and its Show button) never lies under the action bar (stuck to the window's bottom, the
    bar covered 10 px of a two-seat hand-off panel at 1280x800)."""
    page = new_page(phone=phone, locale=LANGS[lang])
    seeded_match(page, live_app, 7, seats=PASS_AND_PLAY)
    expect(page.locator("#handoff")).to_be_visible()
    size = "phone" if phone else "desktop"
    where = f"hand-off, four seats, {size}, {lang}"
    bar = boxes(page, "#actions")[0]
    for box in boxes(page, "#handoff") + boxes(page, "#reveal-btn"):
        assert overlap(box, bar) == 0, f"{where}: {box} lies under the action bar {bar}"
    if phone:
        assert_in_window(page, "#reveal-btn", where)
    shot(page, screenshot_dir, f"handoff-four-{size}-{lang}")
    check_screen(page, f"kings corner, {where}", phone=phone)
