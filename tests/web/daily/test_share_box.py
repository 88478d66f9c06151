"""The daily page's share box after a finished daily (docs/daily.md, "Sharing"): "Share" and
"Share as words" hand the right texts to the system share sheet, and copy them where there is
none; the same result is an accessible table beside them; axe-clean. Both languages and both
sizes are variants (the 200-deal card-name check is tests/web/daily/test_share_texts.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.a11y import assert_no_axe_violations, assert_tap_targets
from tests.web.conftest import NewPage

from .test_daily import LOCALE, SHARE_SHEET, SIZES, as_player, finish_daily, player_api, size_name
from .test_share_texts import HANDS, MARKS, bundle, card_named, check_marks, check_words


def words_of(lang: str) -> dict[str, Any]:
    return {**bundle(lang), **bundle(f"daily.{lang}"), **bundle(f"share.{lang}")}


@pytest.mark.parametrize(("lang", "phone"), SIZES)
def test_share_and_share_as_words_with_the_result_table(
    new_page: NewPage, live_url: str, lang: str, phone: bool
) -> None:
    words = words_of(lang)
    player = str(httpx.post(f"{live_url}/api/players", timeout=30).json()["player_id"])
    finish_daily(live_url, player, "british")
    me = player_api(live_url, player, "GET", "/api/daily/british")["me"]
    deal = {"lines": me["lines"], "total": me["total"], "table": "british"}
    page = new_page(
        phone=phone,
        locale=LOCALE[lang],
        init_script=as_player(player) + SHARE_SHEET,
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto("/daily.html?table=british")

    # The accessible table: caption, a header per column and per line, hand and points.
    table = page.locator("#share-table table")
    expect(table.locator("caption")).to_have_text(words["share.table_caption"])
    expect(table.locator("thead th[scope=col]")).to_have_text(
        [words["share.col_line"], words["share.col_hand"], words["share.col_points"]]
    )
    lines = [
        words["ps.line_row" if i < 5 else "ps.line_col"].format(n=i % 5 + 1) for i in range(10)
    ]
    expect(table.locator("tbody th[scope=row]")).to_have_text(lines)
    expect(table.locator("tbody td:not(.num)")).to_have_text(
        [f"{MARKS[HANDS.index(h)]} {words[f'hand.{h}']}" for h in me["lines"]]
    )
    expect(table.locator("tbody td.num")).to_have_text([str(p) for p in me["line_scores"]])
    expect(table.locator("tfoot td")).to_have_text(str(me["total"]))

    # Share, then Share as words: the system sheet gets each text, the link apart.
    expect(page.locator("#share-btn")).to_have_text(words["daily.share_sheet"])
    expect(page.locator("#share-words-btn")).to_have_text(words["daily.share_words"])
    page.locator("#share-btn").click()
    expect(page.locator("#share-status")).to_have_text(words["daily.shared"])
    page.locator("#share-words-btn").click()
    page.wait_for_function("window.__shared.length === 2")
    link = f"{live_url}/daily.html?table=british"
    marks, said = (
        {**s, "full": f"{s['text']}\n{s['url']}"} for s in page.evaluate("window.__shared")
    )
    assert marks["url"] == said["url"] == link
    assert marks["full"] == page.locator("#share-text").text_content()
    assert said["full"] == page.locator("#share-words").text_content()
    check_marks(marks["full"], deal, words)
    check_words(said["full"], deal, words)
    assert not card_named(marks["full"], lang) and not card_named(said["full"], lang)

    # No share sheet (or none allowed): the words are copied, link and all.
    page.evaluate("delete navigator.share")
    page.locator("#share-words-btn").click()
    expect(page.locator("#share-status")).to_have_text(words["daily.copied"])
    assert page.evaluate("navigator.clipboard.readText()") == said["full"]
    # The whole page axe-clean; on a phone the result's own controls are 44 px tap targets
    # (the rest of the page is the daily page's tests' to check).
    where = f"daily share box ({lang}, {size_name(phone)})"
    page.locator("#result summary").click()
    expect(page.locator("#share-words")).to_be_visible()
    assert_no_axe_violations(page, where)
    if phone:
        assert_tap_targets(page, where, within="#result")
