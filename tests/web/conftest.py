"""Browser tests: the real server on a loopback port, the system Chromium, and a guard that
fails a test on any console error or uncaught page error."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect

from cardtable.server import Settings, create_app
from tests.support.live_server import live_server as serve

HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = os.environ.get("CARDTABLE_CHROMIUM") or (
    HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else "/usr/bin/chromium"
)
"""The browser the tests drive: Debian's `chromium-headless-shell` (the same Chromium build
without the desktop browser around it, what Playwright itself runs headless by default), which
`make test` installs beside `chromium`. It takes about 38% less CPU than `/usr/bin/chromium
--headless` on the same browser tests (docs/checks.md, "The browser"). `CARDTABLE_CHROMIUM`
names another binary; without the shell the tests use the full Chromium."""
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
EXPECT_TIMEOUT_MS = 10_000
"""How long an `expect` waits for the page (Playwright's default is 5 s): a page's fetch took
longer than 5 s on a 2-core machine at load 12-19, and a test that passes waits no longer."""
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
TEST_BUDGET = 1
"""The search budget of the browser tests' server (hints, reviews, strong computers)."""
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app the live server runs (tests may read its store, e.g. the Kings Corner state)."""
    data = tmp_path_factory.mktemp("web-data")
    # The pages show whatever the engine answers: a small search budget proves the same
    # things as the interactive one (the hint's strength is measured in bench/, not here)
    # at a fraction of the CPU, for every hint, computer step and review of a browser test.
    return create_app(Settings(data_dir=data, database_url=None, hint_budget=TEST_BUDGET))


@pytest.fixture(scope="session")
def live_url(live_app: FastAPI) -> Iterator[str]:
    """One real server per xdist worker, with its own temporary data folder and port."""
    with serve(live_app) as url:
        yield url


@pytest.fixture(scope="session")
def base_url(live_url: str) -> str:
    return live_url


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, **DESKTOP, "locale": "en-US"}


class ConsoleGuard:
    """Collects console errors and page errors of every page it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def allow(self, text: str) -> None:
        """Accept console errors containing `text` (Chromium logs every 4xx answer)."""
        self.allowed.append(text)

    def watch(self, page: Page) -> Page:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        return page

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not any(a in message.text for a in self.allowed):
            self.errors.append(f"console error: {message.text} ({message.location})")


@pytest.fixture
def console_guard() -> Iterator[ConsoleGuard]:
    guard = ConsoleGuard()
    yield guard
    assert not guard.errors, "JavaScript errors:\n" + "\n".join(guard.errors)


@pytest.fixture
def page(page: Page, console_guard: ConsoleGuard) -> Page:
    return console_guard.watch(page)


NewPage = Callable[..., Page]


@pytest.fixture
def new_page(browser: Browser, live_url: str, console_guard: ConsoleGuard) -> Iterator[NewPage]:
    """Open a page in a fresh context: `new_page(phone=True, locale="ja-JP", init_script=...)`."""
    contexts: list[BrowserContext] = []

    def make(
        *,
        phone: bool = False,
        locale: str = "en-US",
        init_script: str | None = None,
        **options: Any,
    ) -> Page:
        args = {**(PHONE if phone else DESKTOP), "base_url": live_url, "locale": locale, **options}
        context = browser.new_context(**args)
        contexts.append(context)
        if init_script:
            context.add_init_script(init_script)
        return console_guard.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()


SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
