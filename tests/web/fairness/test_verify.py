"""Provably fair shuffles in the browser (docs/fairness.md): fairness.js agrees with the
Python shuffle and commitment on many seeds; a finished Poker Squares deal and a finished
Kings Corner round are verified on the "verify this shuffle" page reached from their end
screens, in both languages at phone size, axe-clean, with no console error; a tampered value
is reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable import fairness
from cardtable.server.core.settings import WEB_DIR
from tests.web.a11y import check_screen
from tests.web.conftest import NewPage
from tests.web.helpers import cell, start_deal, wait_placed
from tests.web.kc_helpers import KC, seeded_match, settle

STRINGS = {
    lang: json.loads(
        (WEB_DIR / "assets" / "i18n" / f"fairness.{lang}.json").read_text(encoding="utf-8")
    )
    for lang in ("en", "ja")
}
PILES = {"N", "E", "S", "W", "NE", "SE", "SW", "NW"}
SEEDS = 24


def test_fairness_js_agrees_with_python(page: Page) -> None:
    seeds = [fairness.new_seed() for _ in range(SEEDS)] + ["00" * 32, bytes(range(32)).hex()]
    salts = [fairness.new_salt() for _ in seeds]
    page.goto("/verify.html")
    expect(page.locator("body[data-verify-ready]")).to_have_count(1)
    got = page.evaluate(
        """async ([seeds, salts]) => {
          const m = await import("/assets/js/core/fairness.js");
          const out = [];
          for (let k = 0; k < seeds.length; k++) {
            out.push([await m.fairDeck(seeds[k]), await m.commitmentOf(seeds[k], salts[k])]);
          }
          return out;
        }""",
        [seeds, salts],
    )
    for (deck, commit), seed, salt in zip(got, seeds, salts, strict=True):
        assert deck == [str(c) for c in fairness.fair_deck(seed)]
        assert commit == fairness.commitment(seed, salt)


def fragment(page: Page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(page.url.split("#", 1)[1]).items()}


def checks(page: Page) -> dict[str, str]:
    return dict(
        page.locator("#checks li").evaluate_all(
            "els => els.map(e => [e.dataset.check, e.dataset.ok])"
        )
    )


def verified(page: Page, lang: str) -> None:
    expect(page.locator("body[data-verified=done]")).to_have_count(1)
    expect(page.locator("#verdict")).to_have_text(STRINGS[lang]["fair.verified"])


@pytest.mark.parametrize(
    ("lang", "phone"), [("en", True), ("ja", True), ("en", False), ("ja", False)]
)
def test_verify_a_finished_poker_squares_deal(
    new_page: NewPage, lang: str, phone: bool, screenshot_dir: Path
) -> None:
    page = new_page(phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    start_deal(page)
    for i in range(25):
        page.locator(cell(page, i // 5, i % 5)).click()
        wait_placed(page, i + 1)
    link = page.locator("#verify-btn")
    expect(link).to_have_text(STRINGS[lang]["fair.verify_btn"])
    link.click()
    verified(page, lang)
    values = fragment(page)
    seed, salt = values["seed"], values["salt"]
    assert values["commitment"] == fairness.commitment(seed, salt) == values["before"]
    # The page recorded the cards in the order they were turned, before the reveal.
    deck = [str(c) for c in fairness.fair_deck(seed)]
    assert values["cards"].split() == deck[:25] and "any" not in values
    assert checks(page) == {"commitment": "true", "before": "true", "cards": "true"}
    # Cards as people read them, each named once for screen readers; no raw notation.
    expect(page.locator("#dealt")).to_have_text(shown(deck[:25]))
    expect(page.locator("#deck")).to_have_text(shown(deck))
    names = chips_named(page, "#dealt")
    assert len(names) == 25 and all(names)
    if lang == "en":
        rank = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
        suit = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
        code = deck[0]
        assert names[0] == f"{rank.get(code[0], code[0])} of {suit[code[1]]}"
    # The page checked by itself; the values are folded away, for experts a short how-to.
    expect(page.locator("#values-box")).not_to_have_attribute("open", "")
    expect(page.locator("#f-seed")).to_be_hidden()
    expect(page.locator(".experts summary")).to_have_text(STRINGS[lang]["fair.experts"])
    size = "phone" if phone else "desktop"
    page.screenshot(path=str(screenshot_dir / f"verify-ps-{lang}-{size}.png"), full_page=True)
    check_screen(page, f"verify a deal ({lang}, {size})", phone=phone)
    # A changed card is caught, and so is a commitment the seed and salt do not give.
    page.locator("#values-box summary").click()
    page.locator("#f-cards").fill(" ".join([deck[1], deck[0], *deck[2:25]]))
    page.locator("#verify-btn").click()
    expect(page.locator("#checks li[data-check=cards]")).to_have_attribute("data-ok", "false")
    expect(page.locator("#verdict")).to_have_text(STRINGS[lang]["fair.not_verified"])
    page.locator("#f-cards").fill(" ".join(deck[:25]))
    page.locator("#f-commitment").fill(fairness.commitment(seed, "00" * 16))
    page.locator("#verify-btn").click()
    expect(page.locator("#checks li[data-check=commitment]")).to_have_attribute("data-ok", "false")
    page.locator("#f-seed").fill("not hex")
    page.locator("#verify-btn").click()
    expect(page.locator("#error")).to_contain_text("seed must be 64 lowercase hex digits")


SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def shown(codes: list[str]) -> str:
    """Cards as the verify page writes them: "J♠ 10♥" for "JS TH"."""
    return " ".join(("10" if c[0] == "T" else c[0]) + SUITS[c[1]] for c in codes)


def chips_named(page: Page, selector: str) -> list[str]:
    """The spoken name of each card chip under ``selector``."""
    return page.locator(f"{selector} .card-chip").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )


def post(page: Page, path: str, headers: dict[str, str], body: Any) -> Any:
    answer = page.request.post(path, data=json.dumps(body), headers=headers)
    if answer.status == 409 and answer.json().get("code") == "stale_version":
        return answer.json()["current"]
    assert answer.ok, answer.text()
    return answer.json()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_verify_a_finished_kings_corner_round(
    new_page: NewPage, live_app: FastAPI, lang: str
) -> None:
    page = new_page(phone=True, locale="ja-JP" if lang == "ja" else "en-US")
    # A server-dealt (fair) match of 3 rounds; the page sees its first view (commitment, hand).
    # The deal is the server's own, so now and then the computer ends round 1 before the
    # person's first turn (its seed is then already public): such a match is set aside.
    ended_early = []
    for _ in range(5):
        game_id = seeded_match(page, live_app, None, rounds=3, speed="instant")
        settle(page, live_app)
        pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
        page.goto("/")
        headers = {"X-Player-Id": pid, "Content-Type": "application/json"}
        base = f"/api/kings-corner/games/{game_id}"
        game = page.request.get(base, headers=headers).json()
        first = game["view"]["fairness"]
        if game["phase"] != "round_over":
            break
        assert first["seed"] is not None, "a finished round shows its seed"
        ended_early.append(game["view"].get("ending"))
    assert game["phase"] != "round_over", f"every round 1 ended at once: {ended_early}"
    assert first["seed"] is None and first["salt"] is None and first["round"] == 1
    for _ in range(3000):  # the round played out through the API
        if game["phase"] == "round_over":
            break
        version = {"version": game["version"]}
        if game["phase"] == "computer":
            game = post(page, f"{base}/computer-step", headers, version)
            continue
        legal = game["view"]["legal_moves"]
        plays = [m for m in legal if m != "end" and m.split(">")[0] not in PILES]
        game = post(
            page, f"{base}/moves", headers, {**version, "move": plays[0] if plays else "end"}
        )
    assert game["phase"] == "round_over"
    page.goto(f"{KC}?continue")
    link = page.locator("#verify-btn")
    expect(link).to_have_text(STRINGS[lang]["fair.verify_btn"])
    link.click()
    verified(page, lang)
    values = fragment(page)
    assert values["commitment"] == first["commitment"] == values["before"]
    assert values["game"] == "kc" and values["round"] == "1" and values["seat"] == "0"
    deck = [str(c) for c in fairness.fair_deck(values["seed"])]
    assert set(deck[:7]) <= set(values["hand"].split())
    assert checks(page) == {"commitment": "true", "before": "true", "hand": "true"}
    expect(page.locator("#dealt")).to_have_text(shown(deck[:7]))
    expect(page.locator("#centre")).to_have_text(shown(deck[14:18]))
    expect(page.locator("#round-label")).to_have_text(
        STRINGS[lang]["fair.round"].replace("{round}", "1")
    )
    check_screen(page, f"verify a round ({lang})", phone=True)
