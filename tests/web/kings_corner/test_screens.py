"""Screenshots of the Kings Corner screen at desktop (1280x800) and phone (390x844) size in both
languages, saved under test-artifacts/screenshots/ for a person to look at: settings, the table
mid-turn, a card and a pile chosen with their outlines, a computer turn in progress (it follows
End turn by itself), pause, the hand-off, the end of a round and of a match. Each state also passes
axe-core (no violation of any impact, the experimental label-content rule on) and, on a
phone, has tap targets of at least 44x44 px inside `<main>`."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from playwright.sync_api import expect

from cardtable import kings_corner as kc
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.kc_helpers import (
    CENTRE,
    KC,
    card,
    page_version,
    pile,
    pile_move_seed,
    play_turns,
    quick_seed,
    seeded_match,
    set_speed,
    settle,
    shot,
)

SIZES = ["desktop", "phone"]
LANGS = {"en": "en-US", "ja": "ja-JP"}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", list(LANGS))
def test_kings_corner_screenshots(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, size: str, lang: str
) -> None:
    phone = size == "phone"
    page = new_page(phone=phone, locale=LANGS[lang])
    tag = f"{lang}-{size}"

    def look(name: str, **kw: bool) -> None:
        """Screenshot this state and check it (axe; tap targets on a phone)."""
        shot(page, screenshot_dir, f"{name}-{tag}", **kw)
        check_screen(page, f"{name} ({tag})", phone=phone)

    page.goto(KC)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    # The server writes `lang`; the setup shows once the page has its strings and knows there
    # is no match to resume (axe once ran before that, on an untranslated page, under load).
    expect(page.locator("#setup")).to_be_visible()
    check_screen(page, f"setup, defaults ({tag})", phone=phone)
    page.locator("input[name=players][value='3']").check()
    page.locator("input[name=preset][value=custom]").check()
    look("setup")
    shot(page, screenshot_dir, f"setup-{tag}-full", full_page=True)

    seed = pile_move_seed()
    seeded_match(page, live_app, seed, rounds=3, speed="slow")
    state = settle(page, live_app).match.state
    moves = [str(m) for m in kc.legal_moves(state)]
    look("table")
    first_play = next(m for m in moves if m != "end" and m.split(">")[0] not in CENTRE)
    card(page, first_play.split(">")[0]).click()
    expect(page.locator("#cross .pile.target").first).to_be_visible()
    look("card-chosen")
    page.keyboard.press("Escape")
    first_shift = next(m for m in moves if m.split(">")[0] in CENTRE)
    pile(page, first_shift.split(">")[0]).click()
    expect(page.locator("#cross .pile.target").first).to_be_visible()
    look("pile-chosen")
    page.keyboard.press("Escape")
    # By keyboard: a card chosen with Enter sends focus to a target; Esc brings it back to
    # the card, never to the top of the page (issue 44).
    chosen = card(page, first_play.split(">")[0])
    chosen.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#cross .pile.target").first).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#cross .pile.target")).to_have_count(0)
    expect(chosen).to_be_focused()

    # End the turn: against the computer its turn follows at once, at slow speed.
    version = page_version(page)
    page.locator("#end-btn").click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(version))
    expect(page.locator("#next-btn")).to_be_hidden()
    version = page_version(page)
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(version))
    shot(page, screenshot_dir, f"computer-turn-{tag}")  # moving: checked once paused
    page.keyboard.press("p")
    expect(page.locator("#pause-overlay")).to_be_visible()
    look("paused")
    set_speed(page, "instant")
    page.keyboard.press("p")

    # The end of a round (of three) and of a match, on short deals.
    seeded_match(page, live_app, quick_seed(rounds=3).seed, rounds=3)
    play_turns(page, live_app)
    expect(page.locator("#next-round-btn")).to_be_visible()
    # The round's column is named as a round on every size, never a bare "1".
    header = page.locator("#end-table thead th.num").first
    long, short = {"en": ("Round 1", "R1"), "ja": ("第1回", "第1回")}[lang]
    expect(header.locator(".col-long")).to_have_text(long)
    if phone:
        expect(header.locator(".col-short")).to_be_visible()
        expect(header.locator(".col-short")).to_have_text(short)
    else:
        expect(header.locator(".col-short")).to_be_hidden()
    page.evaluate("() => window.scrollTo(0, 0)")
    look("round-end")
    shot(page, screenshot_dir, f"round-end-{tag}-full", full_page=True)

    seeded_match(page, live_app, quick_seed().seed, rounds=1)
    play_turns(page, live_app)
    expect(page.locator("#rematch-btn")).to_be_visible()
    page.evaluate("() => window.scrollTo(0, 0)")
    look("match-end")

    seeded_match(
        page, live_app, seed, seats=(("human", None), ("human", None), ("computer", "strong"))
    )
    expect(page.locator("#handoff")).to_be_visible()
    look("handoff")
    page.locator("#reveal-btn").click()
    expect(page.locator("#hand .hand-card").first).to_be_visible()
    look("revealed")
