"""The daily deal in the browser: played to the end from the daily page on the Poker Squares
screen, its rank, board and histogram shown, the share text copied with one press, a second
attempt as practice; in English on a desktop and in Japanese on a phone, axe-clean."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI
from playwright.sync_api import Page, expect

from cardtable.server.core.store.sql import SqlStore
from cardtable.server.devices.players import player_key

from .a11y import check_screen
from .conftest import NewPage
from .helpers import cell, wait_placed

EMOJI = set("⬛⬜🟦🟩🟨🟧🟥🟪💎👑")


def old_player(app: FastAPI, url: str) -> str:
    """A player id created yesterday (so today's daily ranks it), for a page to use."""
    player_id = str(httpx.post(f"{url}/api/players").json()["player_id"])
    store = app.state.runtime.store
    assert isinstance(store, SqlStore)
    with store.transaction() as tx:
        tx.execute(
            store._sql("UPDATE players SET created_at = ? WHERE id = ?"),
            ((datetime.now(UTC) - timedelta(days=1)).isoformat(), player_key(player_id)),
        )
    return player_id


def as_player(player_id: str) -> str:
    return f"localStorage.setItem('cardtable.player', {player_id!r});"


def play_to_the_end(page: Page) -> None:
    expect(page.locator("#play")).to_be_visible()
    for i in range(25):
        page.locator(cell(page, i // 5, i % 5)).click()
        wait_placed(page, i + 1)
    expect(page.locator("#end")).to_be_visible()


def test_daily_deal_rank_share_and_practice(
    new_page: NewPage, live_app: FastAPI, live_url: str, screenshot_dir: Path
) -> None:
    page = new_page(
        init_script=as_player(old_player(live_app, live_url)),
        permissions=["clipboard-read", "clipboard-write"],
    )
    page.goto("/")
    expect(page.locator("#daily-countdown")).to_contain_text(":")
    page.locator("#daily-home").click()
    expect(page.locator("#countdown")).to_have_text(re.compile(r"\d\d:\d\d:\d\d"))
    expect(page.locator("#play-btn")).to_have_text("Play today's deal")
    check_screen(page, "daily (en, desktop, before)", phone=False)
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    play_to_the_end(page)
    expect(page.locator("#practice-marker")).to_be_hidden()
    page.locator("#daily-back").click()

    page.wait_for_url("**/daily.html?table=american")
    expect(page.locator("#result-text")).to_contain_text("rank 1")
    expect(page.locator("#board-table tbody tr.mine")).to_have_count(1)
    expect(page.locator("#board-table tbody tr.mine")).to_contain_text("(you)")
    expect(page.locator("#histogram svg rect.bar.mine")).to_have_count(1)
    expect(page.locator("#streak-text")).to_contain_text("Current: 1 day")
    # The day's shuffle is committed while the day runs; its seed waits for the day's end.
    expect(page.locator("#board-fair")).to_contain_text("The day's shuffle is committed:")
    expect(page.locator("#board-fair code")).to_have_text(re.compile(r"^[0-9a-f]{16}$"))
    expect(page.locator("#verify-day")).to_have_count(0)
    page.locator("#share-btn").click()
    expect(page.locator("#share-status")).to_have_text("Copied.")
    shared = page.evaluate("navigator.clipboard.readText()")
    assert shared == page.locator("#share-text").text_content()
    title, rows, cols, total = shared.split("\n")
    assert title.startswith("cardtable daily ") and total.startswith("Total ")
    assert len(rows) == len(cols) == 5 and set(rows + cols) <= EMOJI  # no card named
    page.screenshot(path=str(screenshot_dir / "daily-en-desktop.png"), full_page=True)
    check_screen(page, "daily (en, desktop, ranked)", phone=False)

    # A display name shows on the board as text, never as markup.
    page.locator("#name-input").fill("<b>Ann</b>")
    page.locator("#name-form button[type=submit]").click()
    expect(page.locator("#name-status")).to_have_text("Saved.")
    expect(page.locator("#board-table tbody tr.mine td").nth(1)).to_have_text("<b>Ann</b> (you)")

    # A second attempt is practice.
    expect(page.locator("#play-btn")).to_have_text("Play again (practice)")
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    expect(page.locator("#practice-marker")).to_be_visible()
    expect(page.locator("#replay-marker")).to_be_visible()


def test_daily_in_japanese_on_a_phone(
    new_page: NewPage, live_app: FastAPI, live_url: str, screenshot_dir: Path
) -> None:
    player = old_player(live_app, live_url)
    page = new_page(phone=True, locale="ja-JP", init_script=as_player(player))
    page.goto("/poker-squares.html")
    page.locator("#daily-btn").click()
    page.wait_for_url("**/daily.html")
    page.locator("input[name=daily-table][value=british]").check()
    expect(page.locator("#play-btn")).to_have_text("今日の配札をプレイ")
    page.locator("#play-btn").click()
    page.wait_for_url("**/poker-squares.html")
    play_to_the_end(page)
    page.locator("#daily-back").click()
    page.wait_for_url("**/daily.html?table=british")
    expect(page.locator("#result-text")).to_contain_text("位")
    expect(page.locator("#histogram svg rect.bar")).not_to_have_count(0)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"horizontal overflow: {width}px"
    page.screenshot(path=str(screenshot_dir / "daily-ja-phone.png"), full_page=True)
    check_screen(page, "daily (ja, phone)", phone=True)
