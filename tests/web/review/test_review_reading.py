"""What new players tripped over reading a Poker Squares review (issue 44; docs/review.md,
"Reading a review"): a placement picked from the marked list or the graph is brought into
view and takes focus (smoothly, but at once under reduced motion); placements made after a
hint are marked and left out of the accuracy; the review header keeps to one row on a
phone. Both languages, phone (390x844) and desktop (1280x800), axe on every new state."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from tests.web.a11y import assert_no_axe_violations, assert_tap_targets, check_screen
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.review.test_review import REVIEW_TIMEOUT, WORDS, new_player, post, review_of

LOCALE = {"en": "en-US", "ja": "ja-JP"}
HINTS = (2, 6)
"""The placements (0-based) made after asking for a hint in `hinted_deal`."""

HINTED: dict[str, dict[str, str]] = {
    "en": {
        "item": "Placement {n} (",
        "after": "made after a hint",
        "note": "Made after a hint: not counted in the accuracy.",
        "accuracy": "The {n} placements made after a hint are not counted.",
        "own": "{good} of the {placements} placements you made without a hint",
    },
    "ja": {
        "item": "配置{n}（",
        "after": "ヒントを見て置いた手",
        "note": "ヒントを見て置いた手なので、正確さには数えていません。",
        "accuracy": "ヒントを見て置いた{n}回は数えていません。",
        "own": "ヒントなしで置いた{placements}回のうち{good}回",
    },
}


def hinted_deal(page: Page, headers: dict[str, str], hints: tuple[int, ...] = HINTS) -> Any:
    """A finished deal played row by row (poor play: many marked placements), except that
    before each placement in ``hints`` the player asks for a hint and follows it."""
    game = post(page.request, "/api/poker-squares/games", headers, {"table": "american"})
    base = f"/api/poker-squares/games/{game['id']}"
    for i in range(25):
        grid = game["view"]["grid"]
        row, col = next((r, c) for r in range(5) for c in range(5) if grid[r][c] is None)
        if i in hints:
            answer = post(page.request, f"{base}/hint", headers, {"version": game["version"]})
            game = answer["game"]
            row, col = answer["hint"]["row"], answer["hint"]["col"]
        body = {"version": game["version"], "row": row, "col": col}
        game = post(page.request, f"{base}/moves", headers, body)
    assert game["view"]["is_over"]
    return game


def open_review(new_page: NewPage, lang: str, phone: bool) -> tuple[Page, Any]:
    """The review page of a fresh `hinted_deal`, once the server has worked it out; and the
    review as the server answers it."""
    page = new_page(phone=phone, locale=LOCALE[lang])
    headers = new_player(page)
    game = hinted_deal(page, headers)
    page.goto(f"/ps-review.html?game={game['id']}")
    expect(page.locator("#review")).to_be_visible(timeout=REVIEW_TIMEOUT)
    return page, review_of(page, headers, game["id"])


def to_bottom(page: Page) -> None:
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")


def picked(page: Page, lang: str, step: int) -> None:
    """Placement ``step`` is on show, its heading and verdict in full view and focused."""
    expect(page.locator("#step-title")).to_have_text(WORDS[lang]["title"].format(n=step))
    expect(page.locator("#step-head")).to_be_in_viewport(ratio=1)
    expect(page.locator("#step-title")).to_be_focused()


def step_of(locator: Locator) -> int:
    return int(locator.get_attribute("data-step") or 0)


@pytest.mark.parametrize(
    ("lang", "phone"), [("en", True), ("ja", True), ("en", False), ("ja", False)]
)
def test_a_placement_picked_from_the_list_or_the_graph_comes_into_view_with_focus(
    new_page: NewPage, screenshot_dir: Path, lang: str, phone: bool
) -> None:
    page, review = open_review(new_page, lang, phone)
    size = "phone" if phone else "desktop"
    head = page.locator("#step-head")
    buttons = page.locator("#mistakes button")
    assert buttons.count() >= 3, "row-by-row play marks several placements"
    # From the list with the mouse: the last item, at the bottom of the page, far from the
    # step on show.
    to_bottom(page)
    last = buttons.last
    expect(last).to_be_in_viewport()
    expect(head).not_to_be_in_viewport()
    step = step_of(last)
    last.click()
    picked(page, lang, step)
    page.screenshot(path=str(screenshot_dir / f"review-ps-{lang}-{size}-picked.png"))
    check_screen(page, f"review, a placement picked ({lang}, {size})", phone=phone)
    # With the keyboard: Enter on another item; the keys then step on from the heading.
    to_bottom(page)
    other = buttons.nth(buttons.count() - 2)
    other.focus()
    expect(head).not_to_be_in_viewport()
    step = step_of(other)
    page.keyboard.press("Enter")
    picked(page, lang, step)
    # The verdict is announced, the card by its spoken name.
    said = page.locator("#step-verdict").evaluate(
        """(p) => [...p.childNodes].map((n) => n.nodeType === 3 ? n.data : n.ariaLabel).join('')"""
    )
    expect(page.locator("#live")).to_have_text(said)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step-title")).to_have_text(WORDS[lang]["title"].format(n=step - 1))
    # On the graph: a marked placement's dot.
    to_bottom(page)
    dot = page.locator("#graph circle.dot[data-step]").first
    step = step_of(dot)
    dot.click()
    picked(page, lang, step)
    check_screen(page, f"review, a placement picked on the graph ({lang}, {size})", phone=phone)
    # Under reduced motion the page jumps there at once (no smooth scroll): in view right
    # after the click, in the same task.
    page.emulate_media(reduced_motion="reduce")
    to_bottom(page)
    at_once = page.evaluate(
        """() => {
          const buttons = document.querySelectorAll('#mistakes button');
          buttons[buttons.length - 1].click();
          const box = document.getElementById('step-head').getBoundingClientRect();
          return box.top >= 0 && box.bottom <= innerHeight;
        }"""
    )
    assert at_once, "under reduced motion the step comes into view at once"
    assert review["accuracy"]["hinted"] == len(HINTS)


@pytest.mark.parametrize(("lang", "phone"), [("en", True), ("ja", False)])
def test_placements_made_after_a_hint_are_marked_and_left_out_of_the_accuracy(
    new_page: NewPage, screenshot_dir: Path, lang: str, phone: bool
) -> None:
    page, review = open_review(new_page, lang, phone)
    words = HINTED[lang]
    accuracy = review["accuracy"]
    assert accuracy["hinted"] == len(HINTS) and accuracy["placements"] == 25 - len(HINTS)
    hinted = [s for s in review["steps"] if s["hinted"]]
    assert [s["index"] for s in hinted] == list(HINTS)
    # The accuracy is the server's, and says which placements it counts.
    fact = page.locator("[data-fact='accuracy']")
    expect(fact.locator(".fact-value")).to_have_text(f"{accuracy['percent']}%")
    note = fact.locator(".fact-note")
    expect(note).to_contain_text(words["own"].format(**accuracy))
    expect(note).to_contain_text(words["accuracy"].format(n=len(HINTS)))
    # Each is in the list of marked placements, says so, and its verdict says so too.
    for step in hinted:
        n = step["index"] + 1
        item = page.locator(f"#mistakes li.hinted button[data-step='{n}']")
        expect(item).to_have_count(1)
        expect(item).to_contain_text(words["after"])
        if step["mark"] is None:
            expect(item).to_have_text(re.compile("^" + re.escape(words["item"].format(n=n))))
        item.click()
        verdict = page.locator("#step-verdict")
        expect(verdict).to_have_attribute("data-hinted", "true")
        expect(verdict).to_contain_text(words["note"])
    # The graph rings them.
    expect(page.locator("#graph circle.ring.hint")).to_have_count(len(HINTS))
    # A placement made without a hint says nothing of hints.
    page.locator("#first-btn").click()
    expect(page.locator("#step-verdict")).to_have_attribute("data-hinted", "false")
    expect(page.locator("#step-verdict")).not_to_contain_text(words["note"])
    size = "phone" if phone else "desktop"
    page.locator("#mistakes").screenshot(
        path=str(screenshot_dir / f"review-ps-{lang}-{size}-hinted-list.png")
    )
    check_screen(page, f"review with hinted placements ({lang}, {size})", phone=phone)


def online_replay_route(route: Route) -> None:
    """An online table's replay that is not there (the header is what is looked at)."""
    body = {"code": "not_found", "message": "no such table"}
    route.fulfill(status=404, content_type="application/json", body=json.dumps(body))


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_review_header_keeps_to_one_row(
    new_page: NewPage,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    lang: str,
    phone: bool,
) -> None:
    console_guard.allow("404")
    page = new_page(phone=phone, locale=LOCALE[lang])
    page.route("**/api/kings-corner/online/*/rounds/*", online_replay_route)
    size = "phone" if phone else "desktop"
    for name, path in (
        ("ps-review", "/ps-review.html"),
        ("kc-replay", "/kc-replay.html"),
        ("kc-replay-online", "/kc-replay.html?round=1#table=T0"),
    ):
        page.goto(path)
        expect(page.locator("body.ready")).to_have_count(1)
        expect(page.locator("#error")).not_to_be_empty()
        where = f"{path} header ({lang}, {size})"
        rows = page.evaluate(
            """() => [...document.querySelectorAll('.site-header > *')].map((el) => {
              const box = el.getBoundingClientRect();
              return [box.top, box.bottom];
            })"""
        )
        first_top, first_bottom = rows[0]
        assert all(top < first_bottom and bottom > first_top for top, bottom in rows), (
            f"{where}: the header wraps: {rows}"
        )
        link = page.locator(".site-nav a")
        cut = link.evaluate("a => a.scrollWidth - a.clientWidth")
        assert cut <= 0, f"{where}: the link's text is cut by {cut} px"
        page.locator(".site-header").screenshot(
            path=str(screenshot_dir / f"header-{name}-{size}-{lang}.png")
        )
        assert_no_axe_violations(page, where, within=".site-header")
        if phone:
            assert_tap_targets(page, where, within=".site-header")
