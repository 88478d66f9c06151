"""Kings Corner in real headless Chromium against the real server: whole rounds by clicks
(checked against the engine on the state the server saved), hand-offs on one device, undo,
pause, reload, a three-round match, the phone with touch and keyboard-only play."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.server.games.saved_match import SavedMatch
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.kc_helpers import (
    CENTRE,
    CORNERS,
    KC,
    VS_NORMAL,
    assert_outlines_match_engine,
    card,
    click_move,
    engine_piles,
    events_of,
    find_seed,
    hand_cards,
    load_table,
    outlined,
    page_version,
    pile,
    piles_on_page,
    play_turns,
    policy,
    seeded_match,
    set_speed,
    settle,
    stored_version,
    targets_of,
    wait_version_change,
)


def api_view(page: Page) -> dict[str, Any]:
    game_id = page.locator("#table").get_attribute("data-game")
    pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
    answer = page.request.get(f"/api/kings-corner/games/{game_id}", headers={"X-Player-Id": pid})
    assert answer.ok, answer.text()
    view: dict[str, Any] = answer.json()["view"]
    return view


# How the page words a hand card refused on a non-empty centre pile (kc.why.<key> in en.json).
WHY_EN = {
    "not_one_below": "is not one rank below the",
    "same_colour": "is the same colour as the",
    "on_ace": "Nothing goes on an ace",
    "king_on_card": "A King cannot go on the",
    "kings_first": "Kings first",
}


def first_card_move(state: kc.State) -> str | None:
    for m in kc.legal_moves(state):
        text = str(m)
        if text != "end" and text.split(">")[0] not in CENTRE:
            return text
    return None


def test_whole_round_by_clicks(page: Page, live_app: FastAPI) -> None:
    line = find_seed({"pile", "king", "fill"})
    seeded_match(page, live_app, line.seed)
    done: set[str] = set()
    checks = 0
    turns_checked = 0

    def on_move(state: kc.State, move: str) -> None:
        nonlocal checks, turns_checked
        # The board and the outlines agree with the engine before every move of the person.
        assert piles_on_page(page) == engine_piles(state)
        expect(page.locator(".stock-count")).to_have_text(str(len(state.stock)))
        if turns_checked < 3 and not state.can_undo:  # the start of a turn
            checks += assert_outlines_match_engine(page, state)
            turns_checked += 1
        done.update(events_of(state, move))
        source = move.split(">")[0]
        legal = [str(m) for m in kc.legal_moves(state)]
        # The API's view (what the page renders) lists exactly the engine's legal moves.
        assert api_view(page)["legal_moves"] == legal
        if move != "end":
            assert targets_of(legal, source)

    table = play_turns(page, live_app, on_move=on_move)
    assert done >= {"pile", "king", "fill"}, done
    assert checks > 0
    # The end: the stored result is what the page shows.
    result = table.match.round_results[-1]
    expect(page.locator("#end")).to_be_visible()
    for seat, penalty in enumerate(result.penalties):
        row = page.locator(f"#end-table tr[data-seat='{seat}']")
        expect(row.locator("td[data-round='1']")).to_have_attribute("data-penalty", str(penalty))
        expect(row.locator("td.total")).to_have_text(str(table.match.totals[seat]))
    winner = result.winners[0]
    expect(page.locator(f"#end-table tr[data-seat='{winner}']")).to_have_class(re.compile("winner"))
    expect(page.locator("#end-summary")).to_contain_text(
        "Out of cards" if result.ending == "out" else "Blocked"
    )
    expect(page.locator("#rematch-btn")).to_be_visible()
    assert page.locator("#move-log li").count() > 0
    # Play again with the same settings: a fresh match, the old one finished.
    old_id = page.locator("#table").get_attribute("data-game")
    page.locator("#rematch-btn").click()
    expect(page.locator("#end")).to_be_hidden()
    expect(page.locator("#table")).not_to_have_attribute("data-game", old_id or "")
    expect(page.locator("#round-line")).to_have_text("Round 1 of 1")
    expect(page.locator("#seats .seat[data-seat='1']")).to_contain_text("normal")


def test_king_corner_and_filled_slot_show_on_the_board(page: Page, live_app: FastAPI) -> None:
    line = find_seed({"king", "fill"}, human_first=True)
    seeded_match(page, live_app, line.seed)
    seen: dict[str, str] = {}

    def choose(state: kc.State) -> str:
        move = policy(state)
        source, _, target = move.partition(">")
        ev = events_of(state, move)
        if "king" in ev and source not in CENTRE:
            seen["king"] = target
        if "fill" in ev:
            seen["fill"] = target
        return move

    for _ in range(200):
        table = settle(page, live_app)
        if table.phase != "play":
            break
        state = table.match.state
        move = choose(state)
        before = page_version(page)
        if move == "end":
            page.locator("#end-btn").click()
            continue
        source, _, target = move.partition(">")
        empty = not state.piles[target]
        if empty:
            label = pile(page, target).get_attribute("aria-label") or ""
            assert ("takes only a King" if target in CORNERS else "any card but a King") in label
        click_move(page, move)
        expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))
        expect(pile(page, target)).to_have_attribute(
            "data-tail", source if source not in CENTRE else str(state.piles[source][-1])
        )
        if "king" in seen and "fill" in seen:
            break
    assert "king" in seen and "fill" in seen, seen


def test_handoff_hides_every_hand_until_revealed(page: Page, live_app: FastAPI) -> None:
    page.goto(KC)
    page.locator("input[name=players][value='2']").check()
    page.locator("#seat-1").select_option("human")
    page.locator("#start-btn").click()
    expect(page.locator("#handoff")).to_be_visible()
    table = load_table(live_app, page)
    assert table.phase == "handoff"
    expect(page.locator("#hand .hand-card")).to_have_count(0)
    hidden = [str(c) for h in table.match.state.hands for c in h]
    html = page.content()
    assert not any(f'data-card="{c}"' in html for c in hidden)
    first = table.match.state.to_play
    expect(page.locator("#handoff-title")).to_contain_text(f"Player {first + 1}")
    page.locator("#reveal-btn").click()
    expect(page.locator("#handoff")).to_be_hidden()
    expect(page.locator("#hand .hand-card")).to_have_count(len(table.match.state.hands[first]))
    assert sorted(hand_cards(page)) == sorted(
        str(c) for c in load_table(live_app, page).match.state.hands[first]
    )
    expect(page.locator("#hand-title")).to_contain_text(f"Player {first + 1}'s hand")
    # End the turn: the hand disappears at once, the board stays for everyone to look at.
    page.locator("#end-btn").click()
    expect(page.locator("#next-btn")).to_be_visible()
    expect(page.locator("#hand .hand-card")).to_have_count(0)
    expect(page.locator("#hand-title")).to_have_text("Hands are hidden")
    expect(page.locator("#handoff")).to_be_hidden()
    page.locator("#next-btn").click()
    second = 1 - first
    expect(page.locator("#handoff")).to_be_visible()
    expect(page.locator("#reveal-btn")).to_have_text(f"Show Player {second + 1}'s hand")
    expect(page.locator("#reveal-btn")).to_be_focused()
    expect(page.locator("#hand .hand-card")).to_have_count(0)
    page.locator("#reveal-btn").click()
    state = load_table(live_app, page).match.state
    expect(page.locator("#hand .hand-card")).to_have_count(len(state.hands[second]))
    assert sorted(hand_cards(page)) == sorted(str(c) for c in state.hands[second])


def test_undo_by_button_and_key(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    before = piles_on_page(page)
    hand = sorted(hand_cards(page))
    expect(page.locator("#undo-btn")).to_be_disabled()
    moves = [str(m) for m in kc.legal_moves(state) if str(m) != "end"][:2]
    assert moves, "the seed gives no move on the first turn"
    for move in moves[:1]:
        click_move(page, move)
        expect(page.locator("#undo-btn")).to_be_enabled()
    page.locator("#undo-btn").click()
    expect(page.locator("#undo-btn")).to_be_disabled()
    assert piles_on_page(page) == before
    assert sorted(hand_cards(page)) == hand
    expect(page.locator("#live")).to_contain_text("taken back")
    # Z does the same.
    click_move(page, moves[0])
    expect(page.locator("#undo-btn")).to_be_enabled()
    page.keyboard.press("z")
    expect(page.locator("#undo-btn")).to_be_disabled()
    assert piles_on_page(page) == before
    assert sorted(hand_cards(page)) == hand


def test_pause_and_hidden_tab_stop_the_computer(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    # Slow: the computer waits 1.6 s before its first step, time enough to pause it.
    seeded_match(page, live_app, line.seed, speed="slow")
    settle(page, live_app)
    page.locator("#end-btn").click()
    # One person against the computer: no Next player, the computer's turn just follows.
    expect(page.locator("#turn-line")).to_contain_text("Computer 2")
    expect(page.locator("#next-btn")).to_be_hidden()
    page.keyboard.press("p")
    expect(page.locator("#pause-overlay")).to_be_visible()
    expect(page.locator("#pause-btn")).to_have_attribute("aria-pressed", "true")
    version = stored_version(live_app, page)
    page.wait_for_timeout(1200)
    assert stored_version(live_app, page) == version, "the computer moved while paused"
    expect(page.locator("#turn-line")).to_contain_text("paused")
    # A hidden tab stops it too.
    page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    page.keyboard.press("p")
    expect(page.locator("#pause-overlay")).to_be_hidden()
    page.wait_for_timeout(1200)
    assert stored_version(live_app, page) == version, "the computer moved in a hidden tab"
    page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    # Shown again, the computer plays on; the rest of its turn at once (the pace is not what
    # this test is about).
    page.locator("#speed").select_option("instant")
    table = settle(page, live_app)
    assert stored_version(live_app, page) > version
    # The computer's turn is said as one sentence, and its moves listed in the short log.
    if table.phase == "play":
        said = page.locator("#live-log p").last
        expect(said).to_contain_text("Computer 2")
        expect(said).to_contain_text("ended its turn")
        expect(said).to_contain_text("Your turn.")
    computer = [e for e in table.log if e["seat"] == 1]
    assert computer
    expect(page.locator("#move-log li").first).to_contain_text("Computer 2:")


def test_reduced_motion_means_instant(new_page: NewPage, live_app: FastAPI) -> None:
    page = new_page(reduced_motion="reduce")
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed, speed="slow")
    settle(page, live_app)
    expect(page.locator("#speed")).to_have_value("instant")
    expect(page.locator("#speed")).to_be_disabled()
    before = page_version(page)
    page.locator("#end-btn").click()
    wait_version_change(page, before)
    expect(page.locator("#next-btn")).to_be_hidden()
    # Slow would wait 1.6 s before the computer's first step; reduced motion does not wait.
    wait_version_change(page, page_version(page), timeout=1.0)


def test_reload_mid_turn_restores_the_board(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    move = first_card_move(state)
    assert move is not None
    click_move(page, move)
    expect(page.locator("#undo-btn")).to_be_enabled()
    board, hand = piles_on_page(page), hand_cards(page)
    # A reload comes straight back to the table, with the keyboard on the hand.
    page.reload()
    expect(page.locator("#table")).to_be_visible()
    assert piles_on_page(page) == board
    assert hand_cards(page) == hand
    expect(page.locator("#hand .hand-card").first).to_be_focused()
    # So does the page opened plainly (not from the home page's Continue link).
    page.goto(KC)
    expect(page.locator("#table")).to_be_visible()
    assert piles_on_page(page) == board
    # Menu leads to the settings, which offer Continue.
    page.locator("#menu-btn").click()
    expect(page.locator("#continue-box")).to_be_visible()
    expect(page.locator("#continue-text")).to_contain_text("Round 1 of 1")
    page.locator("#continue-btn").click()
    expect(page.locator("#table")).to_be_visible()
    assert piles_on_page(page) == board
    assert hand_cards(page) == hand
    expect(page.locator("#undo-btn")).to_be_enabled()  # still the same turn: undo works
    page.locator("#undo-btn").click()
    expect(card(page, move.split(">")[0])).to_be_visible()


@pytest.mark.deep  # totals: tests/kings_corner/test_rules_kc.py (KC-22); the match's end panel:
# tests/web/kings_corner/test_screens.py and tests/web/kings_corner/test_a11y.py
def test_three_round_match_to_its_result(page: Page, live_app: FastAPI) -> None:
    rules = kc.Rules.preset("draw-last")
    # Seed 104 makes a short match with today's engine; any seed works, only slower.
    seeded_match(
        page, live_app, 104, rules=rules, rounds=3, seats=(("human", None), ("computer", "easy"))
    )
    expect(page.locator("#rules-line")).to_contain_text("Draw last")
    expect(page.locator("#rules-line")).to_contain_text("kings first")
    for round_no in (1, 2, 3):
        expect(page.locator("#round-line")).to_have_text(f"Round {round_no} of 3")
        table = play_turns(page, live_app)
        expect(page.locator("#end")).to_be_visible()
        totals = table.match.totals
        for seat, total in enumerate(totals):
            expect(page.locator(f"#end-table tr[data-seat='{seat}'] td.total")).to_have_text(
                str(total)
            )
        expect(page.locator("#end-table td[data-round]")).to_have_count(2 * round_no)
        if round_no < 3:
            expect(page.locator("#end-title")).to_have_text(f"Round {round_no} of 3 over")
            page.locator("#next-round-btn").click()
    table = load_table(live_app, page)
    assert table.phase == "match_over"
    winners = table.match.winners
    assert winners is not None
    expect(page.locator("#end-title")).to_have_text("Match over")
    wins = {0: "You win the match.", 1: "Computer 2 wins the match."}
    summary = page.locator("#end-summary")
    if len(winners) > 1:
        expect(summary).to_contain_text("The match is a tie between you and Computer 2.")
    else:
        expect(summary).to_contain_text(wins[winners[0]])
    for seat in winners:
        expect(page.locator(f"#end-table tr[data-seat='{seat}']")).to_have_class(
            re.compile("winner")
        )
    # Totals are the sums of the round penalties, Kings 10 and other cards 1.
    for seat in range(2):
        cells = page.locator(f"#end-table tr[data-seat='{seat}'] td[data-round]")
        values = [int(v) for v in cells.evaluate_all("els => els.map(e => e.dataset.penalty)")]
        assert sum(values) == table.match.totals[seat]
    # Finished: nothing to continue; a new match starts from the settings.
    page.locator("#new-match-btn").click()
    expect(page.locator("#setup")).to_be_visible()
    expect(page.locator("#continue-box")).to_be_hidden()


def test_phone_with_touch(new_page: NewPage, live_app: FastAPI) -> None:
    page = new_page(phone=True)
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    width, height = 390, 844
    cross = page.locator("#cross").bounding_box()
    assert cross is not None and cross["width"] >= 0.9 * (width - 20), cross
    for sel in ["#end-btn", "#undo-btn", "#pause-btn", "#menu-btn", "#speed"]:
        box = page.locator(sel).bounding_box()
        assert box is not None, sel
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (sel, box)
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (sel, box)
    # From the top of the page, the whole hand is on screen above the action bar.
    page.evaluate("() => window.scrollTo(0, 0)")
    bar = page.locator("#actions").bounding_box()
    assert bar is not None and bar["y"] + bar["height"] <= height, bar
    for i in range(page.locator("#hand .hand-card").count()):
        box = page.locator("#hand .hand-card").nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
        assert box["y"] + box["height"] <= bar["y"], ("hand card under the action bar", box, bar)
        assert box["width"] >= 50
    # Playable cards carry a visible marker.
    legal = [str(m) for m in kc.legal_moves(state)]
    cards = {m.split(">")[0] for m in legal if m != "end" and m.split(">")[0] not in CENTRE}
    marks = page.locator("#hand .hand-card.playable .play-mark")
    expect(marks).to_have_count(len(cards))
    if cards:
        expect(marks.first).to_be_visible()
    move = first_card_move(state)
    assert move is not None
    count = len(hand_cards(page))
    click_move(page, move, tap=True)
    expect(page.locator("#hand .hand-card")).to_have_count(count - 1)
    page.locator("#undo-btn").tap()
    expect(page.locator("#hand .hand-card")).to_have_count(count)
    # A tap on an empty area cancels a choice.
    card(page, move.split(">")[0]).tap()
    assert outlined(page)
    page.locator("#turn-line").tap()
    expect(page.locator("#cross .pile.target")).to_have_count(0)


def test_keyboard_only_turn(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    legal = [str(m) for m in kc.legal_moves(state)]
    expect(page.locator("#hand .hand-card").first).to_be_focused()
    # Tab along the hand to a playable card.
    for _ in range(12):
        focused = page.evaluate("() => document.activeElement.dataset.card || ''")
        if focused and targets_of(legal, focused):
            break
        page.keyboard.press("Tab")
    code = page.evaluate("() => document.activeElement.dataset.card")
    assert code and targets_of(legal, code), code
    label = card(page, code).get_attribute("aria-label") or ""
    assert "can be played" in label, label
    # Enter chooses it and jumps to the first outlined pile; Esc cancels.
    page.keyboard.press("Enter")
    assert outlined(page) == targets_of(legal, code)
    focused_pile = page.evaluate("() => document.activeElement.dataset.pile")
    assert focused_pile in targets_of(legal, code)
    name = (
        page.locator(f"#cross .pile[data-pile='{focused_pile}']").get_attribute("aria-label") or ""
    )
    assert "can go here" in name and ("accepts" in name or "takes" in name), name
    page.keyboard.press("Escape")
    expect(page.locator("#cross .pile.target")).to_have_count(0)
    card(page, code).focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # plays on the focused target
    expect(card(page, code)).to_have_count(0)
    expect(page.locator("#live")).to_contain_text("You:")
    focused = page.evaluate("() => document.activeElement.className")
    assert "hand-card" in focused or "end" in focused
    # Tab on to End turn, all by keyboard: the computer plays on by itself.
    for _ in range(30):
        if page.evaluate("() => document.activeElement.id") == "end-btn":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#next-btn")).to_be_hidden()
    table = settle(page, live_app)
    assert table.phase in ("play", "round_over", "match_over")


def computer_turn_then_mine() -> int:
    """A deal where the person starts, may end the turn at once, and the computer's turn
    after it hands the play back to the person (the round goes on)."""
    for seed in range(1, 200):
        table = SavedMatch.new(VS_NORMAL, kc.Rules(), 1, seed)
        state = table.match.state
        if state.to_play != 0 or "end" not in [str(m) for m in kc.legal_moves(state)]:
            continue
        table, _, _ = table.played(0, "end", computer=False)
        while table.phase == "computer":
            view = table.match.view(1)
            table, _, _ = table.played(
                1, choose_move(view, "normal", table.computer_rng()), computer=True
            )
        if table.phase == "play":
            return seed
    raise AssertionError("no seed")


def test_keyboard_comes_back_to_the_hand_after_the_computer(page: Page, live_app: FastAPI) -> None:
    """Playing by keyboard: End turn (the computer's turn follows; the keyboard waits on Pause,
    pausing and resuming with it), and once the computer has played the focus is on the hand
    again."""
    seeded_match(page, live_app, computer_turn_then_mine(), speed="slow")
    settle(page, live_app)
    expect(page.locator("#hand .hand-card").first).to_be_focused()
    page.locator("#end-btn").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#pause-btn")).to_be_focused()
    page.keyboard.press("Enter")  # pause
    expect(page.locator("#pause-overlay")).to_be_visible()
    page.keyboard.press("Enter")  # resume
    expect(page.locator("#pause-overlay")).to_be_hidden()
    table = settle(page, live_app)
    assert table.phase == "play"
    expect(page.locator("#hand .hand-card").first).to_be_focused()


def test_choices_cancel_and_wrong_piles_are_explained(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    legal = [str(m) for m in kc.legal_moves(state)]
    code = next(c for c in hand_cards(page) if c[0] != "K")
    card(page, code).click()
    expect(card(page, code)).to_have_attribute("aria-pressed", "true")
    wrong = next(
        (p for p in CORNERS if p not in targets_of(legal, code) and not state.piles[p]), None
    )
    assert wrong is not None
    pile(page, wrong).click()
    expect(page.locator("#message")).to_have_text("Only a King can open a corner.")
    expect(card(page, code)).to_have_attribute("aria-pressed", "true")
    # A centre pile that refuses the card says why, in the server's terms (view.refusals).
    refused = api_view(page)["refusals"]["cards"][code]
    sources = {m.split(">")[0] for m in legal}
    centre = next(p for p in CENTRE if p in refused and p not in sources and state.piles[p])
    pile(page, centre).click()
    expect(page.locator("#message")).to_contain_text(WHY_EN[refused[centre]["key"]])
    expect(card(page, code)).to_have_attribute("aria-pressed", "true")
    # An empty area cancels.
    page.locator("#turn-line").click()
    expect(card(page, code)).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#message")).to_have_text("Choice cancelled.")
    # The same reason in Japanese, once the page has switched (its strings load first).
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#end-btn")).to_have_text("手番を終える")
    card(page, code).click()
    pile(page, wrong).click()
    expect(page.locator("#message")).to_have_text("角を開けるのはキングだけです。")


def test_settings_start_a_custom_match(
    page: Page, live_app: FastAPI, console_guard: ConsoleGuard
) -> None:
    page.goto(KC)
    expect(page.locator("#start-btn")).to_be_focused()
    page.locator("input[name=players][value='4']").check()
    expect(page.locator("#seat-3")).to_be_visible()
    page.locator("#seat-1").select_option("computer:strong")
    page.locator("#seat-2").select_option("computer:easy")
    page.locator("input[name=preset][value=custom]").check()
    expect(page.locator("#custom-rules")).to_be_visible()
    page.locator("input[name=draw][value=last]").check()
    page.locator("input[name=pile_moves][value=off]").check()
    expect(page.locator("#preset-summary")).to_contain_text("draw last · pile moves off")
    page.locator("input[name=rounds][value='5']").check()
    set_speed(page, "slow")
    with page.expect_request("**/api/kings-corner/games") as request:
        page.locator("#start-btn").click()
    body = json.loads(request.value.post_data or "{}")
    assert body == {
        "seats": [
            {"kind": "human"},
            {"kind": "computer", "strength": "strong"},
            {"kind": "computer", "strength": "easy"},
            {"kind": "computer", "strength": "normal"},
        ],
        "rules": {"draw": "last", "pile_moves": False, "kings": "optional", "dealt_kings": "stay"},
        "rounds": 5,
    }
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#rules-line")).to_have_text(
        "Rules: Custom (draw last · pile moves off · kings optional · dealt kings stay)"
    )
    expect(page.locator("#round-line")).to_have_text("Round 1 of 5")
    expect(page.locator("#seats .seat")).to_have_count(4)
    expect(page.locator("#seats .seat[data-seat='1']")).to_contain_text("strong")
    expect(page.locator("#seats .seat .seat-count").first).to_have_text(re.compile(r"\d+ cards"))
    expect(page.locator(".stock-count")).to_have_text(str(52 - 28 - 4))
    # The menu goes back to the settings; Continue returns to the same match.
    page.locator("#menu-btn").click()
    expect(page.locator("#continue-box")).to_be_visible()
    expect(page.locator("input[name=players][value='4']")).to_be_checked()
    page.locator("#continue-btn").click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#round-line")).to_have_text("Round 1 of 5")


def test_home_offers_continue(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    settle(page, live_app)
    board = piles_on_page(page)
    page.goto("/")
    link = page.locator("#continue-kc")
    expect(link).to_be_visible()
    expect(link).to_contain_text("Continue the match")
    link.click()
    expect(page.locator("#table")).to_be_visible()
    assert piles_on_page(page) == board


def test_japanese_table_and_language_switch(page: Page, live_app: FastAPI) -> None:
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    settle(page, live_app)
    board = piles_on_page(page)
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(page.locator("#end-btn")).to_have_text("手番を終える")
    expect(page.locator("#rules-line")).to_contain_text("標準")
    texts = page.locator("[data-i18n]:visible").all_inner_texts()
    assert texts and all(t.strip() and not t.startswith("kc.") for t in texts), texts
    label = page.locator("#cross .pile[data-pile='N']").get_attribute("aria-label") or ""
    assert label.startswith("上") and ("置ける" in label or "何も" in label), label
    assert piles_on_page(page) == board
    page.locator("#menu-btn").click()
    texts = page.locator("[data-i18n]:visible").all_inner_texts()
    assert texts and all(t.strip() and not t.startswith("kc.") for t in texts), texts
    expect(page.locator("#continue-btn")).to_have_text("続きから")


def test_two_tabs_stale_version_shows_the_latest_state(
    page: Page, live_app: FastAPI, console_guard: ConsoleGuard
) -> None:
    console_guard.allow("status of 409")
    line = find_seed(set(), human_first=True)
    seeded_match(page, live_app, line.seed)
    state = settle(page, live_app).match.state
    moves = [str(m) for m in kc.legal_moves(state) if str(m) != "end"]
    assert moves
    other = page.context.new_page()
    console_guard.watch(other)
    other.goto(f"{KC}?continue")
    expect(other.locator("#table")).to_be_visible()
    click_move(other, moves[0])
    expect(other.locator("#undo-btn")).to_be_enabled()
    # The first tab still shows the old board; its next move is refused and it catches up.
    click_move(page, moves[0])
    expect(page.locator("#error")).to_contain_text("another tab")
    expect(page.locator("#table")).to_have_attribute(
        "data-version", other.locator("#table").get_attribute("data-version") or ""
    )
    assert piles_on_page(page) == piles_on_page(other)
    assert hand_cards(page) == hand_cards(other)
