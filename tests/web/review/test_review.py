"""The review pages in the browser (docs/review.md): the Poker Squares deal review reached from
the end screen and stepped with keys, buttons, the slider and the marked placements; the
Kings Corner round replay reached from the round's end and stepped the same way; both
languages, phone and desktop, axe-clean, no console error; nothing shown for a game in
progress."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import APIRequestContext, Page, Route, expect

from cardtable.server.devices.players import player_key
from cardtable.server.games.saved_match import SavedMatch
from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.helpers import cell
from tests.web.kc_helpers import play_turns, quick_seed, seeded_match, store_of

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
    expect(page.locator("[data-fact='score'] .fact-value")).to_have_text(str(total))
    assert step_title(page) == "Placement 1 of 25"
    check_review_words(page, review_of(page, headers, game["id"]), "en")
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


@pytest.mark.parametrize(
    ("lang", "phone", "table"),
    [("ja", True, "british"), ("en", True, "american"), ("ja", False, "american")],
)
def test_poker_squares_review_in_both_languages_on_phone_and_desktop(
    new_page: NewPage, screenshot_dir: Path, lang: str, phone: bool, table: str
) -> None:
    page = new_page(phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    headers = new_player(page)
    game = ps_deal(page, headers, 25, table)
    page.goto(f"/ps-review.html?game={game['id']}")
    expect(page.locator("#review")).to_be_visible(timeout=REVIEW_TIMEOUT)
    words = WORDS[lang]
    expect(page.locator("#review-title")).to_have_text(
        "配札の検討" if lang == "ja" else "Deal review"
    )
    expect(page.locator("#step-title")).to_have_text(words["title"].format(n=1))
    name = {
        "british": {"ja": "英国式", "en": "British"},
        "american": {"ja": "米国式", "en": "American"},
    }
    expect(page.locator("[data-fact='table'] .fact-value")).to_have_text(name[table][lang])
    page.locator("#next-btn").click()
    expect(page.locator("#live")).to_contain_text(words["title"].format(n=2))
    check_review_words(page, review_of(page, headers, game["id"]), lang)
    no_overflow(page)
    # A step where the chosen cell was not the best: its reason on screen.
    review = review_of(page, headers, game["id"])
    off = next((s for s in review["steps"] if s["chosen"] != s["best"]), review["steps"][0])
    page.locator("#step-slider").fill(str(off["index"] + 1))
    size = "phone" if phone else "desktop"
    page.screenshot(path=str(screenshot_dir / f"review-ps-{lang}-{size}.png"), full_page=True)
    page.locator(".review-step").screenshot(
        path=str(screenshot_dir / f"review-ps-{lang}-{size}-step.png")
    )
    page.locator("#summary").screenshot(
        path=str(screenshot_dir / f"review-ps-{lang}-{size}-summary.png")
    )
    check_screen(page, f"poker squares review ({lang}, {size})", phone=phone)
    # Shown again at once: stored.
    page.reload()
    expect(page.locator("#review")).to_be_visible(timeout=5_000)


WORDS: dict[str, dict[str, Any]] = {
    "en": {
        "title": "Placement {n} of 25",
        "best": "the engine's choice too",
        "equal": "as good as the best",
        "lost": "{mark}: loses an expected {n} point",
        "lost_small": "Loses an expected {n} point",
        "item": "{mark} at placement {step} (",
        "item_lost": "loses an expected {n} point",
        "put": "You put ",
        "cell": "row {row}, column {col}",
        "best_cell": "the best cell was row {row}, column {col} (",
        "good": "{good} of 25 placements",
        "facts": ["Points from your ten lines", "hint engine scores"],
        "par_gap": {"behind": "Points behind par", "ahead": "Points ahead of par"},
        "par_note": {"behind": "Par minus your score", "ahead": "Your score minus par"},
        "marks": {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"},
    },
    "ja": {
        "title": "配置 {n} / 25",
        "best": "エンジンも同じマスを選びました",
        "equal": "あなたの選んだマスも最善と同じくらい良い場所です",
        "lost": "{mark}：期待値で{n}点の損です",
        "lost_small": "期待値で{n}点の損です",
        "item": "配置{step}（",
        "item_lost": "の{mark}：期待値で{n}点の損",
        "put": "に置きました",
        "cell": "{row}行{col}列",
        "best_cell": "最善は{row}行{col}列（",
        "good": "25回の配置のうち{good}回",
        "facts": ["10本の列", "ヒントエンジンが置いたとき"],
        "par_gap": {"behind": "パーに届かなかった点", "ahead": "パーを上回った点"},
        "par_note": {"behind": "パー − あなたの得点", "ahead": "あなたの得点 − パー"},
        "marks": {"inaccuracy": "不正確", "mistake": "悪手", "blunder": "大悪手"},
    },
}


def review_of(page: Page, headers: dict[str, str], game_id: str) -> Any:
    answer = page.request.get(f"/api/review/poker-squares/{game_id}", headers=headers).json()
    assert answer["state"] == "done"
    return answer["review"]


SAID_JS = """() => {
  const root = document.getElementById('review');
  const labels = [...root.querySelectorAll('[aria-label]')].map((e) => e.ariaLabel);
  return [root.textContent, ...labels].join('\\n');
}"""
"""Everything the review says to a screen reader: its text (hidden labels too) and labels."""


def check_review_words(page: Page, review: Any, lang: str) -> None:
    """Every figure has its line of meaning, the accuracy is the server's, the summary has
    one loss figure (how far the score fell behind par, or went past it: the points the
    score and par beside it show), and each of the 25 verdicts says where the card went and
    why, naming both cells by row and column and what a placement loses as a loss ("loses
    an expected 8.6 points"), never "0.0 lost"; the marked placements read the same way."""
    words = WORDS[lang]
    accuracy = review["accuracy"]
    fact = page.locator("[data-fact='accuracy']")
    expect(fact.locator(".fact-value")).to_have_text(f"{accuracy['percent']}%")
    expect(fact.locator(".fact-note")).to_contain_text(words["good"].format(good=accuracy["good"]))
    for key, text in zip(("score", "par"), words["facts"], strict=True):
        expect(page.locator(f"[data-fact='{key}'] .fact-note")).to_contain_text(text)
    # One loss figure: par minus the score (or the score minus par), never a second one.
    expect(page.locator("[data-fact='expected_loss']")).to_have_count(0)
    gap = page.locator("[data-fact='vs_par']")
    side = "ahead" if review["vs_par"] > 0 else "behind"
    expect(gap.locator("dt")).to_have_text(words["par_gap"][side])
    expect(gap.locator(".fact-value")).to_have_text(str(abs(review["vs_par"])))
    if review["vs_par"]:
        expect(gap.locator(".fact-note")).to_contain_text(words["par_note"][side])
    # The marked placements: the mark, then what it loses, as a loss.
    for step in (s for s in review["steps"] if s["mark"]):
        item = page.locator(f"#mistakes button[data-step='{step['index'] + 1}']")
        mark = words["marks"][step["mark"]]
        expect(item).to_contain_text(words["item"].format(mark=mark, step=step["index"] + 1))
        expect(item).to_contain_text(words["item_lost"].format(mark=mark, n=f"{step['loss']:.1f}"))
    if page.locator("#first-btn").is_enabled():
        page.locator("#first-btn").click()
    for n, step in enumerate(review["steps"], start=1):
        expect(page.locator("#step-title")).to_have_text(words["title"].format(n=n))
        verdict = page.locator("#step-verdict")
        text = verdict.inner_text()
        assert words["put"] in text, text
        chosen = {"row": step["chosen"][0] + 1, "col": step["chosen"][1] + 1}
        assert words["cell"].format(**chosen) in text, text
        if lang == "ja":  # Japanese lists take 「、」, never ", " (the grid's cell labels)
            said = page.evaluate(SAID_JS)
            assert ", " not in said, said
        # Never "lost 0.0" (an equal cell reads "as good as the best"); 10.0 is a real loss.
        assert not re.search(r"(?<![\d.])0\.0(?!\d)", text), text
        # The card is a chip named for screen readers ("9 of spades"), its face "9♠".
        chip = verdict.locator(".card-chip")
        expect(chip).to_have_count(1)
        assert chip.get_attribute("role") == "img" and chip.get_attribute("aria-label")
        if step["chosen"] == step["best"]:
            assert words["best"] in text, text
        else:
            # The best cell by row and column, never by its row alone.
            best = {"row": step["best"][0] + 1, "col": step["best"][1] + 1}
            if step["loss"] < 0.05:
                assert words["cell"].format(**best) in text and words["equal"] in text, text
            else:
                assert words["best_cell"].format(**best) in text, text
                loss = f"{step['loss']:.1f}"
                said = (
                    words["lost"].format(mark=words["marks"][step["mark"]], n=loss)
                    if step["mark"]
                    else words["lost_small"].format(n=loss)
                )
                assert said in text, text
        if n < 25:
            page.locator("#next-btn").click()


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


def kc_round_with_advice(page: Page, headers: dict[str, str]) -> Any:
    """A finished round in which one of the person's turns differs from the strong computer's
    (the advice the test checks): the greedy person nearly always plays one, but a deal on
    which every one of their turns matches it happens (once in a landing check)."""
    for _ in range(6):
        game = kc_round(page, headers)
        path = f"/api/review/kings-corner/{game['id']}/rounds/1"
        replay = page.request.get(path, headers=headers)
        assert replay.ok, replay.text()
        if any(t["seat"] == 0 and not t["same"] for t in replay.json()["turns"]):
            return game
    raise AssertionError("six rounds in a row with no turn unlike the strong computer's")


@pytest.mark.parametrize(
    ("lang", "phone"), [("en", False), ("ja", True), ("en", True), ("ja", False)]
)
def test_kings_corner_replay_steps_through_every_turn(
    new_page: NewPage, live_app: FastAPI, screenshot_dir: Path, lang: str, phone: bool
) -> None:
    page = new_page(phone=phone, locale="ja-JP" if lang == "ja" else "en-US")
    headers = new_player(page)
    game = kc_round_with_advice(page, headers)
    page.goto(f"/kc-replay.html?game={game['id']}&round=1")
    expect(page.locator("#replay")).to_be_visible(timeout=REVIEW_TIMEOUT)
    expect(page.locator("#replay-wait")).to_be_hidden()
    title = "Replay of round 1" if lang == "en" else "ラウンド1の再生"
    expect(page.locator("#replay-title")).to_have_text(title)
    expect(page.locator("#hands .kr-hand")).to_have_count(3)
    check_advice(page, headers, game["id"], lang)
    page.locator("#replay-title").click()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-slider")).to_have_value("1")
    expect(page.locator(".pile.landed, .kr-hand.to-play")).not_to_have_count(0)
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
    state = SavedMatch.from_dict(record.state).match.state
    for seat, hand in enumerate(state.hands):
        shown = page.locator(f".kr-hand[data-seat='{seat}'] [data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert shown == [str(c) for c in hand]
    for name, pile in state.piles.items():
        slot = page.locator(f"#piles .kr-slot[data-pile='{name}']")
        assert (slot.get_attribute("data-cards") or "").split() == [str(c) for c in pile]
        # The cross shows the pile's first and top cards, as the table does.
        faces = slot.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        assert faces == [str(c) for c in pile][:1] + [str(c) for c in pile][1:][-1:]
    expect(page.locator("#next-btn")).to_be_disabled()
    no_overflow(page)
    if lang == "ja":  # the piles' and hands' card lists take 「、」, never ", "
        said = page.evaluate(KC_SAID_JS)
        assert "、" in said and ", " not in said, said


KC_SAID_JS = """() => [
  ...[...document.querySelectorAll('#piles [aria-label]')].map((e) => e.ariaLabel),
  ...[...document.querySelectorAll('#hands .visually-hidden')].map((e) => e.textContent),
].join('\\n')"""


ADVICE = {
    "en": {"you": "The strong computer in your place", "won": "{n} (won)"},
    "ja": {"you": "あなたの立場での強いコンピューターの手", "won": "{n}（勝ち）"},
}


def check_advice(page: Page, headers: dict[str, str], game_id: str, lang: str) -> None:
    """The person's turns played unlike the strong computer show both lines' penalties at the
    round's end (played on the same way), as the server worked them out; every title names
    the person naturally (never "You's")."""
    replay = page.request.get(f"/api/review/kings-corner/{game_id}/rounds/1", headers=headers)
    turns = replay.json()["turns"]
    step = 1
    shown = 0
    for turn in turns:
        if turn["seat"] == 0 and not turn["same"] and shown < 2:
            page.locator("#step-slider").fill(str(step))
            expect(page.locator("#advice-title")).to_have_text(ADVICE[lang]["you"])
            rows = page.locator("#advice tbody tr")
            expect(rows).to_have_count(3 if turn["outcome"] else 2)
            if turn["outcome"]:
                cells = rows.nth(0).locator("td")
                for k, line in enumerate(("played", "suggested")):
                    end = turn["outcome"][line]
                    want = "–" if end is None else str(end["penalty"])
                    if end and end["won"]:
                        want = ADVICE[lang]["won"].format(n=end["penalty"])
                    expect(cells.nth(k)).to_have_text(want)
                expect(page.locator("#advice-round-note")).to_be_visible()
            shown += 1
        step += len(turn["moves"])
    assert shown, "no turn of the person differed from the strong computer"
    assert "You's" not in page.content() and "Youの" not in page.content()
    page.locator("#step-slider").fill("0")


def test_kings_corner_replay_from_the_round_end(page: Page, live_app: FastAPI) -> None:
    seeded_match(page, live_app, quick_seed().seed, rounds=1)
    play_turns(page, live_app)
    link = page.locator("#replay-round-btn")
    expect(link).to_be_visible()
    link.click()
    expect(page.locator("#replay")).to_be_visible(timeout=REVIEW_TIMEOUT)
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


def test_a_busy_server_is_asked_again_for_the_replay(
    page: Page, console_guard: ConsoleGuard
) -> None:
    # A round not worked out yet waits for the hints: the server answers 503 (no search slot
    # spare) or 429 (another replay of the player's is worked out) with Retry-After.
    console_guard.allow("503")
    console_guard.allow("429")
    headers = new_player(page)
    game = kc_round(page, headers, players=2)
    answered: list[int] = []

    def busy_twice(route: Route) -> None:
        if len(answered) < 2:
            status = 503 if not answered else 429
            answered.append(status)
            code = "unavailable" if status == 503 else "rate_limited"
            route.fulfill(
                status=status,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body=json.dumps({"code": code, "message": "busy"}),
            )
            return
        answered.append(200)
        route.continue_()

    page.route("**/api/review/kings-corner/*/rounds/1", busy_twice)
    page.goto(f"/kc-replay.html?game={game['id']}&round=1")
    expect(page.locator("#replay")).to_be_visible(timeout=REVIEW_TIMEOUT)
    expect(page.locator("#error")).to_be_hidden()
    assert answered == [503, 429, 200]
