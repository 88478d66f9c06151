"""The quick-play box on the home page (issue 41, docs/quickplay.md "The pages"), in both
languages at 390x844 and 1280x800, axe-core clean in every state:

- the form on the first screen (the games' buttons still there on a phone); a name left empty
  is asked for, a name the server refuses says why on the field (aria-invalid, described);
- Play: the waiting state (for how many, the rules, how many wait, the time waited, when
  computers take the empty seats); a reload shows it again (the server keeps the queue);
  Leave the queue brings the form back with the choices remembered;
- a player seated while away from the page finds the table offered on the home page, and
  one who presses Play while their quick-play table is unfinished is led back to it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import api_get, devices, ensure_player

from .steps import open_home, press_play, quick_get, quick_join, wait_seated

TEXT = {
    "en-US": {"title": "Quick play", "needed": "Type the name other players will see.",
              "refused": "nothing in it can be seen", "looking": "Finding a table for 3…",
              "waiting": "1 player waiting", "rules": "Simple rules", "fill": "Computers take",
              "left": "You left the queue.", "ready": "Your table is ready.",
              "already": "You are at a quick-play table that isn't finished."},
    "ja-JP": {"title": "クイック対戦", "needed": "ほかのプレイヤーに見える名前を入力してください。",
              "refused": "その名前は使えません。", "looking": "3人のテーブルを探しています…",
              "waiting": "1人が待っています", "rules": "ルール：簡易",
              "fill": "コンピューターが入ります",
              "left": "待つのをやめました。", "ready": "テーブルの用意ができました。",
              "already": "まだ終わっていないクイック対戦のテーブルがあります。"},
}  # fmt: skip


def bottom(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return float(box["y"] + box["height"])


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_form_waiting_and_leaving(
    browser: Browser,
    quick_url: str,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    phone: bool,
    locale: str,
) -> None:
    text = TEXT[locale]
    size = "phone" if phone else "desktop"
    console_guard.allow("422 (Unprocessable")  # the refused name
    with devices(browser, quick_url, console_guard) as make:
        page = make(phone=phone, locale=locale)
        open_home(page)
        box = page.locator("#quick-play")
        expect(box).to_have_attribute("data-state", "form")
        expect(page.locator("#qp-title")).to_have_text(text["title"])
        # The first screen: Play, and below it the games' buttons (on a phone too).
        height = page.viewport_size["height"] if page.viewport_size else 0
        assert bottom(page, "#qp-play") <= height and bottom(page, "#friends-kc") <= height
        check_screen(page, f"quick play, form ({locale}, {size})", phone=phone)
        page.screenshot(path=screenshot_dir / f"quick-form-{locale}-{size}.png")

        name = page.locator("#qp-name")
        page.locator("#qp-play").click()
        expect(name).to_have_attribute("aria-invalid", "true")
        expect(name).to_have_attribute("aria-describedby", "qp-name-msg")
        expect(page.locator("#qp-name-msg")).to_have_text(text["needed"])
        expect(name).to_be_focused()
        # A name of blank letters: the server refuses it and the field says why.
        press_play(page, "\u3164\u3164")
        expect(page.locator("#qp-name-msg")).to_contain_text(text["refused"])
        expect(name).to_have_attribute("aria-invalid", "true")
        check_screen(page, f"quick play, name refused ({locale}, {size})", phone=phone)
        page.screenshot(path=screenshot_dir / f"quick-refused-{locale}-{size}.png")

        press_play(page, "Ann", players="3", preset="simple")
        expect(box).to_have_attribute("data-state", "waiting")
        expect(name).not_to_have_attribute("aria-invalid", "true")
        expect(page.locator("#qp-wait-title")).to_have_text(text["looking"])
        expect(page.locator("#qp-wait-facts")).to_contain_text(text["waiting"])
        expect(page.locator("#qp-wait-facts")).to_contain_text(text["rules"])
        expect(page.locator("#qp-fill")).to_contain_text(text["fill"])
        status = quick_get(page)
        assert status["state"] == "waiting" and status["players"] == 3, status
        assert status["preset"] == "simple"
        check_screen(page, f"quick play, waiting ({locale}, {size})", phone=phone)
        page.screenshot(path=screenshot_dir / f"quick-waiting-{locale}-{size}.png")

        # The server keeps the queue: the page shows the waiting state again.
        page.reload()
        expect(page.locator("#quick-play[data-loaded]")).to_have_count(1)
        expect(box).to_have_attribute("data-state", "waiting")
        expect(page.locator("#qp-wait-title")).to_have_text(text["looking"])
        # The other language words the waiting state at once (no new request needed).
        other = "ja-JP" if locale == "en-US" else "en-US"
        page.locator(f"[data-set-lang={other[:2]}]").click()
        expect(page.locator("#qp-wait-title")).to_have_text(TEXT[other]["looking"])
        expect(page.locator("#qp-wait-facts")).to_contain_text(TEXT[other]["rules"])
        page.locator(f"[data-set-lang={locale[:2]}]").click()
        expect(page.locator("#qp-wait-title")).to_have_text(text["looking"])

        page.locator("#qp-leave").click()
        expect(box).to_have_attribute("data-state", "form")
        expect(page.locator("#qp-status")).to_have_text(text["left"])
        expect(page.locator("#qp-play")).to_be_focused()
        assert quick_get(page)["state"] == "idle"
        check_screen(page, f"quick play, left the queue ({locale}, {size})", phone=phone)
        # The choices and the name are remembered for the next time.
        page.reload()
        expect(page.locator("input[name=qp-players][value='3']")).to_be_checked()
        expect(page.locator("#qp-preset")).to_have_value("simple")
        expect(name).to_have_value("Ann")


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_a_table_made_while_away_is_offered(
    browser: Browser,
    quick_url: str,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    phone: bool,
    locale: str,
) -> None:
    size = "phone" if phone else "desktop"
    with devices(browser, quick_url, console_guard) as make:
        bea = make(phone=phone, locale=locale)
        open_home(bea)
        quick_join(bea, ensure_player(bea), {"players": 2, "preset": "standard", "name": "Bea"})
        ann = make()
        open_home(ann)
        press_play(ann, "Ann", players="2")
        token = wait_seated(ann)
        # Bea's page was not watching: her home page offers the table.
        open_home(bea)
        expect(bea.locator("#quick-play")).to_have_attribute("data-state", "ready")
        expect(bea.locator("#qp-ready-title")).to_have_text(TEXT[locale]["ready"])
        expect(bea.locator("#qp-ready-go")).to_have_attribute(
            "href", f"kings-corner-online.html#{token}"
        )
        check_screen(bea, f"quick play, table ready ({locale}, {size})", phone=phone)
        bea.screenshot(path=screenshot_dir / f"quick-ready-{locale}-{size}.png")
        bea.locator("#qp-ready-go").click()
        assert wait_seated(bea) == token
        table = api_get(bea, token)
        assert table["settings"]["quick"] and table["me"]["seats"], table
        # Opened, the table is no longer offered; Play while it is unfinished leads back to it.
        open_home(bea)
        expect(bea.locator("#quick-play")).to_have_attribute("data-state", "form")
        press_play(bea, "Bea")
        expect(bea.locator("#quick-play")).to_have_attribute("data-state", "ready")
        expect(bea.locator("#qp-ready-title")).to_have_text(TEXT[locale]["already"])
        expect(bea.locator("#qp-ready-title")).to_be_focused()
        expect(bea.locator("#qp-ready-go")).to_have_attribute(
            "href", f"kings-corner-online.html#{token}"
        )
        check_screen(bea, f"quick play, already seated ({locale}, {size})", phone=phone)
