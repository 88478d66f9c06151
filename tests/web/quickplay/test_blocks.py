"""After a quick-play match (issue 41, docs/quickplay.md "The pages"): the end panel offers
"Don't seat me with this player again" for each other person; pressing it says it is done and
the settings dialog then lists that player with an Undo, which the server honours (the list
empties, and the section is gone the next time the dialog opens). Both languages, 390x844 and
1280x800, axe-core clean in each state."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.web.a11y import check_screen
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import LIVE_TIMEOUT, devices, play_round, wait_phase

from .steps import open_home, press_play, quick_get, wait_seated

TEXT = {
    "en-US": {"block": "Don't seat me with this player again",
              "done": "Done: you won't be seated with Bea again.",
              "title": "Players you don't want to be seated with",
              "undone": "Bea can be seated with you again."},
    "ja-JP": {"block": "この人とは今後同じテーブルにしない",
              "done": "Beaさんとは今後同じテーブルになりません。",
              "title": "同じテーブルにしない人",
              "undone": "Beaさんとまた同じテーブルになることがあります。"},
}  # fmt: skip


@pytest.mark.parametrize("locale", ["en-US", "ja-JP"])
@pytest.mark.parametrize("phone", [True, False], ids=["phone", "desktop"])
def test_block_after_a_match_and_undo_in_settings(
    browser: Browser,
    quick_url: str,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    phone: bool,
    locale: str,
) -> None:
    text = TEXT[locale]
    size = "phone" if phone else "desktop"
    with devices(browser, quick_url, console_guard) as make:
        ann = make(phone=phone, locale=locale)
        bea = make()
        for page, name in ((ann, "Ann"), (bea, "Bea")):
            open_home(page)
            press_play(page, name, players="2")
        token = wait_seated(ann)
        assert wait_seated(bea) == token
        # Before the match is over nothing is offered.
        expect(ann.locator("#qp-after")).to_have_count(0)
        final = play_round([ann, bea], token, clicked_turns=0, timeout=120)
        assert final["phase"] == "match_over", final["phase"]
        wait_phase(ann, "match_over")

        after = ann.locator("#qp-after")
        expect(after).to_be_visible(timeout=LIVE_TIMEOUT)
        rows = after.locator(".qp-after-row")
        expect(rows).to_have_count(1)  # Bea only: not Ann herself
        expect(rows.first).to_contain_text("Bea")
        button = rows.first.locator("button")
        expect(button).to_have_text(text["block"])
        check_screen(ann, f"quick play, end of match ({locale}, {size})", phone=phone)
        ann.screenshot(path=screenshot_dir / f"quick-after-{locale}-{size}.png")
        button.click()
        done = rows.first.locator("#qp-after-done-1")
        expect(done).to_contain_text(text["done"])
        expect(done).to_be_focused()
        blocks = quick_get(ann, "/blocks")["blocks"]
        assert [b["name"] for b in blocks] == ["Bea"], blocks
        check_screen(ann, f"quick play, blocked ({locale}, {size})", phone=phone)

        # The settings dialog lists her, with an Undo.
        ann.locator("#settings-open").click()
        section = ann.locator("#qp-blocks")
        expect(ann.locator("#qp-blocks[data-loaded]")).to_have_count(1)
        expect(section).to_be_visible()
        expect(ann.locator("#qp-blocks-title")).to_have_text(text["title"])
        expect(section.locator(".qp-blocks-row")).to_have_count(1)
        expect(section.locator(".qp-blocks-row")).to_contain_text("Bea")
        check_screen(ann, f"settings, blocked players ({locale}, {size})", phone=phone)
        ann.locator("#settings-dialog").screenshot(
            path=screenshot_dir / f"quick-settings-{locale}-{size}.png"
        )
        section.locator(".qp-undo").click()
        expect(section.locator(".qp-blocks-row.undone")).to_have_text(text["undone"])
        expect(ann.locator("#qp-blocks-status")).to_have_text(text["undone"])
        expect(ann.locator("#qp-blocks-title")).to_be_focused()
        assert quick_get(ann, "/blocks")["blocks"] == []
        check_screen(ann, f"settings, block undone ({locale}, {size})", phone=phone)
        # Next time the dialog opens, an empty list shows no section at all.
        ann.locator("#settings-dialog [data-close]").click()
        ann.locator("#settings-open").click()
        expect(ann.locator("#settings-dialog")).to_be_visible()
        expect(section).to_be_hidden()
        # Bea's end panel offers Ann (each sees the others, not themselves).
        expect(bea.locator("#qp-after .qp-after-row")).to_contain_text("Ann")
