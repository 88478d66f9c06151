"""Poker Squares accessibility in real Chromium: axe-core on every state of the screen (setup,
playing, hint shown, paused, a line highlighted, end of the deal, a line highlighted at the
end) at desktop and phone size, and 44 px tap targets in the screen's content on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.a11y import assert_no_axe_violations, small_tap_targets
from tests.web.conftest import NewPage
from tests.web.helpers import PS, cell, start_deal, wait_placed

# The descriptors a11y.py gives the controls outside <main> (the header: skip link, language
# switch, How to play, settings), in its format, so a check can keep to the screen's content.
_OUTSIDE_MAIN_JS = """
() => [...document.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button],'
    + ' [role=gridcell][tabindex], [tabindex="0"]')]
  .filter((el) => !el.closest('main'))
  .map((el) => {
    const name = (el.getAttribute('aria-label') || el.textContent || el.id || el.tagName)
      .trim().slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${name}"`;
  })
"""


def main_tap_targets(page: Page) -> list[str]:
    """Controls in <main> under 44 px (the header is another engineer's part of issue 18)."""
    outside = set(page.evaluate(_OUTSIDE_MAIN_JS))
    return [line for line in small_tap_targets(page) if line.rsplit(" ", 1)[0] not in outside]


def check(page: Page, where: str, phone: bool) -> None:
    assert_no_axe_violations(page, where)
    if phone:
        small = main_tap_targets(page)
        assert not small, f"tap targets under 44 px on {where}:\n" + "\n".join(small)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_every_state_passes_axe_and_tap_targets(new_page: NewPage, size: str) -> None:
    phone = size == "phone"
    page = new_page(phone=phone)
    page.goto(PS)
    expect(page.locator("#setup")).to_be_visible()
    check(page, f"setup ({size})", phone)

    start_deal(page)
    for c in range(5):
        page.locator(cell(page, 0, c)).click()
        wait_placed(page, c + 1)
    check(page, f"playing ({size})", phone)

    page.locator(".score[data-line='0']").click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    check(page, f"a line highlighted ({size})", phone)
    page.keyboard.press("Escape")

    page.locator("#hint-btn").click()
    expect(page.locator(".cell.hinted")).to_have_count(1)
    expect(page.locator("#hint-legend")).to_be_visible()
    check(page, f"hint shown ({size})", phone)

    page.locator("#pause-btn").click()
    expect(page.locator("#pause-overlay")).to_be_visible()
    check(page, f"paused ({size})", phone)
    page.locator("#pause-btn").click()
    expect(page.locator("#pause-overlay")).to_be_hidden()

    for n in range(5, 25):
        page.locator(".cell.empty").first.click()
        wait_placed(page, n + 1)
    expect(page.locator("#end")).to_be_visible()
    check(page, f"end of the deal ({size})", phone)

    page.locator("#breakdown tbody tr[data-line='7'] button").click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    check(page, f"end of the deal, a line highlighted ({size})", phone)
