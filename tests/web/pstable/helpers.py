"""Steps of the Poker Squares table's browser tests (docs/ps-tables.md): the server, making
and joining a table through the API as a device (with the device's own player id), opening
its page, placing a card by a click, and reading what a page shows.

    app = pst_app(tmp); with pst_server(app) as url: ...
    made = create_api(host, card_seconds=15)         # the host's table, its page opened
    join_api(friend, made["token"], "Ken"); open_table(friend, made["token"])
    start_api(host, made["token"])
    place_click(friend, 0)                           # the card on show, first empty cell
    place_api(host, made["token"])                   # the same through the API
    time_runs_out(app, made["token"])                # the hint places for who has not
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable.server import Settings, create_app
from cardtable.server.core.online_config import OnlineSettings
from cardtable.server.online.public import codes
from cardtable.server.pstables.lifecycle import tables_of
from cardtable.server.pstables.tables import load
from tests.support.live_server import live_server
from tests.web.online_helpers import LIVE_TIMEOUT, ensure_player, player_id

PAGE = "/poker-squares-table.html"
API = "/api/poker-squares/tables"
CARD = re.compile(r'"([2-9TJQKA][SHDC])"')
"""A card's code as a JSON string (a live message or an answer)."""


def pst_app(data_dir: Path, *, grace: float = 2.0) -> FastAPI:
    """The app: the online tables' per-address limits off (every test device comes from
    127.0.0.1), a short grace period, the smallest hint budget."""
    online = OnlineSettings(
        grace_seconds=grace, lookup_rate=None, join_rate=None, table_rate=None, qr_rate=None
    )
    settings = Settings(data_dir=data_dir, database_url=None, online=online, hint_budget=1)
    return create_app(settings)


@contextlib.contextmanager
def pst_server(app: FastAPI) -> Iterator[str]:
    """`app` on a loopback port, untraced. Yields the base URL."""
    with live_server(app, traced=False) as url:
        yield url


def time_runs_out(app: FastAPI, token: str) -> None:
    """The card on show's timer ends now: the server's deadline driver does what is due at a
    moment past it (the hint places the card for every seat that has not), as it would when
    the stored deadline passed; no test waits 15 s."""
    record = tables_of(app).store.read(codes.table_key(token))
    assert record is not None
    deadline = load(record).deadline
    assert deadline is not None, "the table has no card timer running"
    assert tables_of(app).advance(codes.table_key(token), deadline + 0.001)


def _headers(page: Page) -> dict[str, str]:
    return {"X-Player-Id": player_id(page), "Content-Type": "application/json"}


def api_get(page: Page, token: str) -> dict[str, Any]:
    """The table as this device may see it."""
    answer = page.request.get(f"{API}/{token}", headers=_headers(page))
    assert answer.ok, answer.text()
    data: dict[str, Any] = answer.json()
    return data


def api_post(page: Page, token: str, action: str, body: dict[str, Any] | None = None) -> Any:
    """A POST on the table as this device; returns the table."""
    answer = page.request.post(
        f"{API}/{token}/{action}", data=json.dumps(body or {}), headers=_headers(page)
    )
    assert answer.ok, answer.text()
    return answer.json()


def create_api(page: Page, name: str = "Ana", **body: Any) -> dict[str, Any]:
    """A table made through the API by this device (its host), its page opened; returns the
    answer (`token`, `code`, `table`)."""
    page.goto(PAGE)
    pid = ensure_player(page)
    payload = {"name": name, "table": "american", "card_seconds": None, **body}
    answer = page.request.post(
        API,
        data=json.dumps(payload),
        headers={"X-Player-Id": pid, "Content-Type": "application/json"},
    )
    assert answer.status == 201, answer.text()
    made: dict[str, Any] = answer.json()
    open_table(page, made["token"])
    return made


def join_api(page: Page, token: str, name: str) -> dict[str, Any]:
    """This device takes a seat through the API, then opens the table's page: a seat whose
    device has no live connection is away after the grace period, and the hint places for
    it."""
    page.goto(PAGE)
    ensure_player(page)
    data: dict[str, Any] = api_post(page, token, "join", {"name": name})
    open_table(page, token)
    return data


