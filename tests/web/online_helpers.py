"""Shared steps of the Kings Corner online browser tests (docs/online.md): a server with fast
online timings, devices (each a separate browser context, so a separate player id), creating
a table through the setup page or the API, joining by link or room code, playing a turn from
the table's own `legal_moves`, and waiting for a live update.

Everything here drives the real page the way a person does (clicks on hand cards and piles)
and reads the server only through the public HTTP API with the device's own player id, so
the same functions work against any `cardtable serve` (the two-process PostgreSQL test opens
devices on different processes by giving `open_device` a different `base_url`).

    server = online_server(tmp_path)              # context manager: the base URL
    host = open_device(browser, url, guard)       # a desktop device (phone=True: 390x844)
    token = create_table(host, seats=["invite"], name="Ana")
    friend = open_device(browser, url, guard)
    join_by_link(friend, token, "Ben")
    start_match(host, seed=7)
    play_turn(friend_or_host, token)              # whoever's turn it is, from legal_moves
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from tests.support.live_server import live_server
from tests.web.conftest import DESKTOP, PHONE, ConsoleGuard

PAGE = "/kings-corner-online.html"
API = "/api/kings-corner/online"
PILES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
LIVE_TIMEOUT = 10_000
"""How long (ms) a device may take to show a change made elsewhere (the contract: about a
second; generous for a loaded test machine)."""


# -- the server ---------------------------------------------------------------------------------
@contextlib.contextmanager
def online_server(
    data_dir: Path,
    *,
    grace: float = 3.0,
    step: float = 0.15,
    turn_timers: tuple[float, ...] = (2, 30, 60, 120),
) -> Iterator[str]:
    """A real server on a loopback port with fast online timings (grace period, computer
    pace, and a 2 s turn timer besides the real ones, in seconds), `X-Test-Seed` allowed and
    the per-address join and lookup limits off (every test device comes from 127.0.0.1).
    Yields the base URL."""
    online = OnlineSettings(
        grace_seconds=grace,
        computer_step_seconds=step,
        turn_timers=turn_timers,
        lookup_rate=None,
        join_rate=None,
        table_rate=None,
        qr_rate=None,
    )
    settings = Settings(
        data_dir=data_dir, database_url=None, online=online, allow_seed_for_tests=True
    )
    with live_server(create_app(settings), traced=False) as url:
        yield url


# -- devices ------------------------------------------------------------------------------------
def open_device(
    browser: Browser,
    base_url: str,
    guard: ConsoleGuard | None = None,
    *,
    phone: bool = False,
    locale: str = "en-US",
    reduced_motion: bool = False,
) -> Page:
    """A new device: its own browser context (cookies, storage, player id), desktop
    1280x800 or a phone 390x844 (`is_mobile`, `has_touch`). The caller closes
    `page.context` (or lets the test's browser fixture do it). `guard` collects console
    errors. The clipboard may be written (the copy button)."""
    args: dict[str, Any] = {**(PHONE if phone else DESKTOP), "base_url": base_url, "locale": locale}
    if reduced_motion:
        args["reduced_motion"] = "reduce"
    # As in conftest.ContextPool: the app's service worker is not what these tests are about.
    args["service_workers"] = "block"
    context = browser.new_context(**args)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    if guard is not None:
        guard.watch(page)
    return page


@contextlib.contextmanager
def devices(browser: Browser, base_url: str, guard: ConsoleGuard) -> Iterator[Callable[..., Page]]:
    """A test's device maker (`open_device`'s options), every device closed at the end.
    Chromium logs every refused request (a 409 when two devices race) as a console error, so
    the guard allows that one."""
    pages: list[Page] = []
    guard.allow("409 (Conflict)")

    def make(**options: Any) -> Page:
        page = open_device(browser, base_url, guard, **options)
        pages.append(page)
        return page

    try:
        yield make
    finally:
        for page in pages:
            page.context.close()


def player_id(page: Page) -> str:
    """The device's player id (created by the page on its first request)."""
    pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
    assert isinstance(pid, str) and pid, "the device has no player id yet"
    return pid


