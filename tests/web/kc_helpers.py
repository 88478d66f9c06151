"""Shared steps of the Kings Corner browser tests: start a match (through the page, or through
the API with a chosen deal written into the server's store), read the real state back from the
store, choose moves with a scripted policy, and make them by clicking the page.

The server deals from `secrets.randbits` and has no way to start from a chosen seed, so
`seeded_match` creates a match through the normal endpoint and then replaces its saved state
with `SavedMatch.new(..., seed)` (the server's own table type) through the server's store: the same
data the server would have saved for that seed. `find_seed` searches seeds with the server's
own computer logic (`choose_move` with `SavedMatch.computer_rng`), so a scripted line is known to
contain the events a test needs before the browser plays it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from cardtable import kings_corner as kc
from cardtable.kings_corner.cpu import choose_move
from cardtable.server.core.store import Store
from cardtable.server.devices.players import player_key
from cardtable.server.games.saved_match import SavedMatch

KC = "/kings-corner.html"
KIND = "kings-corner"
CENTRE = ("N", "E", "S", "W")
CORNERS = ("NE", "SE", "SW", "NW")
SETTLED = ("play", "handoff", "round_over", "match_over")
Seat = tuple[str, str | None]
VS_NORMAL: tuple[Seat, ...] = (("human", None), ("computer", "normal"))


# -- the server side ----------------------------------------------------------------------
def store_of(app: FastAPI) -> Store:
    store: Store = app.state.runtime.store
    return store


def player_of(page: Page) -> str:
    """The store's key of the page's player (the store keeps a hash of the id)."""
    pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
    assert isinstance(pid, str) and pid, "the page has no player id"
    return player_key(pid)


def _record(app: FastAPI, page: Page) -> Any:
    game_id = page.locator("#table").get_attribute("data-game")
    assert game_id, "the page shows no match"
    record = store_of(app).load_game(game_id, player_of(page))
    assert record is not None, "the page's match is not in the store"
    return record


def load_table(app: FastAPI, page: Page) -> SavedMatch:
    """The page's match as the server saved it (hidden cards included), to check the page."""
    return SavedMatch.from_dict(_record(app, page).state)


def stored_version(app: FastAPI, page: Page) -> int:
    return int(_record(app, page).version)


def rules_body(rules: kc.Rules) -> dict[str, Any]:
    return {
        "draw": rules.draw,
        "pile_moves": rules.pile_moves,
        "kings": rules.kings,
        "dealt_kings": rules.dealt_kings,
    }


def seats_body(seats: Iterable[Seat]) -> list[dict[str, str]]:
    return [
        {"kind": "human"} if kind == "human" else {"kind": "computer", "strength": str(strength)}
        for kind, strength in seats
    ]


def set_speed(page: Page, speed: str) -> None:
    page.evaluate(
        """s => { const k = 'cardtable.settings';
        const o = JSON.parse(localStorage.getItem(k) || '{}'); o.kcSpeed = s;
        localStorage.setItem(k, JSON.stringify(o)); }""",
        speed,
    )


