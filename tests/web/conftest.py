"""Browser tests: the real server on a loopback port, the system Chromium, and a guard that
fails a test on any console error or uncaught page error."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Locator,
    Page,
    expect,
)
from playwright.sync_api import Error as PlaywrightError

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
    """One real server per xdist worker, with its own temporary data folder and port. It runs
    untraced (tests/support/untraced.py): the API tests cover its lines."""
    with serve(live_app, traced=False) as url:
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


BLANK = "/__test-blank__"
"""A page of the site's origin that never reaches the server (answered by a route), where a
kept context's storage is cleared between tests."""


class ContextPool:
    """Browser contexts kept for the whole worker, one per (phone, locale), so that a test does
    not pay for a new context and a cold first load of the site's modules (0.8-1.3 s and
    2.5-7 s under the suite's load; versioned assets are cached as immutable). Between tests a
    kept context loses its pages, cookies, local storage, permissions and routes: what a test
    leaves behind does not reach the next. A test about a first visit, an init script or
    closing a context asks `new_page(..., fresh=True)` (or passes any other context option)."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.kept: dict[tuple[bool, str], BrowserContext] = {}

    def new(self, phone: bool, locale: str, **options: Any) -> BrowserContext:
        args = {**(PHONE if phone else DESKTOP), "base_url": self.base_url, "locale": locale}
        # The app's service worker (tests/web/test_app_install.py) stays out of the other
        # tests: it would precache the whole site in every context and answer requests that
        # a test routes. A test about it passes service_workers="allow".
        args["service_workers"] = "block"
        return self.browser.new_context(**{**args, **options})

    def take(self, phone: bool, locale: str) -> BrowserContext:
        key = (phone, locale)
        if key not in self.kept:
            self.kept[key] = self.new(phone, locale)
        return self.kept[key]

    def clean(self, key: tuple[bool, str]) -> None:
        context = self.kept[key]
        try:
            for open_page in context.pages:
                open_page.close()
            context.unroute_all(behavior="ignoreErrors")
            context.clear_cookies()
            context.clear_permissions()
            blank = context.new_page()
            blank.route(
                f"**{BLANK}", lambda route: route.fulfill(body="<!doctype html><title>-</title>")
            )
            blank.goto(BLANK)
            blank.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            blank.close()
            context.unroute_all(behavior="ignoreErrors")
        except PlaywrightError:  # the test closed it: the next test gets a new one
            del self.kept[key]


@pytest.fixture(scope="session")
def context_pool(browser: Browser, live_url: str) -> Iterator[ContextPool]:
    pool = ContextPool(browser, live_url)
    yield pool
    for context in pool.kept.values():
        context.close()


class Lease:
    """The contexts one test uses: the kept one of each (phone, locale) once, then fresh ones
    (two devices of one person are two contexts: two local storages)."""

    def __init__(self, pool: ContextPool) -> None:
        self.pool = pool
        self.taken: list[tuple[bool, str]] = []
        self.fresh: list[BrowserContext] = []

    def context(self, phone: bool, locale: str, fresh: bool, **options: Any) -> BrowserContext:
        key = (phone, locale)
        if fresh or options or key in self.taken:
            context = self.pool.new(phone, locale, **options)
            self.fresh.append(context)
            return context
        self.taken.append(key)
        return self.pool.take(phone, locale)

    def release(self) -> None:
        for context in self.fresh:
            context.close()
        for key in self.taken:
            self.pool.clean(key)


@pytest.fixture
def lease(context_pool: ContextPool) -> Iterator[Lease]:
    held = Lease(context_pool)
    yield held
    held.release()


@pytest.fixture
def page(lease: Lease, console_guard: ConsoleGuard) -> Page:
    """A page in the worker's kept desktop English context (see ContextPool)."""
    return console_guard.watch(lease.context(False, "en-US", fresh=False).new_page())


NewPage = Callable[..., Page]


@pytest.fixture
def new_page(lease: Lease, console_guard: ConsoleGuard) -> NewPage:
    """Open a page: `new_page(phone=True, locale="ja-JP")` in the worker's kept context for that
    size and language (a second call for the same ones gets a new context: another device);
    `fresh=True`, an `init_script` or any other context option gets a new context."""

    def make(
        *,
        phone: bool = False,
        locale: str = "en-US",
        init_script: str | None = None,
        fresh: bool = False,
        **options: Any,
    ) -> Page:
        context = lease.context(phone, locale, fresh or init_script is not None, **options)
        if init_script:
            context.add_init_script(init_script)
        return console_guard.watch(context.new_page())

    return make


SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
TAKE_SCREENSHOTS = os.environ.get("CARDTABLE_SCREENSHOTS") == "1"
"""Screenshots are taken only under `make screenshots` (which sets this): no test compares
them, and a full phone page (some 20,000 px tall) costs seconds to draw and encode. Elsewhere
`screenshot()` returns at once without drawing; the test's assertions run the same."""


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(autouse=True, scope="session")
def _screenshots_only_when_asked() -> Iterator[None]:
    if TAKE_SCREENSHOTS:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        for cls in (Page, Locator):
            patch.setattr(cls, "screenshot", lambda *_args, **_kwargs: b"")
        yield


BROWSER_FIXTURES = {"page", "new_page", "browser", "context_pool"}
"""A test that uses one of these drives Chromium."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks the tests that take screenshots (`make screenshots` runs them), and runs every
    browser test untraced: its time is in Chromium and in the server (untraced as well, see
    `live_url`), and the lines it reaches in this process (building a position, reading the
    store) are the API tests' lines (docs/checks.md, "Untraced checks")."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if "screenshot_dir" in fixtures:
            item.add_marker(pytest.mark.screenshots)
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.untraced)
