"""The daily boards' name field refuses a name holding a word no one should read
(`core.names.check_polite`, docs/online.md "Names") and says why under the field, in English
on a desktop and in Japanese on a phone; an ordinary name holding the same letters is saved.
Axe-clean with the refusal shown."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard, NewPage

WORDS = {
    "en-US": (
        "That name holds a word we don't show to others. Please choose another one.",
        "Saved.",
    ),
    "ja-JP": (
        "その名前には、ほかの人に見せない言葉が入っています。別の名前にしてください。",
        "保存しました。",
    ),
}


@pytest.mark.parametrize(("locale", "phone"), [("en-US", False), ("ja-JP", True)])
def test_the_name_field_says_why_it_refused(
    new_page: NewPage, console_guard: ConsoleGuard, locale: str, phone: bool
) -> None:
    refused, saved = WORDS[locale]
    console_guard.allow("422 (Unprocessable")
    page = new_page(phone=phone, locale=locale, fresh=True)
    page.goto("/daily.html")
    field = page.locator("#name-input")
    expect(page.locator(".daily-name")).to_be_visible()
    field.fill("S h 1 t")
    page.locator("#name-form button[type=submit]").click()
    expect(page.locator("#name-status")).to_have_text(refused)
    expect(field).to_have_attribute("aria-invalid", "true")
    check_screen(page, f"daily name refused ({locale})", phone=phone)
    field.fill("Scunthorpe")
    page.locator("#name-form button[type=submit]").click()
    expect(page.locator("#name-status")).to_have_text(saved)
    expect(field).not_to_have_attribute("aria-invalid", "true")
