"""The installable app (docs/web.md, "Installing the app"): the web app manifest and its icons,
the service worker that keeps the page shell (offline reloads, the offline page, one cache per
release replaced whole by the next), and the notifications it shows for push messages.

The worker runs in Debian's headless Chromium as in a browser; these tests' contexts allow it
(the others block it, tests/web/conftest.py). A push message is delivered to the worker through
the DevTools protocol (`ServiceWorker.deliverPushMessage`), which dispatches a real `push`
event, as a push service's message would."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, BrowserContext, BrowserType, Page, expect

from cardtable.server import Settings, create_app
from cardtable.server.core import web
from cardtable.server.core.settings import WEB_DIR
from tests.support.live_server import live_server as serve
from tests.web.a11y import assert_no_axe_violations
from tests.web.conftest import CHROMIUM_ARGS, DESKTOP, PHONE, ConsoleGuard

CONTROLLED_JS = """() => {
  const worker = navigator.serviceWorker.controller;
  return worker?.state === "activated" && worker.scriptURL;
}"""
"""The script of the worker controlling the page, once one does and has finished activating
(its first install claims the page that registered it while activating; a push message
delivered before the end of activation is dropped)."""
INSTALL_MS = 60_000
"""How long a first install may take at most (it fetches the whole shell, some 190 files)."""

CACHES_JS = """async () => {
  const out = {};
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    out[name] = (await cache.keys()).map((r) => r.url);
  }
  return out;
}"""
RELEASE_JS = """async () => {
  const answer = await fetch("./", { cache: "no-store" });
  return answer.headers.get("x-cardtable-release");
}"""
"""The server's release now (the worker leaves this request to the network)."""
OFFLINE_TITLE = {"en-US": "You are offline", "ja-JP": "オフラインです"}
RETRY = {"en-US": "Retry", "ja-JP": "再試行"}


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk (the first, by the format's rule)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The app in this process (its lines traced), for what needs no browser."""
    app = create_app(Settings(data_dir=tmp_path / "data", database_url=None))
    with TestClient(app) as http:
        yield http


def test_the_manifest_is_valid_and_its_icons_have_their_sizes(client: TestClient) -> None:
    home = client.get("/")
    link = re.search(r'<link rel="manifest" href="([^"]+)">', home.text)
    assert link is not None, "the page links no manifest"
    answer = client.get(f"/{link.group(1)}")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    assert answer.headers["cache-control"] == "no-cache"
    manifest = answer.json()
    assert manifest["name"] == "cardtable"
    assert 0 < len(manifest["short_name"]) <= 12
    assert manifest["description"]
    assert manifest["lang"] == "en"
    assert manifest["start_url"] == manifest["scope"] == "./"
    assert manifest["display"] == "standalone"
    css = (WEB_DIR / "assets/css/base.css").read_text(encoding="utf-8")
    assert f"--felt: {manifest['theme_color']};" in css
    assert f"--felt-deep: {manifest['background_color']};" in css
    assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in home.text
    wanted = {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    assert {(i["sizes"], i["purpose"]) for i in manifest["icons"]} == wanted
    for icon in manifest["icons"]:
        assert "?v=" in icon["src"], "an icon's URL is versioned"
        got = client.get(f"/{icon['src']}")
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"]
        assert "immutable" in got.headers["cache-control"]
        w, h = png_size(got.content)
        assert f"{w}x{h}" == icon["sizes"], icon["src"]
    apple = re.search(r'<link rel="apple-touch-icon" href="([^"]+)">', home.text)
    assert apple is not None
    assert png_size(client.get(f"/{apple.group(1)}").content) == (180, 180)
    # The policy lets the page load this manifest and register a worker of its own origin.
    policy = home.headers["content-security-policy"]
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy


def test_the_worker_script_is_served_from_the_root_uncached_with_its_release(
    client: TestClient,
) -> None:
    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker.headers["content-type"] == "text/javascript; charset=utf-8"
    assert worker.headers["cache-control"] == "no-cache"
    first = worker.text.split("\n", 1)[0]
    shell = json.loads(first.removeprefix("self.CARDTABLE_SHELL = ").removesuffix(";"))
    home = client.get("/")
    assert shell["release"] == home.headers["x-cardtable-release"]
    assert {"./", "./index.html", "./offline.html", "./kings-corner.html"} <= set(shell["pages"])
    # Every file the home page links is in the shell, under the URL the page uses.
    linked = set(re.findall(r'(?:href|src)="(assets/[^"]+\?v=[^"]+)"', home.text))
    linked |= set(
        json.loads(re.findall(r'importmap">(.*?)</script>', home.text)[0])["imports"].values()
    )
    assets = set(shell["assets"])
    assert linked and {f"./{u.removeprefix('./')}" for u in linked} <= assets
    for path in [*shell["pages"], shell["icon"], shell["badge"]]:
        assert client.get(f"/{path.removeprefix('./')}").status_code == 200, path


def test_the_release_changes_with_any_file_of_the_shell(tmp_path: Path) -> None:
    """`web.release` names one state of every file a page or the worker is made of."""
    assert web.shell_assets(tmp_path) == [] and web.page_names(tmp_path) == []
    (tmp_path / "assets/css").mkdir(parents=True)
    (tmp_path / "templates").mkdir()
    (tmp_path / "worker").mkdir()
    sheet = tmp_path / "assets/css/a.css"
    sheet.write_text("a {}")
    (tmp_path / "templates/base.html").write_text("<main></main>")
    (tmp_path / "templates/home.html").write_text("{% extends 'base.html' %}")
    (tmp_path / "templates/_part.html").write_text("<p></p>")
    (tmp_path / "worker/sw.js").write_text("// worker")
    assert web.page_names(tmp_path) == ["home"]
    assert web.shell_assets(tmp_path) == ["assets/css/a.css"]
    first = web.release(tmp_path, {"grace_seconds": 60})
    assert first == web.release(tmp_path, {"grace_seconds": 60})
    assert web.release(tmp_path, {"grace_seconds": 30}) != first
    sheet.write_text("a { color: red }")
    second = web.release(tmp_path, {"grace_seconds": 60})
    assert second != first
    (tmp_path / "templates/_part.html").write_text("<p>new</p>")
    assert web.release(tmp_path, {"grace_seconds": 60}) != second


@pytest.fixture
def allow_worker(browser: Browser, live_url: str) -> Iterator[Any]:
    """Opens contexts that allow the service worker (the pool's block it), closed after."""
    opened: list[BrowserContext] = []

    def make(
        *, phone: bool = False, locale: str = "en-US", base_url: str = live_url, **options: Any
    ) -> BrowserContext:
        size = PHONE if phone else DESKTOP
        context = browser.new_context(
            **size, base_url=base_url, locale=locale, service_workers="allow", **options
        )
        opened.append(context)
        return context

    yield make
    for context in opened:
        context.close()


def controlled_page(context: BrowserContext, guard: ConsoleGuard, path: str = "/") -> Page:
    page = guard.watch(context.new_page())
    page.goto(path)
    expect(page.locator("body.ready")).to_be_attached()
    script = page.wait_for_function(CONTROLLED_JS, timeout=INSTALL_MS).json_value()
    assert script.endswith("/sw.js")
    return page


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en-US", "ja-JP"])
def test_offline_a_kept_page_reloads_and_another_shows_the_offline_page(
    allow_worker: Any, console_guard: ConsoleGuard, lang: str, phone: bool
) -> None:
    context = allow_worker(phone=phone, locale=lang)
    page = controlled_page(context, console_guard, "/rules-poker-squares.html")
    kept = page.evaluate(CACHES_JS)
    assert len(kept) == 1
    [(name, urls)] = kept.items()
    release = name.removeprefix("cardtable-shell-")
    assert release == page.evaluate(RELEASE_JS)
    assert not any("/api/" in u for u in urls)
    heading = page.locator("h1:visible").inner_text()

    context.set_offline(True)
    page.reload()
    expect(page.locator("body.ready")).to_be_attached()
    expect(page.locator("h1:visible")).to_have_text(heading)

    # A page that was never kept (this address, with its query, was never fetched).
    page.goto("/index.html?from=somewhere")
    expect(page.locator("h1:visible")).to_have_text(OFFLINE_TITLE[lang])
    expect(page).to_have_url(re.compile(r"/index\.html\?from=somewhere$"))
    retry = page.get_by_role("button", name=RETRY[lang])
    expect(retry).to_be_visible()
    assert_no_axe_violations(page, f"the offline page, {lang}, {'phone' if phone else 'desktop'}")

    context.set_offline(False)
    retry.click()
    expect(page.locator("body.page-home")).to_be_attached()
    expect(page.locator("h1:visible")).not_to_have_text(OFFLINE_TITLE[lang])


def site_copy(tmp_path: Path) -> Path:
    web = tmp_path / "web"
    shutil.copytree(WEB_DIR, web)
    return web


def test_a_new_release_replaces_the_cached_files_when_the_reader_reloads(
    allow_worker: Any, console_guard: ConsoleGuard, tmp_path: Path
) -> None:
    web = site_copy(tmp_path)
    app = create_app(Settings(data_dir=tmp_path / "data", database_url=None, web_dir=web))
    with serve(app, traced=False) as url:
        context = allow_worker(base_url=url)
        page = controlled_page(context, console_guard)
        [old_cache] = page.evaluate(CACHES_JS)
        old_css = page.locator("link[rel=stylesheet]").first.get_attribute("href")
        assert old_css is not None and old_css.startswith("assets/css/base.css?v=")

        # The next release: one style sheet changes.
        with (web / "assets/css/base.css").open("a", encoding="utf-8") as css:
            css.write("\n:root { --release-mark: two; }\n")
        page.evaluate("async () => (await navigator.serviceWorker.getRegistration()).update()")
        notice = page.locator("#app-update")
        expect(notice).to_be_visible()
        both = page.evaluate(CACHES_JS)
        assert len(both) == 2 and old_cache in both, "the new set installs beside the old"
        # The open page still has the old release's files.
        mark = "() => getComputedStyle(document.documentElement).getPropertyValue('--release-mark')"
        assert page.evaluate(mark).strip() == ""
        assert_no_axe_violations(page, "the update notice", within="#app-update")

        with page.expect_navigation():
            notice.get_by_role("button").click()
        expect(page.locator("body.ready")).to_be_attached()
        new_css = page.locator("link[rel=stylesheet]").first.get_attribute("href")
        assert new_css is not None and new_css != old_css
        assert page.evaluate(mark).strip() == "two"
        after = page.evaluate(CACHES_JS)
        assert list(after) != [old_cache] and len(after) == 1, after
        [urls] = after.values()
        assert any(u.endswith(new_css) for u in urls)
        assert not any(u.endswith(old_css) for u in urls)
        release = page.evaluate(RELEASE_JS)
        assert list(after) == [f"cardtable-shell-{release}"]
        expect(page.locator("#app-update")).to_be_hidden()


FULL_CHROMIUM = "/usr/bin/chromium"
"""The headless shell the other tests drive denies every site the notification permission
(`showNotification` rejects); the full Chromium, run headless, grants it and keeps the
notifications a page can list. `make test` installs both (scripts/ensure-system-packages.sh)."""


@pytest.fixture
def notifying_browser(browser_type: BrowserType) -> Iterator[Browser]:
    browser = browser_type.launch(executable_path=FULL_CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


LIST_NOTIFICATIONS_JS = """() => {
  const look = async () => {
    let note;
    try {
      [note] = await (await navigator.serviceWorker.ready).getNotifications();
    } catch {
      note = null; // the worker was restarting: look again
    }
    if (!note) return setTimeout(look, 20);
    const { title, body, tag, icon, badge, data } = note;
    window.shownNotification = { title, body, tag, icon, badge, data };
  };
  look();
}"""


def test_a_push_message_shows_its_notification(
    notifying_browser: Browser, console_guard: ConsoleGuard, live_url: str
) -> None:
    context = notifying_browser.new_context(
        **DESKTOP, base_url=live_url, service_workers="allow", permissions=["notifications"]
    )
    page = controlled_page(context, console_guard)
    cdp = context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
    scope = f"{live_url}/"

    def active() -> list[dict[str, Any]]:
        ours = {r["registrationId"] for r in registrations if r["scopeURL"] == scope
                and not r["isDeleted"]}  # fmt: skip
        return [v for v in versions if v["registrationId"] in ours and v["status"] == "activated"]

    # The registrations and versions arrive as events after `enable`: each round trip lets
    # them in. The message goes to the registration once its worker is activated.
    cdp.send("ServiceWorker.enable")
    for _ in range(1000):
        if active():
            break
        cdp.send("ServiceWorker.enable")
    registration = {"registrationId": active()[-1]["registrationId"]}
    message = {
        "title": "Your turn",
        "body": "Aiko is waiting for you at table 7",
        "url": "kings-corner-online.html?table=t7",
        "tag": "table-t7",
    }
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": live_url,
            "registrationId": registration["registrationId"],
            "data": json.dumps(message),
        },
    )
    # The page lists the worker's notifications until there is one; the test waits for it.
    page.evaluate(LIST_NOTIFICATIONS_JS)
    shown = page.wait_for_function("() => window.shownNotification").json_value()
    assert shown["title"] == message["title"] and shown["body"] == message["body"]
    assert shown["tag"] == message["tag"]
    assert shown["data"] == {"url": f"{live_url}/kings-corner-online.html?table=t7"}
    assert "/assets/img/app/icon-192.png?v=" in shown["icon"]
    assert "/assets/img/app/badge-96.png?v=" in shown["badge"]
    # A tap opens the message's URL, and only one on this site.
    [worker] = context.service_workers
    assert worker.evaluate("openUrl('stats.html')") == f"{live_url}/stats.html"
    assert worker.evaluate("openUrl('https://elsewhere.example/')") == scope
    context.close()


LIGHTHOUSE = "lighthouse@11.7.1"
"""The last Lighthouse with the installability audit (`installable-manifest`); version 12
dropped the PWA checks."""


@pytest.mark.deep  # the fast tier: the manifest and worker tests above (what the audit reads)
def test_lighthouse_finds_the_app_installable(live_url: str, tmp_path: Path) -> None:
    """Lighthouse's installability audit against the live server. It runs from npm's cache
    (`npx --offline`): a test installs nothing; without the package in the cache it skips
    (`npx --yes lighthouse@11.7.1 --version` puts it there; docs/web.md)."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("no npx")
    cached = subprocess.run(
        [npx, "--offline", "--yes", LIGHTHOUSE, "--version"], capture_output=True, check=False
    )
    if cached.returncode != 0:
        pytest.skip(f"{LIGHTHOUSE} is not in npm's cache")
    report = tmp_path / "lh.json"
    subprocess.run(
        [
            npx,
            "--offline",
            "--yes",
            LIGHTHOUSE,
            f"{live_url}/",
            "--only-categories=pwa",
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        ],
        env={**os.environ, "CHROME_PATH": FULL_CHROMIUM},
        check=True,
        timeout=120,
    )
    audits = json.loads(report.read_text(encoding="utf-8"))["audits"]
    for name in ("installable-manifest", "maskable-icon", "themed-omnibox", "splash-screen"):
        assert audits[name]["score"] == 1, (name, audits[name].get("details"))
