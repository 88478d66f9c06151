"""Counts in both languages: `t(key, {n})` picks the plural form with `Intl.PluralRules`
("1 card", "2 cards"; Japanese has one form), and the pages show it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import NewPage
from tests.web.helpers import start_deal, wait_placed

# Runs in the page: loads the language and words a few counts with the page's own i18n module.
WORDS_JS = """
async ([lang, cases]) => {
  const i18n = await import(new URL('assets/js/core/i18n.js', document.baseURI).href);
  await i18n.loadLanguage(lang);
  return cases.map(([key, params]) => i18n.t(key, params));
}
"""


def words(page: Page, lang: str, cases: list[tuple[str, dict[str, Any]]]) -> list[str]:
    result: list[str] = page.evaluate(WORDS_JS, [lang, cases])
    return result


def test_t_picks_the_plural_form_in_english(page: Page) -> None:
    page.goto("/")
    cases: list[tuple[str, dict[str, Any]]] = [
        ("kc.cards_n", {"n": 1}),
        ("kc.cards_n", {"n": 2}),
        ("kc.cards_n", {"n": 0}),
        ("kc.stock_name", {"n": 1}),
        ("kc.stock_name", {"n": 21}),
        ("kc.points_n", {"n": 1}),
        ("kc.points_n", {"n": 10}),
        ("kc.hand_of", {"n": 1, "who": "Computer 2"}),
        ("kc.pile_head", {"n": 2, "card": "king of hearts"}),
        ("ps.cards_left_name", {"n": 1}),
        ("ps.cards_left_name", {"n": 24}),
        ("ps.caption_line", {"n": 1, "line": "Row 1", "hand": "One pair"}),
        ("ps.caption_line", {"n": 2, "line": "Row 1", "hand": "One pair"}),
        ("kc.cards_n", {}),  # no count: the "other" form
        ("home.play", {"n": 1}),  # a plain message ignores the count
    ]
    assert words(page, "en", cases) == [
        "1 card",
        "2 cards",
        "0 cards",
        "Stock, 1 card",
        "Stock, 21 cards",
        "1 pt",
        "10 pts",
        "Computer 2's hand\u00a0· 1 card",
        "2 cards from the king of hearts",
        "1 card left",
        "24 cards left",
        "Row 1: One pair\u00a0·\u00a01 point",
        "Row 1: One pair\u00a0·\u00a02 points",
        "{n} cards",
        "Play",
    ]


def test_t_has_one_form_in_japanese(page: Page) -> None:
    page.goto("/")
    cases: list[tuple[str, dict[str, Any]]] = [
        ("kc.cards_n", {"n": 1}),
        ("kc.cards_n", {"n": 2}),
        ("kc.stock_name", {"n": 1}),
        ("ps.cards_left_name", {"n": 1}),
        ("ps.caption_line", {"n": 1, "line": "1行目", "hand": "ワンペア"}),
    ]
    assert words(page, "ja", cases) == [
        "1枚",
        "2枚",
        "山札、残り1枚",
        "残り1枚",
        "1行目：ワンペア\u00a0·\u00a01点",
    ]


def test_a_separator_dot_never_starts_a_line(page: Page) -> None:
    """ " · " keeps to the word before it (a no-break space): Japanese does not start a line
    with a middle dot, and a wrapped English line looks better without it."""
    page.goto("/")
    texts = words(
        page, "ja", [("ps.keys_help", {}), ("kc.keys_help", {}), ("kc.continue_text", {})]
    )
    texts += words(page, "en", [("ps.keys_help", {}), ("kc.keys_help", {})])
    for text in texts:
        assert " ·" not in text and "·" in text, text
        assert text.count("\u00a0·") == text.count("·"), text


# The stock beside the current card names how many cards are still to come ("1 more card to
# come" / "このあと1枚"): its count of 1 must be singular, 2 plural.
DECK_WORDS = {
    "en-US": (re.compile(r"\b1 (\w+ )?card\b"), re.compile(r"\b2 (\w+ )?cards\b")),
    "ja-JP": (re.compile(r"1枚"), re.compile(r"2枚")),
}


@pytest.mark.parametrize("locale", DECK_WORDS)
def test_poker_squares_counts_one_card_in_the_singular(new_page: NewPage, locale: str) -> None:
    one, two = DECK_WORDS[locale]
    page = new_page(locale=locale)
    start_deal(page)
    deck, left = page.locator("#deck"), page.locator("#cards-left")
    seen: set[str] = set()
    while page.locator(".cell.empty").count() > 1:
        count = left.inner_text().strip()
        if count in ("1", "2"):
            expect(deck).to_have_attribute("aria-label", one if count == "1" else two)
            seen.add(count)
        placed = page.locator(".cell.filled").count()
        page.locator(".cell.empty").first.click()
        wait_placed(page, placed + 1)
    assert seen == {"1", "2"}