def open_table(page: Page, token: str, phase: str | None = None) -> None:
    """Opens the invite link and waits until the live channel has shown the table."""
    page.goto(f"{PAGE}#{token}")
    expect(page.locator("body[data-ready=pst]")).to_have_count(1)
    selector = "main[data-version]" if phase is None else f"main[data-phase={phase}]"
    expect(page.locator(selector)).to_have_count(1, timeout=LIVE_TIMEOUT)


def wait_phase(page: Page, phase: str) -> None:
    expect(page.locator(f"main[data-phase={phase}]")).to_have_count(1, timeout=LIVE_TIMEOUT)


def wait_card(page: Page, index: int) -> str:
    """Waits until the page shows card `index` (0-24) on show; returns its code."""
    card = page.locator(f"#current-card[data-index='{index}']")
    expect(card).to_have_count(1, timeout=LIVE_TIMEOUT)
    code = card.get_attribute("data-card")
    assert code is not None
    return code


def place_click(page: Page, index: int) -> str:
    """Places card `index` on the first empty cell of this page's grid by a click, and waits
    until the page has it there. Returns the cell's "row,col"."""
    wait_card(page, index)
    cell = page.locator("#board .cell.empty").first
    where = f"{cell.get_attribute('data-row')},{cell.get_attribute('data-col')}"
    cell.click()
    # Placed: on the grid, or the deal is over (this was the last card of the last player).
    page.wait_for_function(
        "n => document.querySelector('main').dataset.phase === 'over'"
        " || document.querySelectorAll('#board .cell.filled').length >= n",
        arg=index + 1,
        timeout=LIVE_TIMEOUT,
    )
    return where


def own_grid(page: Page, board: str = "#board") -> list[str]:
    """The cards on a grid of this page, row by row (empty cells left out)."""
    codes: list[str] = page.locator(f"{board} .cell[data-card]").evaluate_all(
        "cells => cells.map(c => c.dataset.card)"
    )
    return codes


def ranking_shown(page: Page) -> list[tuple[int, int, str]]:
    """The ranking a page shows: (seat, place, total text) per line."""
    rows: list[list[Any]] = page.locator("#ranking li").evaluate_all(
        "items => items.map(li => [Number(li.dataset.seat), Number(li.dataset.place),"
        " li.querySelector('.pst-rank-total').textContent])"
    )
    return [(int(s), int(p), str(t)) for s, p, t in rows]


class Frames:
    """Every live message a page receives, recorded from its WebSocket frames (attach before
    the page opens the table)."""

    def __init__(self, page: Page) -> None:
        self.messages: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: str | bytes) -> None:
        text = payload.decode() if isinstance(payload, bytes) else payload
        with contextlib.suppress(ValueError):
            self.messages.append(json.loads(text))

    def tables(self) -> list[dict[str, Any]]:
        return [m["table"] for m in self.messages if m.get("type") == "table"]


def cards_in(data: Any) -> set[str]:
    """Every card code written anywhere in `data` (as JSON)."""
    return set(CARD.findall(json.dumps(data)))


def place_api(page: Page, token: str) -> dict[str, Any]:
    """This device places the card on show on its grid's first empty cell through the API."""
    table = api_get(page, token)
    cells = [code for row in table["game"]["grid"] for code in row]
    empty = cells.index(None)
    cell = f"{'abcde'[empty % 5]}{empty // 5 + 1}"
    data: dict[str, Any] = api_post(
        page, token, "place", {"card": table["card"]["index"], "cell": cell}
    )
    return data


def place_by_keys(page: Page, index: int) -> None:
    """Places card `index` on the grid's first empty cell with the keyboard, as on the
    solitaire page: the arrows move the grid's one cursor there, Enter places."""
    wait_card(page, index)
    cell = page.locator("#board .cell.empty").first
    row, col = int(cell.get_attribute("data-row") or 0), int(cell.get_attribute("data-col") or 0)
    page.locator("#board [role=gridcell][tabindex='0']").focus()
    for key in ["PageUp", "Home", *["ArrowDown"] * row, *["ArrowRight"] * col, "Enter"]:
        page.keyboard.press(key)
    page.wait_for_function(
        "n => document.querySelector('main').dataset.phase === 'over'"
        " || document.querySelectorAll('#board .cell.filled').length >= n",
        arg=index + 1,
        timeout=LIVE_TIMEOUT,
    )
