"""The review pages in the browser (docs/review.md): the Poker Squares deal review reached from
the end screen and stepped with keys, buttons, the slider and the marked placements; the
Kings Corner round replay reached from the round's end and stepped the same way; both
languages, phone and desktop, axe-clean, no console error; nothing shown for a game in
progress."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import APIRequestContext, Page, expect

from cardtable.server.devices.players import player_key
from cardtable.server.games.kc_table import Table

from .a11y import check_screen
from .conftest import ConsoleGuard, NewPage
from .helpers import cell
from .kc_helpers import play_turns, quick_seed, seeded_match, store_of

REVIEW_TIMEOUT = 90_000  # ms: the review of one deal takes a few seconds of one core
PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}


def new_player(page: Page) -> dict[str, str]:
    """A fresh player for ``page`` (stored where the site keeps it); its request headers."""
    page.goto("/")
    pid = page.request.post("/api/players").json()["player_id"]
    page.evaluate("id => localStorage.setItem('cardtable.player', id)", pid)
    return {"X-Player-Id": pid, "Content-Type": "application/json"}


def post(request: APIRequestContext, path: str, headers: dict[str, str], body: Any) -> Any:
    answer = request.post(path, data=json.dumps(body), headers=headers)
    assert answer.ok, answer.text()
    return answer.json()


def ps_deal(page: Page, headers: dict[str, str], placed: int, table: str = "american") -> Any:
    """A deal with ``placed`` cards placed row by row, through the API."""
    game = post(page.request, "/api/poker-squares/games", headers, {"table": table})
    for i in range(placed):
        body = {"version": game["version"], "row": i // 5, "col": i % 5}
        game = post(page.request, f"/api/poker-squares/games/{game['id']}/moves", headers, body)
    return game


def step_title(page: Page) -> str:
    return page.locator("#step-title").inner_text()


def no_overflow(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"horizontal overflow: {width}px"  # type: ignore[index]


def test_poker_squares_review_from_the_end_screen(
    page: Page, live_app: FastAPI, screenshot_dir: Path
) -> None:
    headers = new_player(page)
    game = ps_deal(page, headers, 24)
    page.goto("/poker-squares.html")  # the deal in progress comes straight back
    page.locator(cell(page, 4, 4)).click()
    review_link = page.locator("#review-btn")
    expect(review_link).to_be_visible()
    review_link.click()
    expect(page.locator("#review")).to_be_visible(timeout=REVIEW_TIMEOUT)
    total = page.request.get(f"/api/poker-squares/games/{game['id']}", headers=headers).json()
    total = total["view"]["total"]
    expect(page.locator("[data-fact='score'] dd")).to_have_text(str(total))
    assert step_title(page) == "Placement 1 of 25"
    # Keys from anywhere on the page, the buttons, the slider.
    page.locator("#review-title").click()
    page.keyboard.press("End")
    expect(page.locator("#step-title")).to_have_text("Placement 25 of 25")
    expect(page.locator("#next-btn")).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#step-title")).to_have_text("Placement 24 of 25")
    expect(page.locator("#live")).to_contain_text("Placement 24 of 25")
    page.keyboard.press("Home")
    expect(page.locator("#step-title")).to_have_text("Placement 1 of 25")
    page.locator("#next-btn").click()
    expect(page.locator("#step-title")).to_have_text("Placement 2 of 25")
    page.locator("#step-slider").fill("10")
    expect(page.locator("#step-title")).to_have_text("Placement 10 of 25")
    # Placement 10 went to row 2, column 5: outlined; the grid holds the 9 cards before it.
    expect(page.locator(".rv-cell.chosen")).to_have_count(1)
    assert page.locator(".rv-cell.chosen").get_attribute("data-row") == "1"
    assert page.locator(".rv-cell.chosen").get_attribute("data-col") == "4"
    expect(page.locator(".rv-cell.filled")).to_have_count(9)
    expect(page.locator(".rv-cell.best")).to_have_count(1)
    # Row by row is poor play: marked placements, each a way to its step.
    marked = page.locator("#mistakes button")
    assert marked.count() > 0
    first = marked.first
    step = int(first.get_attribute("data-step") or 0)
    first.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#step-title")).to_have_text(f"Placement {step} of 25")
    assert page.locator("#step-verdict").get_attribute("data-mark") != "none"
    expect(page.locator("#graph svg circle.dot")).not_to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "review-ps-en-desktop.png"), full_page=True)
    check_screen(page, "poker squares review (en, desktop)", phone=False)


@pytest.mark.parametrize("table", ["british"])
def test_poker_squares_review_in_japanese_on_a_phone(
    new_page: NewPage, screenshot_dir: Path, table: str
) -> None:
    page = new_page(phone=True, locale="ja-JP")
    headers = new_player(page)
    game = ps_deal(page, headers, 25, table)
    page.goto(f"/ps-review.html?game={game['id']}")
    expect(page.locator("#review")).to_be_visible(timeout=REVIEW_TIMEOUT)
    expect(page.locator("#review-title")).to_have_text("ディールの検討")
    expect(page.locator("#step-title")).to_have_text("配置 1 / 25")
    expect(page.locator("[data-fact='table'] dd")).to_have_text("英国式")
    page.locator("#next-btn").click()
    expect(page.locator("#live")).to_contain_text("配置 2 / 25")
    no_overflow(page)
    page.screenshot(path=str(screenshot_dir / "review-ps-ja-phone.png"), full_page=True)
    check_screen(page, "poker squares review (ja, phone)", phone=True)
    # Shown again at once: stored.
    page.reload()
    expect(page.locator("#review")).to_be_visible(timeout=5_000)


def test_a_deal_in_progress_shows_no_review(page: Page, console_guard: ConsoleGuard) -> None:
    console_guard.allow("409")
    headers = new_player(page)
    game = ps_deal(page, headers, 3)
    page.goto(f"/ps-review.html?game={game['id']}")
    expect(page.locator("#error")).to_contain_text("No deal to review")
    expect(page.locator("#review")).to_be_hidden()
    expect(page.locator("[data-card]")).to_have_count(0)


# -- Kings Corner -------------------------------------------------------------------------------


def kc_round(page: Page, headers: dict[str, str], players: int = 3) -> Any:
    """A one-round match played to its end through the API (the person plays cards while any
    fits, then ends the turn)."""
    seats = [{"kind": "human"}] + [{"kind": "computer", "strength": "normal"}] * (players - 1)
    body = {"seats": seats, "rules": {"preset": "standard"}, "rounds": 1}
    game = post(page.request, "/api/kings-corner/games", headers, body)
    base = f"/api/kings-corner/games/{game['id']}"
    for _ in range(3000):
        if game["phase"] == "match_over":
            return game
        version = {"version": game["version"]}
        if game["phase"] == "computer":
            game = post(page.request, f"{base}/computer-step", headers, version)
            continue
        legal = game["view"]["legal_moves"]
        plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
        move = plays[0] if plays else "end"
        game = post(page.request, f"{base}/moves", headers, {**version, "move": move})
    raise AssertionError("the round did not end")


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("ja", True)])
def test_kings_corner_replay_steps_through_every_turn(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, lang: str, phone: bool
) -> None:
    page = new_page(phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    headers = new_player(page)
    game = kc_round(page, headers)
    page.goto(f"/kc-replay.html?game={game['id']}&round=1")
    expect(page.locator("#replay")).to_be_visible()
    title = "Replay of round 1" if lang == "en" else "ラウンド1の再生"
    expect(page.locator("#replay-title")).to_have_text(title)
    expect(page.locator("#hands .kr-hand")).to_have_count(3)
    expect(page.locator("#advice tbody tr")).to_have_count(3)
    page.locator("#replay-title").click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-slider")).to_have_value("1")
    expect(page.locator(".kr-pile.landed, .kr-hand.to-play")).not_to_have_count(0)
    page.screenshot(
        path=str(screenshot_dir / f"review-kc-{lang}-{'phone' if phone else 'desktop'}.png"),
        full_page=True,
    )
    check_screen(page, f"kings corner replay ({lang})", phone=phone)
    # The last step shows every hand as the engine left it.
    page.keyboard.press("End")
    pid = headers["X-Player-Id"]
    record = store_of(live_app).load_game(game["id"], player_key(pid))
    assert record is not None
    state = Table.from_dict(record.state).match.state
    for seat, hand in enumerate(state.hands):
        shown = page.locator(f".kr-hand[data-seat='{seat}'] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert shown == [str(c) for c in hand]
    for name, pile in state.piles.items():
        shown = page.locator(f".kr-pile[data-pile='{name}'] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert shown == [str(c) for c in pile]
    expect(page.locator("#next-btn")).to_be_disabled()
    no_overflow(page)


def test_kings_corner_replay_from_the_round_end(page: Page, live_app: FastAPI) -> None:
    seeded_match(page, live_app, quick_seed().seed, rounds=1)
    play_turns(page, live_app)
    link = page.locator("#replay-round-btn")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#step-text")).not_to_be_empty()
    page.locator("#last-btn").click()
    expect(page.locator("#last-btn")).to_be_disabled()


def test_a_round_in_progress_is_never_shown(page: Page, console_guard: ConsoleGuard) -> None:
    console_guard.allow("409")
    headers = new_player(page)
    seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
    body = {"seats": seats, "rules": {"preset": "standard"}, "rounds": 1}
    game = post(page.request, "/api/kings-corner/games", headers, body)
    page.goto(f"/kc-replay.html?game={game['id']}&round=1")
    expect(page.locator("#error")).to_contain_text("No round to replay")
    expect(page.locator("#replay")).to_be_hidden()
    expect(page.locator("[data-card]")).to_have_count(0)