def ensure_player(page: Page) -> str:
    """The device's player id, made through the API when the page has none yet (the page
    must be on the site's origin)."""
    pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
    if isinstance(pid, str) and pid:
        return pid
    pid = page.request.post("/api/players").json()["player_id"]
    page.evaluate("id => localStorage.setItem('cardtable.player', id)", pid)
    return str(pid)


def api_get(page: Page, token: str) -> dict[str, Any]:
    """The table as this device may see it (GET with its own player id)."""
    answer = page.request.get(f"{API}/{token}", headers={"X-Player-Id": player_id(page)})
    assert answer.ok, answer.text()
    data: dict[str, Any] = answer.json()
    return data


def api_post(
    page: Page, token: str, action: str, body: dict[str, Any], seed: int | None = None
) -> dict[str, Any]:
    """A POST on the table as this device (with its version taken fresh when `body` has none)."""
    if "version" not in body:
        body = {"version": api_get(page, token)["version"], **body}
    headers = {"X-Player-Id": player_id(page), "Content-Type": "application/json"}
    if seed is not None:
        headers["X-Test-Seed"] = str(seed)
    answer = page.request.post(f"{API}/{token}/{action}", data=json.dumps(body), headers=headers)
    assert answer.ok, answer.text()
    data: dict[str, Any] = answer.json()
    return data


# -- creating and joining -----------------------------------------------------------------------
def create_table(
    page: Page,
    *,
    seats: list[str] | tuple[str, ...] = ("invite",),
    name: str = "Ana",
    timer: int | None = None,
    rounds: int = 1,
) -> str:
    """Creates a table through the Kings Corner setup page, as a host does: `seats` are the
    choices for seats 2.. ("invite", "human", "computer:easy", ...). The page then shows the
    online lobby; returns the token (the invite link's fragment)."""
    page.goto("/kings-corner.html")
    expect(page.locator("#setup")).to_be_visible()
    page.locator(f"input[name=players][value='{len(seats) + 1}']").check()
    for i, choice in enumerate(seats, start=1):
        page.locator(f"#seat-{i}").select_option(choice)
    expect(page.locator("#online-options")).to_be_visible()
    page.locator("#host-name").fill(name)
    page.locator(f"input[name=turn_timer][value='{timer or 'off'}']").check()
    page.locator(f"input[name=rounds][value='{rounds}']").check()
    page.locator("#start-btn").click()
    page.wait_for_url(re.compile(r"kings-corner-online\.html#"))
    expect(page.locator("#lobby")).to_be_visible(timeout=LIVE_TIMEOUT)
    return page.url.split("#", 1)[1]


def create_table_api(page: Page, body: dict[str, Any]) -> dict[str, Any]:
    """Creates a table through the API for this device (which becomes the host) and opens
    its invite link; returns the answer (`token`, `code`, `table`)."""
    page.goto("/")
    pid = ensure_player(page)
    answer = page.request.post(
        API, data=json.dumps(body), headers={"X-Player-Id": pid, "Content-Type": "application/json"}
    )
    assert answer.status == 201, answer.text()
    made: dict[str, Any] = answer.json()
    open_table(page, made["token"])
    return made


def open_table(page: Page, token: str) -> None:
    """Opens the invite link and waits until the live channel has shown the table."""
    page.goto(f"{PAGE}#{token}")
    expect(page.locator("body[data-ready=kco]")).to_have_count(1)
    expect(page.locator("#table[data-version]")).to_have_count(1, timeout=LIVE_TIMEOUT)