def seeded_match(
    page: Page,
    app: FastAPI,
    seed: int | None,
    *,
    seats: tuple[Seat, ...] = VS_NORMAL,
    rules: kc.Rules | None = None,
    rounds: int = 1,
    speed: str = "instant",
    table: SavedMatch | None = None,
) -> str:
    """A new match for this page's player, dealt from `seed` (None: the server's own deal),
    or `table` as it stands (a match part-way through); the page is then opened on the table.
    Returns the game id."""
    rules = rules or kc.Rules.preset("standard")
    # The home page, not the game: an unfinished match there would resume (and its computer
    # play on) while the player id changes under it.
    page.goto("/")
    pid = page.request.post("/api/players").json()["player_id"]
    page.evaluate("id => localStorage.setItem('cardtable.player', id)", pid)
    set_speed(page, speed)
    body = {"seats": seats_body(seats), "rules": rules_body(rules), "rounds": rounds}
    answer = page.request.post(
        "/api/kings-corner/games",
        data=json.dumps(body),
        headers={"X-Player-Id": pid, "Content-Type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    game_id = str(answer.json()["id"])
    if seed is not None or table is not None:
        store = store_of(app)
        record = store.load_game(game_id, player_key(pid))
        assert record is not None
        if table is None:
            assert seed is not None
            table = SavedMatch.new(seats, rules, rounds, seed)
        store.save_game(
            record, table.to_dict(), finished=False, log=[{"action": "test-deal", "seed": seed}]
        )
    page.goto(f"{KC}?continue")
    expect(page.locator("#table")).to_be_visible()
    return game_id


# -- choosing moves -------------------------------------------------------------------------
def events_of(state: kc.State, move: str) -> set[str]:
    """Which of the events the whole-round test needs this move is."""
    source, _, target = move.partition(">")
    out: set[str] = set()
    if source in CENTRE:
        out.add("pile")
        if target in CORNERS and not state.piles[target]:
            out.add("king")
    elif target in CENTRE and not state.piles[target]:
        out.add("fill")
    elif target in CORNERS and not state.piles[target] and source.startswith("K"):
        out.add("king")
    return out


def policy(state: kc.State) -> str:
    """Fill an emptied centre slot, then open a corner with a King, then move a pile, then
    play any card, else end the turn. Always one of the engine's legal moves."""
    moves = [str(m) for m in kc.legal_moves(state)]
    for wanted in ("fill", "king", "pile"):
        for m in moves:
            if wanted in events_of(state, m) and m != "end":
                return m
    for m in moves:
        if m != "end":
            return m
    return "end"


@dataclass
class Line:
    seed: int
    human_moves: list[str] = field(default_factory=list)
    computer_moves: int = 0
    events: set[str] = field(default_factory=set)
    table: SavedMatch | None = None


def simulate(
    seed: int,
    seats: tuple[Seat, ...] = VS_NORMAL,
    rules: kc.Rules | None = None,
    rounds: int = 1,
    choose: Callable[[kc.State], str] = policy,
) -> Line:
    """Plays round 1 as the server would (its computer logic) with `choose` for people.
    Deterministic, so each worker plays a seat/rules/seed only once (`find_seed` is called by
    many browser tests over the same seeds); the returned `Line` must not be changed."""
    key = (seed, seats, rules, rounds, choose)
    if key not in _SIMULATED:
        _SIMULATED[key] = _simulate(seed, seats, rules, rounds, choose)
    return _SIMULATED[key]


_SIMULATED: dict[tuple[Any, ...], Line] = {}


def _simulate(
    seed: int,
    seats: tuple[Seat, ...],
    rules: kc.Rules | None,
    rounds: int,
    choose: Callable[[kc.State], str],
) -> Line:
    table = SavedMatch.new(seats, rules or kc.Rules.preset("standard"), rounds, seed)
    line = Line(seed)
    for _ in range(1000):
        if table.phase in ("round_over", "match_over"):
            break
        state = table.match.state
        seat = state.to_play
        if table.phase == "computer":
            strength = table.seats[seat][1] or "normal"
            move = choose_move(table.match.view(seat), strength, table.computer_rng())
            table, _, _ = table.played(seat, move, computer=True)
            line.computer_moves += 1
        else:
            if table.phase == "handoff":
                table = table.revealed_to()
            text = choose(state)
            line.events |= events_of(state, text)
            line.human_moves.append(text)
            table, _, _ = table.played(seat, text, computer=False)
    line.table = table
    return line


def find_seed(
    needs: set[str],
    *,
    human_first: bool = False,
    seats: tuple[Seat, ...] = VS_NORMAL,
    rules: kc.Rules | None = None,
    rounds: int = 1,
    limit: int = 150,
    accept: Callable[[Line], bool] = lambda line: True,
) -> Line:
    """Among the seeds below `limit` whose scripted round 1 has all of `needs` (and passes
    `accept`), the one with the fewest steps, so the browser has the least to play."""
    best: Line | None = None
    for seed in range(1, limit):
        table = SavedMatch.new(seats, rules or kc.Rules.preset("standard"), rounds, seed)
        if human_first and table.match.state.to_play != 0:
            continue
        line = simulate(seed, seats, rules, rounds)
        wanted = needs <= line.events and accept(line)
        if wanted and (best is None or steps(line) < steps(best)):
            best = line
    assert best is not None, f"no seed below {limit} gives {needs}"
    return best


def last_turn(
    seats: tuple[Seat, ...], rounds: int, *, limit: int = 30, rules: kc.Rules | None = None
) -> SavedMatch:
    """A match on the person's (seat 0's) last turn of its last round: the rounds before are
    played out with `policy` for every seat (quick; their penalties are what they are), the
    last as the server would play it. Among the seeds below `limit`, the one whose last round
    leaves the fewest steps after that turn, so the browser has little to play to the end."""
    best: tuple[int, SavedMatch] | None = None
    for seed in range(1, limit):
        table = SavedMatch.new(seats, rules or kc.Rules.preset("standard"), rounds, seed)
        for _ in range(rounds - 1):
            while table.phase != "round_over":
                state = table.match.state
                table, _, _ = table.played(state.to_play, policy(state), computer=False)
            table = table.next_round()
        start, after = None, 0
        for _ in range(1000):
            if table.phase == "match_over":
                break
            seat = table.match.state.to_play
            if table.phase == "computer":
                strength = table.seats[seat][1] or "normal"
                move = choose_move(table.match.view(seat), strength, table.computer_rng())
                table, _, _ = table.played(seat, move, computer=True)
                after += 1
            else:
                if table.phase == "handoff":
                    table = table.revealed_to()
                if seat == 0:
                    start, after = table, 0
                table, _, _ = table.played(seat, policy(table.match.state), computer=False)
                after += 1
        if start is not None and (best is None or after < best[0]):
            best = (after, start)
    assert best is not None, f"no seed below {limit} reaches the end of the match"
    return best[1]


def steps(line: Line) -> int:
    return len(line.human_moves) + line.computer_moves


def quick_seed(*, rounds: int = 1, seats: tuple[Seat, ...] = VS_NORMAL) -> Line:
    """A deal where the person starts and goes out in the first turn (a short round)."""
    return find_seed(
        set(),
        human_first=True,
        seats=seats,
        rounds=rounds,
        accept=lambda line: line.computer_moves == 0,
    )


# -- the page -----------------------------------------------------------------------------
def page_phase(page: Page) -> str:
    return page.locator("#table").get_attribute("data-phase") or ""


def page_version(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or 0)


_SHOWN = """([settled, atLeast]) => {
    const d = document.getElementById('table').dataset;
    return settled.includes(d.phase) && +(d.version || 0) >= atLeast;
}"""
"""The page shows a phase that waits for a person, at version `atLeast` or later."""


def settle(page: Page, app: FastAPI, timeout: float = 30.0) -> SavedMatch:
    """Waits until the page shows the stored version in a phase that waits for a person. The
    waiting is done in the page (`wait_for_function`); the store is read once per change the
    page shows, never polled from here."""
    deadline = time.monotonic() + timeout
    at_least = 0
    while True:
        left_ms = max(1.0, (deadline - time.monotonic()) * 1000)
        try:
            page.wait_for_function(_SHOWN, arg=[list(SETTLED), at_least], timeout=left_ms)
        except PlaywrightTimeoutError:
            record = _record(app, page)
            shown = [page_version(page), page_phase(page)]
            phase = SavedMatch.from_dict(record.state).phase
            raise AssertionError(
                f"page stuck: page {shown}, store v{record.version} {phase}"
            ) from None
        record = _record(app, page)
        table = SavedMatch.from_dict(record.state)
        shown = page_version(page)
        if shown == record.version and table.phase in SETTLED and page_phase(page) in SETTLED:
            return table
        # The page is behind the store, or the store is moving on (a computer's turn the page
        # is playing): wait for the page's next version.
        at_least = record.version if shown < record.version else shown + 1


def wait_version_change(page: Page, before: int, timeout: float = 15.0) -> None:
    """Waits (in the page) until it shows a version other than `before`."""
    try:
        page.wait_for_function(
            "b => +(document.getElementById('table').dataset.version || 0) !== b",
            arg=before,
            timeout=timeout * 1000,
        )
    except PlaywrightTimeoutError:
        raise AssertionError(f"the page stayed at version {before}") from None


def outlined(page: Page) -> set[str]:
    return set(
        page.locator("#cross .pile.target").evaluate_all("els => els.map(e => e.dataset.pile)")
    )


def movable(page: Page) -> set[str]:
    return set(
        page.locator("#cross .pile.movable").evaluate_all("els => els.map(e => e.dataset.pile)")
    )


def playable(page: Page) -> set[str]:
    return set(
        page.locator("#hand .hand-card.playable").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
    )


def hand_cards(page: Page) -> list[str]:
    return list(
        page.locator("#hand .hand-card").evaluate_all("els => els.map(e => e.dataset.card)")
    )


def piles_on_page(page: Page) -> dict[str, tuple[int, str | None]]:
    rows = page.locator("#cross .pile").evaluate_all(
        "els => els.map(e => [e.dataset.pile, +e.dataset.count, e.dataset.tail || null])"
    )
    return {name: (count, tail) for name, count, tail in rows}


def engine_piles(state: kc.State) -> dict[str, tuple[int, str | None]]:
    out: dict[str, tuple[int, str | None]] = {}
    for name, cards in state.piles.items():
        out[name] = (len(cards), str(cards[-1]) if cards else None)
    return out


def targets_of(legal: list[str], source: str) -> set[str]:
    return {m.split(">")[1] for m in legal if m.startswith(f"{source}>")}


def card(page: Page, code: str) -> Any:
    return page.locator(f"#hand .hand-card[data-card='{code}']")


def pile(page: Page, name: str) -> Any:
    return page.locator(f"#cross .pile[data-pile='{name}']")


def assert_outlines_match_engine(page: Page, state: kc.State) -> int:
    """For every hand card and every movable pile: choose it, compare the outlined piles with
    the engine's legal targets, cancel. Returns how many choices were checked."""
    legal = [str(m) for m in kc.legal_moves(state)]
    hand = [str(c) for c in state.hands[state.to_play]]
    assert sorted(hand_cards(page)) == sorted(hand)
    assert playable(page) == {
        m.split(">")[0] for m in legal if m.split(">")[0] not in CENTRE and m != "end"
    }
    assert movable(page) == {m.split(">")[0] for m in legal if m.split(">")[0] in CENTRE}
    checked = 0
    for code in hand:
        card(page, code).click()
        expect(card(page, code)).to_have_attribute("aria-pressed", "true")
        assert outlined(page) == targets_of(legal, code), code
        card(page, code).click()  # the same card again cancels
        expect(page.locator("#cross .pile.target")).to_have_count(0)
        checked += 1
    for name in sorted(movable(page)):
        pile(page, name).click()
        expect(pile(page, name)).to_have_class(_has("selected"))
        assert outlined(page) == targets_of(legal, name), name
        page.keyboard.press("Escape")
        expect(page.locator("#cross .pile.target")).to_have_count(0)
        checked += 1
    return checked


def _has(cls: str) -> Any:
    return re.compile(rf"(^|\s){re.escape(cls)}(\s|$)")


def click_move(page: Page, move: str, *, tap: bool = False) -> None:
    """Makes `move` the way a person does: choose the card or pile, then its target."""
    source, _, target = move.partition(">")
    first = pile(page, source) if source in CENTRE else card(page, source)
    (first.tap if tap else first.click)()
    expect(pile(page, target)).to_have_class(_has("target"))
    (pile(page, target).tap if tap else pile(page, target).click)()


def play_turns(
    page: Page,
    app: FastAPI,
    *,
    choose: Callable[[kc.State], str] = policy,
    until: tuple[str, ...] = ("round_over", "match_over"),
    on_move: Callable[[kc.State, str], None] | None = None,
    limit: int = 400,
) -> SavedMatch:
    """Plays the person's turns by clicking (moves from `choose`) until the phase is in
    `until`; computer turns run in the page at its speed. Returns the stored table."""
    for _ in range(limit):
        table = settle(page, app)
        if table.phase in until:
            return table
        if table.phase == "handoff":
            page.locator("#reveal-btn").click()
            continue
        state = table.match.state
        move = choose(state)
        if on_move:
            on_move(state, move)
        before = page_version(page)
        if move == "end":
            page.locator("#end-btn").click()
            wait_version_change(page, before)
            if page.locator("#next-btn").is_visible():
                page.locator("#next-btn").click()
        else:
            click_move(page, move)
            wait_version_change(page, before)
    raise AssertionError("the round did not end")


def shot(page: Page, directory: Path, name: str, *, full_page: bool = False) -> None:
    page.screenshot(
        path=str(directory / f"kc-{name}.png"), full_page=full_page, animations="disabled"
    )


def pile_move_seed() -> int:
    """A deal where the person starts and can both play a card and move a pile."""
    for seed in range(1, 500):
        state = SavedMatch.new(VS_NORMAL, kc.Rules(), 3, seed).match.state
        moves = [str(m) for m in kc.legal_moves(state)]
        shifts = [m for m in moves if m.split(">")[0] in CENTRE]
        plays = [m for m in moves if m != "end" and m not in shifts]
        if state.to_play == 0 and shifts and plays:
            return seed
    raise AssertionError("no seed")


def big_hand(seats: tuple[Seat, ...], cards: int, *, limit: int = 40) -> SavedMatch:
    """A match at the start of the person's (seat 0's) turn holding at least `cards` cards:
    the person only ends turns (drawing one card each), the computers play as the server
    would. The first seed below `limit` that gets there before anyone goes out."""
    for seed in range(1, limit):
        table = SavedMatch.new(seats, kc.Rules.preset("standard"), 1, seed)
        for _ in range(2000):
            if table.phase in ("round_over", "match_over"):
                break
            seat = table.match.state.to_play
            if table.phase == "computer":
                strength = table.seats[seat][1] or "normal"
                move = choose_move(table.match.view(seat), strength, table.computer_rng())
                table, _, _ = table.played(seat, move, computer=True)
                continue
            if table.phase == "handoff":
                table = table.revealed_to()
            if seat == 0 and len(table.match.state.hands[0]) >= cards:
                return table
            table, _, _ = table.played(seat, "end", computer=False)
    raise AssertionError(f"no seed below {limit} gives a hand of {cards}")
