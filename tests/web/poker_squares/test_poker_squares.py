"""Poker Squares in real headless Chromium against the real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.helpers import (
    PS,
    assert_total_matches_engine,
    cell,
    grid_cards,
    place_by_api,
    start_deal,
    wait_placed,
)


def test_whole_deal_by_mouse(page: Page) -> None:
    start_deal(page, table="british", target="easy")
    # The current card is counted (card 1 of 25); the stock holds the cards after it.
    expect(page.locator("#current-label")).to_have_text("Card 1 of 25")
    expect(page.locator("#cards-left")).to_have_text("24")
    expect(page.locator("#deck")).to_have_attribute("aria-label", "24 more cards to come")
    for n in range(25):
        page.locator(".cell.empty").first.click()
        wait_placed(page, n + 1)
        if n < 24:
            expect(page.locator("#current-label")).to_have_text(f"Card {n + 2} of 25")
            expect(page.locator("#cards-left")).to_have_text(str(23 - n))
        if n == 22:
            expect(page.locator("#deck")).to_have_attribute("aria-label", "1 more card to come")
    expect(page.locator("#end")).to_be_visible()
    total = assert_total_matches_engine(page, "british")
    expect(page.locator("#breakdown tbody tr")).to_have_count(10)
    expect(page.locator("#end-target")).to_contain_text(re.compile(r"Target 9"))
    assert ("reached" in (page.locator("#end-target").get_attribute("class") or "")) == (total >= 9)
    # Clicking an occupied cell changes nothing.
    before = grid_cards(page)
    page.locator(cell(page, 0, 0)).click(force=True)  # aria-disabled: Playwright would wait
    assert grid_cards(page) == before


def test_whole_deal_by_keyboard_only(page: Page) -> None:
    page.goto(PS)
    expect(page.locator("#deal-btn")).to_be_focused()
    # Choose the American table and the hard target with the keyboard alone.
    page.keyboard.press("Shift+Tab")  # back into the target radios (normal is checked)
    page.keyboard.press("ArrowDown")
    expect(page.locator("input[name=target][value=hard]")).to_be_checked()
    page.keyboard.press("Tab")
    expect(page.locator("#deal-btn")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator(cell(page, 0, 0))).to_be_focused()
    # Snake through the grid: Enter places, arrows move, digits jump to a column.
    for row in range(5):
        cols = range(5) if row % 2 == 0 else range(4, -1, -1)
        for i, col in enumerate(cols):
            if i > 0:
                page.keyboard.press("ArrowRight" if row % 2 == 0 else "ArrowLeft")
            expect(page.locator(cell(page, row, col))).to_be_focused()
            page.keyboard.press("Enter" if (row + col) % 2 else "Space")
            wait_placed(page, row * 5 + i + 1)
        if row < 4:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("5" if row % 2 == 0 else "1")
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#fact-target")).to_contain_text("38")
    assert_total_matches_engine(page, "american")
    # The row scores are in the grid too: Enter on one highlights its line and names the hand.
    page.locator(cell(page, 4, 0)).focus()
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    expect(page.locator(".cell.in-line")).to_have_count(5)
    expect(page.locator("#line-caption")).to_contain_text("Row 5")
    page.keyboard.press("Escape")
    expect(page.locator(".cell.in-line")).to_have_count(0)


def answer_yes(page: Page) -> None:
    """The question before a hint or an undo on an unassisted deal: go on with it."""
    expect(page.locator("#daily-ask")).to_be_visible()
    page.locator("#daily-ask-yes").click()
    expect(page.locator("#daily-ask")).to_be_hidden()


def test_hint_then_place(page: Page) -> None:
    start_deal(page)
    page.locator(cell(page, 2, 2)).click()
    wait_placed(page, 1)
    expect(page.locator("#practice-marker")).to_be_hidden()
    page.keyboard.press("h")
    # One key press would make the deal practice: H asks first.
    answer_yes(page)
    hinted = page.locator(".cell.hinted")
    expect(hinted).to_have_count(1)
    expect(page.locator("#practice-marker")).to_be_visible()
    # Every empty cell shows the engine's estimate.
    expect(page.locator(".cell.empty .est:not(:empty)")).to_have_count(24)
    expect(hinted).to_be_focused()
    assert "suggested by the hint" in (hinted.get_attribute("aria-label") or "")
    row, col = (
        int(hinted.get_attribute("data-row") or 0),
        int(hinted.get_attribute("data-col") or 0),
    )
    card = page.locator("#current-card").get_attribute("data-card")
    page.keyboard.press("Enter")
    wait_placed(page, 2)
    expect(page.locator(cell(page, row, col))).to_have_attribute("data-card", card or "")
    expect(page.locator(".cell.hinted")).to_have_count(0)
    expect(page.locator(".est:not(:empty)")).to_have_count(0)


def test_hint_can_be_overridden(page: Page) -> None:
    start_deal(page)
    page.locator("#hint-btn").click()
    expect(page.locator(".cell.hinted")).to_have_count(1)
    other = page.locator(".cell.empty:not(.hinted)").last
    row, col = other.get_attribute("data-row"), other.get_attribute("data-col")
    other.click()
    wait_placed(page, 1)
    expect(page.locator(f".cell[data-row='{row}'][data-col='{col}']")).to_have_class(
        re.compile("filled")
    )


def test_undo_marks_practice(page: Page) -> None:
    start_deal(page)
    expect(page.locator("#undo-btn")).to_be_disabled()
    first = page.locator("#current-card").get_attribute("data-card")
    page.locator(cell(page, 1, 3)).click()
    wait_placed(page, 1)
    expect(page.locator("#practice-marker")).to_be_hidden()
    page.keyboard.press("z")
    answer_yes(page)
    wait_placed(page, 0)
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#current-card")).to_have_attribute("data-card", first or "")
    expect(page.locator("#live")).to_contain_text("Took back")


def test_pause_blocks_placing(page: Page) -> None:
    start_deal(page)
    page.locator(cell(page, 0, 0)).click()
    wait_placed(page, 1)
    page.keyboard.press("p")
    expect(page.locator("#pause-overlay")).to_be_visible()
    expect(page.locator("#pause-btn")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#hint-btn")).to_be_disabled()
    page.locator(cell(page, 0, 1)).click(force=True)  # the overlay covers the grid
    page.locator(cell(page, 0, 1)).focus()
    page.keyboard.press("Enter")
    page.keyboard.press("z")
    page.wait_for_timeout(300)
    wait_placed(page, 1)
    expect(page.locator("#live")).to_contain_text("Paused")
    page.locator("#pause-btn").click()
    expect(page.locator("#pause-overlay")).to_be_hidden()
    page.locator(cell(page, 0, 1)).click()
    wait_placed(page, 2)


def test_settings_keep_the_deal(page: Page) -> None:
    start_deal(page)
    page.locator(cell(page, 3, 3)).click()
    wait_placed(page, 1)
    before = grid_cards(page)
    page.locator("#settings-open").click()
    expect(page.locator("#settings-dialog")).to_be_visible()
    expect(page.locator("#opt-sound")).not_to_be_checked()  # sound starts off
    page.locator("#opt-four-colour").check()
    page.keyboard.press("Escape")
    expect(page.locator("#settings-dialog")).to_be_hidden()
    assert grid_cards(page) == before
    expect(page.locator("html")).to_have_class(re.compile("four-colour"))
    page.locator(cell(page, 3, 4)).click()
    wait_placed(page, 2)


def test_reload_goes_straight_back_to_the_grid(page: Page) -> None:
    start_deal(page, table="british", target="hard")
    for n, (r, c) in enumerate([(0, 0), (4, 4), (2, 3), (1, 0)]):
        page.locator(cell(page, r, c)).click()
        wait_placed(page, n + 1)
    before = grid_cards(page)
    current = page.locator("#current-card").get_attribute("data-card")
    page.reload()
    # No setup screen and no Continue press: the deal is back, the cursor on an empty cell.
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#setup")).to_be_hidden()
    expect(page.locator(cell(page, 0, 1))).to_be_focused()
    assert grid_cards(page) == before
    expect(page.locator("#current-card")).to_have_attribute("data-card", current or "")
    expect(page.locator("#current-label")).to_have_text("Card 5 of 25")
    expect(page.locator("#fact-table")).to_have_text("British")
    expect(page.locator("#fact-target")).to_contain_text("20")
    # New deal from the game offers Continue on the setup screen, which comes back to it.
    page.locator("#new-deal-btn").click()
    expect(page.locator("#continue-box")).to_be_visible()
    expect(page.locator("#continue-text")).to_contain_text("4 of 25")
    page.locator("#continue-btn").click()
    expect(page.locator("#play")).to_be_visible()
    assert grid_cards(page) == before


def test_closed_tab_then_back_to_the_deal(new_page: NewPage, page: Page) -> None:
    start_deal(page)
    page.locator(cell(page, 2, 2)).click()
    wait_placed(page, 1)
    before = grid_cards(page)
    context = page.context
    page.close()
    again = context.new_page()
    again.goto(PS)
    expect(again.locator("#play")).to_be_visible()
    expect(again.locator(".cell.filled")).to_have_count(1)
    assert grid_cards(again) == before


def test_language_switch_keeps_the_game(page: Page) -> None:
    start_deal(page)
    page.locator(cell(page, 1, 1)).click()
    wait_placed(page, 1)
    before = grid_cards(page)
    code = before[6] or ""
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#hint-btn")).to_contain_text("ヒント")
    assert grid_cards(page) == before
    label = page.locator(cell(page, 1, 1)).get_attribute("aria-label") or ""
    assert "2行2列" in label and "の" in label, label
    page.locator(cell(page, 1, 2)).click()
    wait_placed(page, 2)
    # Remembered: a reload comes back in Japanese, straight to the same game.
    page.reload()
    expect(page.locator("#hint-btn")).to_contain_text("ヒント")
    expect(page.locator(cell(page, 1, 1))).to_have_attribute("data-card", code)
    page.locator("[data-set-lang=en]").click()
    expect(page.locator("#hint-btn")).to_contain_text("Hint")


def test_line_score_highlights_and_names_the_hand(page: Page) -> None:
    start_deal(page)
    for c in range(5):
        page.locator(cell(page, 0, c)).click()
        wait_placed(page, c + 1)
    score = page.locator(".score[data-line='0']")
    expect(score).not_to_have_text("–")
    score.click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    expect(page.locator("#line-caption")).to_contain_text(re.compile(r"Row 1: .+ points?"))
    expect(page.locator(".score[data-line='5']")).to_have_text("–")
    page.locator("#current-card").click()
    expect(page.locator(".cell.in-line")).to_have_count(0)


def test_replay_is_practice_and_best_scores(page: Page) -> None:
    start_deal(page, table="american", target="easy")
    play_to_the_end(page)
    total = int(page.locator("#end-total").get_attribute("data-total") or -1)
    expect(page.locator(".best-table .best-unassisted")).to_have_text(str(total))
    first_cards = grid_cards(page)
    page.locator("#replay-btn").click()
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#replay-marker")).to_be_visible()
    play_to_the_end(page)
    # The same deal in the same cells gives the same grid and total, counted as practice.
    assert grid_cards(page) == first_cards
    expect(page.locator(".best-table .best-practice")).to_have_text(str(total))
    expect(page.locator(".best-table .best-unassisted")).to_have_text(str(total))


def test_phone_with_touch(new_page: NewPage) -> None:
    page = new_page(phone=True)
    start_deal(page)
    height = 844
    for sel in ["#board", "#current-card", "#hint-btn", "#undo-btn", "#pause-btn", "#deck"]:
        box = page.locator(sel).bounding_box()
        assert box is not None, sel
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (sel, box)
    for n in range(3):
        page.locator(".cell.empty").first.tap()
        wait_placed(page, n + 1)
    page.locator("#undo-btn").tap()
    wait_placed(page, 2)
    # Indices stay legible: a card at least 56 CSS pixels wide.
    width = page.locator(".cell").first.bounding_box()
    assert width is not None and width["width"] >= 56


def test_without_storage_shows_notice_and_still_plays(new_page: NewPage) -> None:
    blocked = (
        "Object.defineProperty(window, 'localStorage', {configurable: true,"
        " get() { throw new DOMException('blocked', 'SecurityError'); }});"
    )
    page = new_page(init_script=blocked)
    page.goto(PS)
    expect(page.locator("#storage-notice")).to_be_visible()
    expect(page.locator("#storage-notice")).to_contain_text("does not let the site store")
    start_deal(page)
    page.locator(cell(page, 0, 0)).click()
    wait_placed(page, 1)
    page.locator(cell(page, 0, 1)).click()
    wait_placed(page, 2)
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator("#storage-notice")).to_contain_text("保存できません")
    assert grid_cards(page)[0] is not None


def test_reduced_motion_is_honoured(new_page: NewPage) -> None:
    page = new_page(reduced_motion="reduce")
    start_deal(page)
    duration = page.locator("#current-card .card-svg").evaluate(
        "el => getComputedStyle(el).animationDuration"
    )
    assert duration in ("0.001s", "1ms"), duration


def test_time_to_interactive_grid(new_page: NewPage, screenshot_dir: Path) -> None:
    """Measures (and prints) the time from navigation to the setup screen, and from the Deal
    press to a focused, interactive grid, on loopback; a returning player is back at once."""
    page = new_page(fresh=True)  # a first visit: nothing cached
    page.goto(PS)
    page.locator("#deal-btn").click()
    expect(page.locator(cell(page, 0, 0))).to_be_focused()
    marks = page.evaluate(
        "() => Object.fromEntries("
        "performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
    )
    assert marks["ps-screen-ready"] < marks["ps-grid-interactive"]
    # A returning player: a reload brings the grid back (the saved deal comes from
    # GET /api/continue), focused on its first empty cell.
    page.reload()
    expect(page.locator(cell(page, 0, 0))).to_be_focused()
    again = page.evaluate("() => performance.getEntriesByName('ps-screen-ready')[0].startTime")
    deal = marks["ps-grid-interactive"] - marks["ps-deal-pressed"]
    report = (
        f"first visit: setup ready {marks['ps-screen-ready']:.0f} ms after navigation start; "
        f"Deal pressed to interactive grid {deal:.0f} ms (POST /api/players + POST game); "
        f"returning visit (reload): the deal's grid ready {again:.0f} ms "
        "after navigation start (GET /api/continue + scores)\n"
    )
    (screenshot_dir.parent / "timing.txt").write_text(report)


def test_two_tabs_stale_version_shows_the_latest_state(
    page: Page, console_guard: ConsoleGuard
) -> None:
    console_guard.allow("status of 409")
    start_deal(page)
    page.locator(cell(page, 0, 0)).click()
    wait_placed(page, 1)
    other = page.context.new_page()
    console_guard.watch(other)
    other.goto(PS)
    expect(other.locator("#play")).to_be_visible()
    other.locator(cell(other, 4, 4)).click()
    expect(other.locator(".cell.filled")).to_have_count(2)
    # The first tab still shows one card; its next move is refused as stale and it catches up.
    page.locator(cell(page, 2, 2)).click()
    expect(page.locator("#error")).to_contain_text("another tab")
    wait_placed(page, 2)
    assert grid_cards(page) == grid_cards(other)


def play_to_the_end(page: Page) -> None:
    """All but the last card through the API (first empty cell each), the last by a click."""
    expect(page.locator("#current-card[data-card]")).to_have_count(1)  # a deal is shown
    place_by_api(page)
    page.locator(".cell.empty").first.click()
    wait_placed(page, 25)
    expect(page.locator("#end")).to_be_visible()


def test_undo_is_off_at_the_end(page: Page) -> None:
    start_deal(page)
    play_to_the_end(page)
    before = grid_cards(page)
    total = page.locator("#end-total").get_attribute("data-total")
    expect(page.locator("#undo-btn")).to_be_disabled()
    expect(page.locator("#undo-btn")).to_be_hidden()  # the end offers Replay and New deal
    page.locator("body").focus()
    page.keyboard.press("z")
    page.locator(cell(page, 2, 2)).focus()
    page.keyboard.press("z")
    page.wait_for_timeout(300)
    assert grid_cards(page) == before
    expect(page.locator("#end")).to_be_visible()
    expect(page.locator("#end-total")).to_have_attribute("data-total", total or "")
    expect(page.locator("#practice-marker")).to_be_hidden()
    expect(page.locator("#error")).to_be_empty()
    # Still finished after a reload: the server kept the deal as it was.
    page.reload()
    expect(page.locator("#setup")).to_be_visible()
    expect(page.locator("#continue-box")).to_be_hidden()


def test_end_has_one_new_deal_button(page: Page) -> None:
    start_deal(page)
    play_to_the_end(page)
    new_deal = page.get_by_role("button", name="New deal", exact=True)
    expect(new_deal).to_have_count(1)
    new_deal.click()
    expect(page.locator("#setup")).to_be_visible()


def test_hint_numbers_have_a_legend(new_page: NewPage) -> None:
    for locale, words in (("en-US", "final total"), ("ja-JP", "最終合計")):
        page = new_page(locale=locale)
        start_deal(page)
        page.locator(cell(page, 2, 2)).click()
        wait_placed(page, 1)
        legend = page.locator("#hint-legend")
        expect(legend).to_be_hidden()
        page.locator("#hint-btn").click()  # the button does not ask: pressing it is the choice
        expect(page.locator(".cell.hinted")).to_have_count(1)
        expect(legend).to_be_visible()
        expect(legend).to_contain_text(words)
        # The sample number is the hinted cell's own estimate, as shown on the cell.
        shown = page.locator(".cell.hinted .est").text_content()
        expect(page.locator("#legend-est")).to_have_text(shown or "?")
        page.locator(".cell.hinted").click()
        wait_placed(page, 2)
        expect(legend).to_be_hidden()


def test_a_click_in_the_page_margin_clears_a_line_highlight(page: Page) -> None:
    start_deal(page)
    for c in range(5):
        page.locator(cell(page, 0, c)).click()
        wait_placed(page, c + 1)
    score = page.locator(".score[data-line='0']")
    targets = [
        ("the left margin of the page", lambda: page.mouse.click(8, 500)),
        ("the right margin of the page", lambda: page.mouse.click(1270, 700)),
        ("the keys help", lambda: page.locator("#keys-help").click()),
        ("the current card", lambda: page.locator("#current-card").click()),
    ]
    for where, click in targets:
        score.click()
        expect(page.locator(".cell.in-line"), where).to_have_count(5)
        click()
        expect(page.locator(".cell.in-line"), where).to_have_count(0)
        expect(page.locator("#line-caption"), where).to_be_empty()
    # Inside the grid a score cell switches lines; a card cell does not clear.
    score.click()
    page.locator(".score[data-line='5']").click()
    expect(page.locator(".cell.in-line")).to_have_count(5)
    expect(page.locator(".score[data-line='5']")).to_have_class(re.compile("active"))


def test_paused_title_icon_is_svg(page: Page) -> None:
    start_deal(page)
    page.keyboard.press("p")
    title = page.locator(".pause-title")
    expect(title.locator("svg.pause-icon")).to_be_visible()
    before = title.evaluate("el => getComputedStyle(el, '::before').content")
    assert before in ("none", "normal"), before
    expect(title).to_have_text("Paused")


TABLE_IN_PANEL = """() => [...document.querySelectorAll('.best-table')]
  .filter((t) => t.offsetParent).map((t) => {
    const panel = t.closest('.panel').getBoundingClientRect();
    const box = t.getBoundingClientRect();
    return [t.closest('.panel').id, box.left - panel.left, panel.right - box.right];
  })"""


def test_best_scores_stay_inside_their_panel(new_page: NewPage) -> None:
    """The best-scores table fits its panel on the setup and end screens, in both languages
    (switched in place: the page re-renders the same screen) at both sizes."""

    def fits(phone: bool, screen: str) -> None:
        for lang in ("en", "ja"):
            page.locator(f"[data-set-lang={lang}]").click()
            expect(page.locator("html")).to_have_attribute("lang", lang)
            found = page.evaluate(TABLE_IN_PANEL)
            assert found, (phone, lang, screen)
            for panel, left, right in found:
                assert left >= 0 and right >= 0, (phone, lang, screen, panel, left, right)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= (390 if phone else 1280), (phone, lang, screen, width)

    for phone in (False, True):
        page = new_page(phone=phone)
        start_deal(page)
        play_to_the_end(page)
        page.locator("#end-new-btn").click()
        expect(page.locator("#best-setup")).to_be_visible()
        fits(phone, "setup")
        page.locator("#deal-btn").click()
        play_to_the_end(page)
        fits(phone, "end")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_h_and_z_ask_first_and_say_what_they_do(new_page: NewPage, lang: str) -> None:
    """H on an unassisted deal asks first (Cancel keeps it unassisted; "Don't ask again"
    stops the question); on the first card the hint says every cell is as good, not 25 equal
    numbers; Z with nothing to undo says so; a placement says what its lines now hold."""
    words = {
        "en": {
            "ask": "Use a hint?",
            "equal": "Every empty cell is as good for this card",
            "nothing": "Nothing to undo.",
            "so_far": "Row 1: 1 of 5 cards. Column 1: 1 of 5 cards.",
            "complete": "Row 1 complete:",
            "next": "Place next:",
        },
        "ja": {
            "ask": "ヒントを使いますか？",
            "equal": "この札はどの空きマスに置いても同じです",
            "nothing": "元に戻せる札はありません。",
            "so_far": "1行目：5枚中1枚。 1列目：5枚中1枚。",
            "complete": "1行目がそろいました：",
            "next": "次に置く札：",
        },
    }[lang]
    page = new_page(locale={"en": "en-US", "ja": "ja-JP"}[lang])
    start_deal(page)
    live = page.locator("#live")
    page.locator(cell(page, 0, 0)).focus()
    page.keyboard.press("z")
    expect(live).to_have_text(words["nothing"])
    # H asks; Esc cancels and the deal stays unassisted.
    page.keyboard.press("h")
    dialog = page.locator("#daily-ask")
    expect(dialog.locator("h2")).to_have_text(words["ask"])
    expect(page.locator("#daily-ask-keep")).to_be_focused()
    check_screen(page, f"hint question ({lang})", phone=False)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(".cell.hinted")).to_have_count(0)
    expect(page.locator("#practice-marker")).to_be_hidden()
    # Yes, and never ask again: the first card's hint is one sentence, no numbers.
    page.keyboard.press("h")
    page.locator("#daily-ask-quiet").check()
    page.locator("#daily-ask-yes").click()
    expect(page.locator(".cell.hinted")).to_have_count(1)
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator(".est:not(:empty)")).to_have_count(0)
    expect(page.locator("#legend-equal")).to_contain_text(words["equal"])
    expect(live).to_contain_text(words["equal"])
    # A placement says what its row and column now hold, then the card to place next.
    page.locator(cell(page, 0, 0)).click()
    wait_placed(page, 1)
    expect(live).to_contain_text(words["so_far"])
    expect(live).to_contain_text(words["next"])
    # A cell's name is joined in its own language's way (never "、" and ", " mixed).
    label = page.locator(cell(page, 0, 0)).get_attribute("aria-label") or ""
    assert (", " not in label and "、" in label) if lang == "ja" else ", " in label, label
    for col in range(1, 5):
        page.locator(cell(page, 0, col)).click()
        wait_placed(page, col + 1)
    expect(live).to_contain_text(words["complete"])
    # The next deal: H no longer asks.
    page.locator("#new-deal-btn").click()
    start_deal(page)
    page.locator(cell(page, 2, 2)).click()
    wait_placed(page, 1)
    page.keyboard.press("h")
    expect(page.locator(".cell.hinted")).to_have_count(1)
    expect(dialog).to_be_hidden()


def test_choices_read_as_chosen_on_the_dark_page_and_in_dialogs(page: Page) -> None:
    """A chosen radio is gold on the dark page (a white ring read as unchosen beside the grey
    ones), and the settings dialog draws its boxes light (unchecked ones looked filled)."""
    page.goto(PS)
    expect(page.locator("#setup")).to_be_visible()
    radio = page.locator("input[name=table][value=american]")
    expect(radio).to_be_checked()
    gold = page.evaluate(
        "() => getComputedStyle(document.documentElement).getPropertyValue('--gold')"
    )
    accent = radio.evaluate("(e) => getComputedStyle(e).accentColor")
    probe = page.evaluate(
        "(c) => { const d = document.createElement('i'); d.style.color = c;"
        " document.body.append(d); const v = getComputedStyle(d).color; d.remove(); return v; }",
        gold.strip(),
    )
    assert accent == probe, (accent, probe)
    # "Daily deal" beside "Deal" with a gap, never touching.
    deal, daily = (
        page.locator("#deal-btn").bounding_box(),
        page.locator("#daily-btn").bounding_box(),
    )
    assert deal and daily and daily["x"] - (deal["x"] + deal["width"]) >= 8, (deal, daily)
    page.locator("#settings-open").click()
    box = page.locator("#opt-sound")
    expect(box).to_be_visible()
    assert box.evaluate("(e) => getComputedStyle(e).colorScheme") == "light"