def join_by_link(page: Page, token: str, name: str, seat: int | None = None) -> None:
    """Opens the invite link, types the display name and takes `seat` (None: the first open
    one), as a friend does."""
    open_table(page, token)
    page.locator("#join-name").fill(name)
    buttons = page.locator("button.take-seat")
    button = (
        buttons.first if seat is None else page.locator(f"button.take-seat[data-seat='{seat}']")
    )
    button.click()
    expect(page.locator("#leave-btn")).to_be_visible(timeout=LIVE_TIMEOUT)


def join_by_code(page: Page, code: str, name: str, seat: int | None = None) -> str:
    """Opens the online page without a link, types the room code (spaced, lower case: the page
    forgives both), then takes a seat. Returns the token it led to."""
    page.goto(PAGE)
    expect(page.locator("#code-entry")).to_be_visible()
    page.locator("#room-code").fill(f"{code[:3].lower()} {code[3:]}")
    page.locator("#code-btn").click()
    page.wait_for_url(re.compile(r"#[A-Za-z0-9_-]{16,}$"))
    expect(page.locator("#table[data-version]")).to_have_count(1, timeout=LIVE_TIMEOUT)
    token = page.url.split("#", 1)[1]
    page.locator("#join-name").fill(name)
    button = (
        page.locator("button.take-seat").first
        if seat is None
        else page.locator(f"button.take-seat[data-seat='{seat}']")
    )
    button.click()
    expect(page.locator("#leave-btn")).to_be_visible(timeout=LIVE_TIMEOUT)
    return token


def start_match(host: Page, seed: int | None = None) -> None:
    """The host presses Start (with a fixed deal when `seed` is given: the `X-Test-Seed`
    header is added to the page's start request). When the table moved on just before the
    press (a seat's grace ran out, a friend joined), the page answers "the table moved on,
    try again" and the host presses again, as a person would."""
    pattern = re.compile(r"/api/kings-corner/online/[^/]+/(start|rematch)$")
    if seed is not None:

        def add_seed(route: Any) -> None:
            route.continue_(headers={**route.request.headers, "x-test-seed": str(seed)})

        host.route(pattern, add_seed)
    for _ in range(4):
        with host.expect_response(
            lambda r: r.request.method == "POST" and bool(pattern.search(r.url)),
            timeout=LIVE_TIMEOUT,
        ) as answer:
            host.locator("#start-match-btn").click()
        if answer.value.status != 409:
            break
    expect(host.locator("#table")).to_be_visible(timeout=LIVE_TIMEOUT)


# -- reading and waiting ----------------------------------------------------------------------
def shown_version(page: Page) -> int:
    """The table version the page shows."""
    return int(page.locator("#table").get_attribute("data-version") or 0)


def wait_version(page: Page, at_least: int, timeout: float = LIVE_TIMEOUT) -> int:
    """Waits until the page shows version `at_least` or later (a live update); returns it."""
    page.wait_for_function(
        "v => +(document.getElementById('table').dataset.version || 0) >= v",
        arg=at_least,
        timeout=timeout,
    )
    return shown_version(page)


def wait_phase(page: Page, phase: str, timeout: float = LIVE_TIMEOUT) -> None:
    expect(page.locator("#table")).to_have_attribute("data-phase", phase, timeout=timeout)


def wait_turn(page: Page, token: str, timeout: float = 20.0) -> dict[str, Any]:
    """Waits (bounded) until it is this device's seat's turn to play, or the round is over;
    returns the table (from the API)."""
    deadline = time.monotonic() + timeout
    while True:
        table = api_get(page, token)
        seat = (table.get("turn") or {}).get("seat")
        mine = (table.get("me") or {}).get("seats", [])
        if table["phase"] in ("round_over", "match_over"):
            return table
        if table["phase"] == "play" and seat in mine and not table["seats"][seat]["stand_in"]:
            return table
        assert time.monotonic() < deadline, f"never this device's turn: {table['phase']} {seat}"
        time.sleep(0.1)


