"""An online Kings Corner round is provably fair in the browser (docs/fairness.md "Online
tables"): the seated device and a spectator each get a "Verify this shuffle" link in the end
panel; the verify page says the round verifies (the commitment, recorded by that browser
before the first card, and the seated device's dealt hand), and a changed card, seed or salt
does not verify."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Browser, Page, expect

from cardtable import fairness
from cardtable.server.core.settings import WEB_DIR
from tests.web.conftest import ConsoleGuard
from tests.web.fairness.test_verify import shown
from tests.web.online_helpers import (
    LIVE_TIMEOUT,
    api_get,
    create_table_api,
    open_device,
    open_table,
    play_round,
    start_match,
    wait_phase,
)
from tests.web.online_helpers import online_server as serve_online

STRINGS = json.loads((WEB_DIR / "assets" / "i18n" / "fairness.en.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def online_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_online(Path(tmp_path_factory.mktemp("online-fair")), step=0.05) as url:
        yield url


def fragment(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(url.split("#", 1)[1]).items()}


def checks(page: Page) -> dict[str, str]:
    return dict(
        page.locator("#checks li").evaluate_all(
            "els => els.map(e => [e.dataset.check, e.dataset.ok])"
        )
    )


def verdict(page: Page, ok: bool) -> None:
    expect(page.locator("body[data-verified=done]")).to_have_count(1)
    key = "fair.verified" if ok else "fair.not_verified"
    expect(page.locator("#verdict")).to_have_text(STRINGS[key])
    expect(page.locator("#verdict")).to_have_attribute("data-ok", str(ok).lower())


def recheck(page: Page, field: str, value: str) -> None:
    # The values are folded away (the page checks by itself): open them as a person would.
    box = page.locator("#values-box")
    if box.get_attribute("open") is None:
        box.locator("summary").first.click()
    page.locator(f"#f-{field}").fill(value)
    page.locator("#verify-btn").click()


@pytest.mark.deep  # the fast tier: tests/server/online/test_fairness.py (commitment and reveal)
# and tests/web/fairness/test_verify.py (the verify page)
def test_an_online_round_verifies_from_its_end_panel(
    browser: Browser, online_url: str, console_guard: ConsoleGuard
) -> None:
    host = open_device(browser, online_url, console_guard)
    watcher = open_device(browser, online_url, console_guard)
    try:
        made = create_table_api(host, {
            "name": "Ana", "seats": [{"kind": "me"}, {"kind": "computer", "strength": "easy"}],
            "rules": {"preset": "simple"},
        })  # fmt: skip
        token = made["token"]
        open_table(watcher, token)  # a spectator: no seat, no hand
        start_match(host)  # no X-Test-Seed: a fair match, as for everyone
        first = api_get(host, token)["view"]["fairness"]
        assert first["commitment"] and first["seed"] is None and first["round"] == 1
        # Nothing to check yet: the end panel and its link come with the round's end.
        expect(host.locator("#verify-btn")).to_have_count(0)

        end = play_round([host], token)
        assert end["phase"] == "match_over"
        revealed = end["view"]["fairness"]
        assert revealed["commitment"] == first["commitment"]
        seed, salt = revealed["seed"], revealed["salt"]
        assert fairness.commitment(seed, salt) == first["commitment"]
        deck = [str(c) for c in fairness.fair_deck(seed)]

        # The seated device: its link carries the hand it was dealt, recorded before the reveal.
        wait_phase(host, "match_over")
        link = host.locator("#end #verify-btn")
        expect(link).to_have_text(STRINGS["fair.verify_btn"], timeout=LIVE_TIMEOUT)
        href = link.get_attribute("href") or ""
        values = fragment(href)
        assert values["seed"] == seed and values["salt"] == salt
        assert values["commitment"] == values["before"] == first["commitment"]
        assert values["game"] == "kc" and values["players"] == "2" and values["round"] == "1"
        assert values["seat"] == "0" and set(deck[:7]) <= set(values["hand"].split())
        link.click()
        verdict(host, True)
        assert checks(host) == {"commitment": "true", "before": "true", "hand": "true"}
        expect(host.locator("#dealt")).to_have_text(shown(deck[:7]))
        expect(host.locator("#centre")).to_have_text(shown(deck[14:18]))

        # Tampered: a dealt card swapped for one of the stock, then a changed seed, a changed salt.
        hand = values["hand"].split()
        changed = [deck[20] if c == deck[0] else c for c in hand]
        recheck(host, "hand", " ".join(changed))
        expect(host.locator("#checks li[data-check=hand]")).to_have_attribute("data-ok", "false")
        expect(host.locator("#verdict")).to_have_text(STRINGS["fair.not_verified"])
        recheck(host, "hand", values["hand"])
        expect(host.locator("#verdict")).to_have_text(STRINGS["fair.verified"])
        flip = {"0": "1"}
        for field, value in (("seed", seed), ("salt", salt)):
            recheck(host, field, value[:-1] + flip.get(value[-1], "0"))
            expect(host.locator("#checks li[data-check=commitment]")).to_have_attribute(
                "data-ok", "false"
            )
            expect(host.locator("#verdict")).to_have_text(STRINGS["fair.not_verified"])
            recheck(host, field, value)
            expect(host.locator("#verdict")).to_have_text(STRINGS["fair.verified"])
        # A tampered link opened as it is: the page says so at once.
        bad = href.replace(f"seed={seed}", f"seed={seed[:-1]}{flip.get(seed[-1], '0')}")
        assert bad != href
        host.goto("/")  # a new document, not a same-page change of the fragment
        host.goto(f"/{bad}")
        verdict(host, False)

        # The spectator: its end panel links to the check too (the commitment it saw before
        # the reveal; it was dealt no hand).
        wait_phase(watcher, "match_over")
        seen = watcher.locator("#end #verify-btn")
        expect(seen).to_have_text(STRINGS["fair.verify_btn"])
        spectator = fragment(seen.get_attribute("href") or "")
        assert spectator["before"] == first["commitment"] and "hand" not in spectator
        seen.click()
        verdict(watcher, True)
        assert checks(watcher) == {"commitment": "true", "before": "true", "hand": "null"}
    finally:
        host.context.close()
        watcher.context.close()
