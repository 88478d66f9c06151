"""Accessibility of the site around the games: axe-core finds nothing on the home page and
both how-to-play pages, at desktop and phone size, in both languages; every control a finger
can press there is at least 44x44 CSS pixels on a phone; and the header shared by every page
(the game screens included) passes both checks. The game screens' own content is tested with
each screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.a11y import (
    assert_no_axe_violations,
    assert_tap_targets,
    axe_violations,
    small_tap_targets,
)
from tests.web.conftest import NewPage

SITE_PAGES = ["/", "/rules-poker-squares.html", "/rules-kings-corner.html"]
GAME_PAGES = ["/poker-squares.html", "/kings-corner.html"]
LOCALES = {"en": "en-US", "ja": "ja-JP"}


def open_page(new_page: NewPage, path: str, lang: str, *, phone: bool) -> Page:
    page = new_page(phone=phone, locale=LOCALES[lang])
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("body.ready")).to_have_count(1)
    return page


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("path", SITE_PAGES)
def test_site_pages_pass_axe_and_tap_targets(
    new_page: NewPage, screenshot_dir: Path, path: str, phone: bool, lang: str
) -> None:
    page = open_page(new_page, path, lang, phone=phone)
    size = "phone" if phone else "desktop"
    where = f"{path} {size} {lang}"
    name = path.strip("/").removesuffix(".html") or "home"
    page.screenshot(path=screenshot_dir / f"site-{name}-{size}-{lang}.png", full_page=True)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"{where}: {overflow} px of horizontal overflow"
    problems = axe_violations(page)
    if phone:
        problems += [f"tap target {t}" for t in small_tap_targets(page)]
    assert not problems, where + ":\n" + "\n".join(problems)


@pytest.mark.parametrize("path", GAME_PAGES)
def test_the_header_of_the_game_screens(new_page: NewPage, screenshot_dir: Path, path: str) -> None:
    for lang in LOCALES:
        page = open_page(new_page, path, lang, phone=True)
        name = path.strip("/").removesuffix(".html")
        page.locator(".site-header").screenshot(
            path=screenshot_dir / f"header-{name}-phone-{lang}.png"
        )
        assert_no_axe_violations(page, f"{path} header, {lang}", within=".site-header")
        assert_tap_targets(page, f"{path} header, {lang}", within=".site-header")


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_skip_link_moves_focus_without_scrolling_the_header_away(
    new_page: NewPage, phone: bool
) -> None:
    for path in [*SITE_PAGES, *GAME_PAGES]:
        page = open_page(new_page, path, "en", phone=phone)
        skip = page.locator(".skip-link")
        if path in SITE_PAGES:  # (a game screen may put focus on its first control at load)
            page.keyboard.press("Tab")
        else:
            skip.focus()
        expect(skip).to_be_focused()
        if phone:
            assert_tap_targets(page, f"{path}, skip link shown", within="body")
        page.keyboard.press("Enter")
        expect(page.locator("main")).to_be_focused()
        assert page.evaluate("() => scrollY") == 0, f"{path}: the header scrolled away"
        # The next Tab goes into the page's own content.
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('main')"), path


def test_without_javascript_every_page_says_so(new_page: NewPage) -> None:
    page = new_page(java_script_enabled=False)
    for path in [*SITE_PAGES, *GAME_PAGES]:
        page.goto(path)
        message = page.locator(".noscript")
        expect(message).to_be_visible()
        expect(message.locator("[lang=en]")).to_contain_text("need JavaScript")
        expect(message.locator("[lang=ja]")).to_contain_text("JavaScriptが必要です")
