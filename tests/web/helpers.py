"""Shared steps of the browser tests: start a deal, place cards, read the grid off the page and
score it with the engine."""

from __future__ import annotations

from collections.abc import Sized
from pathlib import Path

from playwright.sync_api import Page, expect

from cardtable.cards import Card
from cardtable.poker_squares import LINES, score

PS = "/poker-squares.html"


def wait_held(page: Page, held: Sized, what: str, *, timeout_ms: int = 5_000) -> None:
    """Let the page run until a `page.route` handler has held a request in `held` (bounded)."""
    for _ in range(timeout_ms // 20):
        if len(held):
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"{what} was never asked for")


def start_deal(page: Page, table: str = "american", target: str = "normal") -> None:
    """Open the screen (if needed), choose table and target, deal; the grid is then shown."""
    if not page.url.endswith(PS):
        page.goto(PS)
    expect(page.locator("#setup")).to_be_visible()
    page.locator(f"input[name=table][value={table}]").check()
    page.locator(f"input[name=target][value={target}]").check()
    page.locator("#deal-btn").click()
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#current-card[data-card]")).to_have_count(1)


def placed(page: Page) -> int:
    return page.locator(".cell.filled").count()


def wait_placed(page: Page, n: int) -> None:
    expect(page.locator(".cell.filled")).to_have_count(n)


def cell(page: Page, row: int, col: int) -> str:
    return f".cell[data-row='{row}'][data-col='{col}']"


def grid_cards(page: Page) -> list[str | None]:
    """The 25 cells row-major as card codes read from the page (None where empty)."""
    cells = page.locator(".cell").evaluate_all(
        "els => els.map(e => [+e.dataset.row, +e.dataset.col, e.dataset.card || null])"
    )
    grid: list[str | None] = [None] * 25
    for row, col, code in cells:
        grid[row * 5 + col] = code
    return grid


def engine_line_scores(grid: list[str | None], table: str) -> list[int | None]:
    out: list[int | None] = []
    for line in LINES:
        codes = [grid[i] for i in line]
        if any(c is None for c in codes):
            out.append(None)
        else:
            out.append(score([Card.parse(c) for c in codes if c is not None], table))
    return out


def engine_total(grid: list[str | None], table: str) -> int:
    return sum(s for s in engine_line_scores(grid, table) if s is not None)


def page_line_scores(page: Page) -> list[int | None]:
    texts = page.locator(".score[data-line]").evaluate_all(
        "els => els.sort((a, b) => a.dataset.line - b.dataset.line).map(e => e.textContent)"
    )
    return [int(t) if t.strip().isdigit() else None for t in texts]


def assert_total_matches_engine(page: Page, table: str) -> int:
    grid = grid_cards(page)
    assert all(grid), "the grid is not full"
    total = engine_total(grid, table)
    expect(page.locator("#end-total")).to_have_attribute("data-total", str(total))
    expect(page.locator("#fact-total")).to_have_text(str(total))
    assert page_line_scores(page) == engine_line_scores(grid, table)
    return total


def shot(page: Page, directory: Path, name: str, *, full_page: bool = False) -> None:
    page.screenshot(path=str(directory / f"{name}.png"), full_page=full_page, animations="disabled")


def place_by_api(page: Page, placements: int | None = None) -> None:
    """Places the current deal's next `placements` cards (None: all but the last) through the
    API as the page's player (first empty cell, row by row), then reloads the page onto the
    deal as the server keeps it: a test about the end of a deal clicks only what it is about,
    not 24 placements before it."""
    pid = page.evaluate("() => localStorage.getItem('cardtable.player')")
    headers = {"X-Player-Id": pid, "Content-Type": "application/json"}
    answer = page.request.get("/api/continue", headers=headers)
    assert answer.ok, answer.text()
    game = answer.json()["poker_squares"]
    assert game is not None, "no deal to continue"
    cells = [code for row in game["view"]["grid"] for code in row]
    empty = [i for i, code in enumerate(cells) if code is None]
    if placements is None:
        placements = len(empty) - 1
    assert placements < len(empty), (
        "the last placement is the test's own (a finished deal is not resumed)"
    )
    for index in empty[:placements]:
        body = {"version": game["version"], "row": index // 5, "col": index % 5}
        moved = page.request.post(
            f"/api/poker-squares/games/{game['id']}/moves", data=body, headers=headers
        )
        assert moved.ok, moved.text()
        game = moved.json()
    page.reload()
    expect(page.locator("#play")).to_be_visible()
    wait_placed(page, 25 - len(empty) + placements)
