"""Statistics and history in the browser after a few games of each kind (played through the
API for speed): the tables and the SVG histogram, a history replay as practice, then the
settings dialog's export (a JSON download) and delete (with its confirmation); in Japanese
on a phone and in English on a desktop, axe-clean."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.server.helpers import Api
from tests.server.kc_driver import play_match

from .a11y import check_screen
from .conftest import NewPage


def games_played(url: str) -> tuple[str, int]:
    """A new player with two Poker Squares deals and one Kings Corner match; the id and the
    first deal's total."""
    with httpx.Client(base_url=url, timeout=30) as client:
        api = Api.new_player(client)  # type: ignore[arg-type]
        totals = []
        for _ in range(2):
            game = api.ps_new(table="american", target="normal")
            for i in range(25):
                game = api.ps(game, "moves", row=i // 5, col=i % 5)
            totals.append(game["view"]["total"])
        play_match(api, api.kc_new(rounds=1))
    assert api.player_id is not None
    return api.player_id, totals[0]


@pytest.fixture(scope="module")
def played(live_url: str) -> tuple[str, int]:
    """One player for both tests (the first replays a deal, the second deletes it all)."""
    return games_played(live_url)


def open_stats(new_page: NewPage, played: tuple[str, int], **options: object) -> tuple[Page, int]:
    player_id, total = played
    # Once per tab: the page's own reload after "delete" must not bring the deleted id back
    # (the server refuses it at once, and Chromium logs that 401).
    script = (
        "if (!sessionStorage.getItem('seeded')) {"
        f" localStorage.setItem('cardtable.player', {player_id!r});"
        " sessionStorage.setItem('seeded', '1'); }"
    )
    page = new_page(init_script=script, **options)
    page.goto("/stats.html")
    return page, total


def test_statistics_history_replay_in_japanese_on_a_phone(
    new_page: NewPage, played: tuple[str, int], screenshot_dir: Path
) -> None:
    page, _ = open_stats(new_page, played, phone=True, locale="ja-JP")
    summary = page.locator("#ps-summary-american tbody tr").first
    expect(summary).to_contain_text("2")
    expect(page.locator("#ps-chart-american svg.histogram rect.bar")).not_to_have_count(0)
    expect(page.locator("#kc-table tbody tr")).not_to_have_count(0)
    expect(page.locator("#history li")).to_have_count(3)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"horizontal overflow: {width}px"
    page.screenshot(path=str(screenshot_dir / "stats-ja-phone.png"), full_page=True)
    check_screen(page, "stats (ja, phone)", phone=True)
    page.locator("#history li[data-game=poker-squares] button.replay").first.click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#replay-marker")).to_be_visible()


def test_export_then_delete_from_the_settings_dialog(
    new_page: NewPage, played: tuple[str, int], screenshot_dir: Path
) -> None:
    page, total = open_stats(new_page, played, accept_downloads=True)
    expect(page.locator("#history li")).to_have_count(3)
    page.screenshot(path=str(screenshot_dir / "stats-en-desktop.png"), full_page=True)
    check_screen(page, "stats (en, desktop)", phone=False)
    page.locator("#settings-open").click()
    with page.expect_download() as info:
        page.locator("#data-export").click()
    data = json.loads(Path(info.value.path()).read_text(encoding="utf-8"))
    assert len(data["games"]) >= 3 and data["results"][0]["total"] == total
    assert len(data["results"]) == 3
    expect(page.locator("#data-status")).to_have_text("Saved as a JSON file.")
    page.locator("#data-delete").click()
    expect(page.locator("#data-confirm")).to_be_visible()
    check_screen(page, "settings dialog, delete confirmation", phone=False)
    page.locator("#data-delete-no").click()
    expect(page.locator("#data-confirm")).to_be_hidden()
    page.locator("#data-delete").click()
    page.locator("#data-delete-yes").click()
    expect(page.locator("#data-status")).to_contain_text("Deleted.")
    page.locator("#settings-dialog [data-close]").click()
    # The page starts again with a new player: nothing played.
    expect(page.locator("#history-empty")).to_be_visible()
    expect(page.locator("#history li")).to_have_count(0)