# -- playing ------------------------------------------------------------------------------------
def _choose(moves: list[str]) -> str:
    """A simple policy: play a card (to go out quickly), else move a pile, else end."""
    shifts = [m for m in moves if ">" in m and m.split(">")[0] in PILES]
    plays = [m for m in moves if ">" in m and m not in shifts]
    return (plays or shifts or ["end"])[0]


def click_move(page: Page, move: str) -> None:
    """Makes `move` ("9H>N", "E>NW", "end") by clicking the page, as a player does."""
    if move == "end":
        page.locator("#end-btn").click()
        return
    source, target = move.split(">")
    if re.fullmatch(r"[NESW]{1,2}", source):
        page.locator(f"button.pile[data-pile='{source}']").click()
    else:
        page.locator(f".hand-card[data-card='{source}']").click()
    page.locator(f"button.pile[data-pile='{target}']").click()


def play_turn(page: Page, token: str, *, max_moves: int = 12) -> dict[str, Any]:
    """Plays this device's whole turn from the table's `legal_moves` (cards first, then pile
    moves, then End turn), clicking the page and waiting for each answer. Returns the table
    after the turn (the API's)."""
    table = wait_turn(page, token)
    for _ in range(max_moves):
        if table["phase"] != "play":
            return table
        moves = table["view"]["legal_moves"]
        move = _choose(moves)
        version = table["version"]
        wait_version(page, version)
        click_move(page, move)
        wait_version(page, version + 1)
        table = api_get(page, token)
        if move == "end":
            return table
    click_move(page, "end")
    return api_get(page, token)


def play_turn_api(page: Page, token: str, *, max_moves: int = 12) -> dict[str, Any]:
    """Plays this device's whole turn like `play_turn`, but through the API with the device's
    player id (fast; the other devices still see every move over the live channel)."""
    table = wait_turn(page, token)
    for _ in range(max_moves):
        if table["phase"] != "play":
            return table
        move = _choose(table["view"]["legal_moves"])
        table = api_post(page, token, "moves", {"version": table["version"], "move": move})
        if move == "end":
            return table
    return api_post(page, token, "moves", {"version": table["version"], "move": "end"})


def play_round(
    pages: list[Page], token: str, *, clicked_turns: int = 1, timeout: float = 60.0
) -> dict[str, Any]:
    """Plays the round to its end: each device plays its seat's turns, the first
    `clicked_turns` of them by clicking its page, the rest through the API; computer seats
    (and stand-ins) are left to the server. Returns the table at the end of the round."""
    seats = {i: set((api_get(p, token)["me"] or {}).get("seats", [])) for i, p in enumerate(pages)}
    clicked = dict.fromkeys(seats, 0)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = api_get(pages[0], token)
        if table["phase"] in ("round_over", "match_over"):
            return table
        seat = (table.get("turn") or {}).get("seat")
        owner = next((i for i, mine in seats.items() if seat in mine), None)
        if owner is None or table["seats"][seat]["stand_in"] or table["phase"] != "play":
            time.sleep(0.1)
            continue
        if clicked[owner] < clicked_turns:
            clicked[owner] += 1
            play_turn(pages[owner], token)
        else:
            play_turn_api(pages[owner], token)
    raise AssertionError(f"the round did not end in {timeout} s")


@contextlib.contextmanager
def connect_live(page: Page, token: str, pid: str) -> Iterator[dict[str, Any]]:
    """A live connection for player `pid` (a person with no browser), open inside the block:
    says hello and yields the first table it is sent. The seat is "online" while it is open
    and "reconnecting" after."""
    from websockets.sync.client import connect

    base = page.url.split("/kings-corner", 1)[0].replace("http", "ws", 1)
    with connect(f"{base}{API}/{token}/live", open_timeout=10, close_timeout=2) as ws:
        ws.send(json.dumps({"type": "hello", "player": pid, "version": None}))
        first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "table", first
        yield first["table"]
