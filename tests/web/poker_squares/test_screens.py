"""Screenshots of every screen at desktop (1280x800) and phone (390x844) size in both languages,
saved under test-artifacts/screenshots/ for a person to look at. Each Poker Squares state also
passes axe-core (no violation of any impact) and, on a phone, has tap targets of at least
44x44 px inside `<main>`: setup, playing with a line highlighted, the hint, pause, the end of
the deal and a line highlighted there."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.helpers import (
    assert_total_matches_engine,
    place_by_api,
    shot,
    start_deal,
    wait_placed,
)

SIZES = ["desktop", "phone"]
LANGS = {"en": "en-US", "ja": "ja-JP"}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", list(LANGS))
def test_screenshots(new_page: NewPage, screenshot_dir: Path, size: str, lang: str) -> None:
    phone = size == "phone"
    page = new_page(phone=phone, locale=LANGS[lang])
    tag = f"{lang}-{size}"

    def look(name: str) -> None:
        """Screenshot this state and check it (axe; tap targets on a phone)."""
        shot(page, screenshot_dir, f"{name}-{tag}")
        check_screen(page, f"{name} ({tag})", phone=phone)

    for path, name in [
        ("/", "home"),
        ("/rules-poker-squares.html", "rules-poker-squares"),
        ("/rules-kings-corner.html", "rules-kings-corner"),
    ]:
        page.goto(path)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        shot(page, screenshot_dir, f"{name}-{tag}")
        if name.startswith("rules"):
            shot(page, screenshot_dir, f"{name}-{tag}-full", full_page=True)

    page.goto("/poker-squares.html")
    expect(page.locator("#setup")).to_be_visible()
    look("ps-setup")
    start_deal(page)
    page.locator(".cell.empty").first.click()
    wait_placed(page, 1)
    place_by_api(page, 10)
    page.locator(".score[data-line='0']").click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    look("ps-progress")
    page.keyboard.press("Escape")
    page.locator("#hint-btn").click()
    expect(page.locator(".cell.hinted")).to_have_count(1)
    expect(page.locator("#hint-legend")).to_be_visible()
    look("ps-hint")
    page.keyboard.press("Escape")
    page.locator("#pause-btn").click()
    expect(page.locator("#pause-overlay")).to_be_visible()
    look("ps-paused")
    page.locator("#pause-btn").click()
    expect(page.locator("#pause-overlay")).to_be_hidden()
    place_by_api(page, 13)
    page.locator(".cell.empty").first.click()
    wait_placed(page, 25)
    assert_total_matches_engine(page, "american")
    page.evaluate("() => window.scrollTo(0, 0)")
    look("ps-end")
    shot(page, screenshot_dir, f"ps-end-{tag}-full", full_page=True)
    page.locator("#breakdown tbody tr[data-line='7'] button").click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    look("ps-end-line")
