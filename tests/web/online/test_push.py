"""Push notifications from the online page (docs/online.md, "Notifications"): "Notify me on
my turn" subscribes this table through the page's own code (core/push.js:
`navigator.serviceWorker.ready`, then `pushManager.subscribe` with the server's VAPID key),
and the settings dialog's box asks for every table.

Headless Chromium makes no real push subscription (it has no push service to register with,
and these contexts block service workers), so the test hands the page one: an init script
stands in for `navigator.serviceWorker`, `PushManager` and `Notification` (permission granted
when asked) and gives `pushManager.subscribe`
a subscription whose keys the test made, on the test push service on loopback
(tests/support/push_service.py). Everything after that is real: the page sends the
subscription, the server keeps it, and when, after the host's page closed, Bob ends his
turn, the push service receives the notification, checks its VAPID
signature, decrypts it with those keys and reads "Your turn at the table you host" in the
device's language. English at
1280x800 and Japanese at 390x844, axe-clean."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from fastapi import FastAPI
from playwright.sync_api import Browser, expect

from cardtable.server.devices.players import player_key
from tests.support.push_service import PushService
from tests.web.a11y import assert_no_axe_violations
from tests.web.conftest import ConsoleGuard
from tests.web.online_helpers import (
    API,
    api_get,
    api_post,
    create_table_api,
    devices,
    player_id,
    start_match,
)

LANGS = [("en-US", False), ("ja-JP", True)]
WORDS = {
    "en-US": {
        "on": "Turn notifications are on for this table, even when the page is closed.",
        "turn": "Your turn at the table you host",
        "all": "You are told of your turn at every table. Change it in Settings.",
    },
    "ja-JP": {
        "on": "この卓の手番の通知はオンです（ページを閉じていても届きます）。",
        "turn": "あなたが開いた卓であなたの番です",
        "all": "すべての卓で手番を通知する設定です。変更は設定から。",
    },
}
STUB = """
(() => {
  const handed = %s;
  const subscription = { endpoint: handed.endpoint, toJSON: () => handed };
  let current = null;
  const pushManager = {
    getSubscription: async () => current,
    subscribe: async (options) => {
      const bytes = new Uint8Array(options.applicationServerKey);
      window.__pushKey = btoa(String.fromCharCode(...bytes))
        .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
      current = subscription;
      return subscription;
    },
  };
  const registration = { pushManager, scope: "/" };
  Object.defineProperty(navigator, "serviceWorker", {
    configurable: true,
    value: {
      getRegistration: async () => registration,
      ready: Promise.resolve(registration),
      register: async () => registration,
      addEventListener() {},
      removeEventListener() {},
      controller: null,
    },
  });
  window.PushManager = function PushManager() {};
  window.Notification = class {
    static permission = "default";
    static requestPermission() {
      window.Notification.permission = "granted";
      return Promise.resolve("granted");
    }
    close() {}
  };
})();
"""


@pytest.fixture
def push_service(live_app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> Iterator[PushService]:
    """The test push service, and the live server told to accept its loopback endpoints."""
    service = PushService().start()
    push = live_app.state.push
    monkeypatch.setattr(
        push, "settings", replace(push.settings, endpoint_hosts=("127.0.0.1",), allow_http=True)
    )
    yield service
    service.stop()


def _current(app: FastAPI, pid: str) -> dict[str, Any]:
    """What the server keeps for the device ``pid``."""
    found: dict[str, Any] | None = app.state.push.store.subscription(player_key(pid))
    assert found is not None
    return found


@pytest.mark.variants("locale")
@pytest.mark.parametrize(("locale", "phone"), LANGS)
def test_notify_button_subscribes_the_table_through_the_push_api(
    browser: Browser,
    base_url: str,
    console_guard: ConsoleGuard,
    push_service: PushService,
    live_app: FastAPI,
    locale: str,
    phone: bool,
) -> None:
    words = WORDS[locale]
    sub = push_service.new_subscription()
    with devices(browser, base_url, console_guard) as make:
        host = make(phone=phone, locale=locale)
        host.add_init_script(STUB % json.dumps(sub.as_json()))
        made = create_table_api(
            host, {"name": "Ana", "seats": [{"kind": "me"}, {"kind": "invite"}]}
        )
        token = made["token"]
        bob = Device(host.context.request)
        version = bob.post(f"{API}/{token}", None, method="GET")["version"]
        bob.post(f"{API}/{token}/join", {"version": version, "name": "Bob"})
        start_match(host)
        button = host.locator("#notify-btn")
        expect(button).to_be_visible()
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
        expect(host.locator("#notify-note")).to_have_text(words["on"])
        pid = player_id(host)
        server_key = host.request.get("/api/push/key").json()["key"]
        assert host.evaluate("() => window.__pushKey") == server_key
        kept = _current(live_app, pid)
        assert kept["endpoint"] == sub.endpoint
        assert kept["tables"] == [hashlib.sha256(token.encode()).hexdigest()]
        assert kept["lang"] == locale[:2] and kept["all_tables"] is False
        assert_no_axe_violations(host, f"online table, push on ({locale})")

        # The settings dialog: notifications for every table.
        host.locator("#settings-open").click()
        box = host.locator("#opt-push")
        expect(box).to_be_visible()
        box.check()
        host.wait_for_function("() => localStorage.getItem('cardtable.pushAll') === 'on'")
        assert _current(live_app, pid)["all_tables"] is True
        assert_no_axe_violations(host, f"settings with push ({locale})", within="#settings-dialog")
        host.keyboard.press("Escape")

        # The host's turn ends if it is theirs, the page closes (not looking any more), Bob
        # ends his turn: the device is told it is its turn.
        push_service.server_key = server_key
        table = api_get(host, token)
        if table["turn"]["seat"] == 0:
            api_post(host, token, "moves", {"move": "end", "version": table["version"]})
        host.close()
        table = bob.until(token, lambda t: t["seats"][0]["connection"] != "online")
        assert table["turn"]["seat"] == 1
        bob.post(f"{API}/{token}/moves", {"move": "end", "version": table["version"]})
        push_service.wait(lambda: len(push_service.of(sub)) == 1)
        got = push_service.of(sub)[0]
        assert got["body"] == words["turn"] and got["url"].endswith("#" + token)


class Device:
    """A person with no browser (Bob): a player id and API calls."""

    def until(self, token: str, test: Any, timeout: float = 20.0) -> dict[str, Any]:
        """The table once ``test`` holds (the host's closed page noted by the server)."""
        end = time.monotonic() + timeout
        while True:
            table = self.post(f"{API}/{token}", None, method="GET")
            if test(table):
                return table
            assert time.monotonic() < end, "the server never noted the closed page"
            time.sleep(0.05)

    def __init__(self, request: Any) -> None:
        self.request = request
        self.id = request.post("/api/players").json()["player_id"]

    def post(self, path: str, body: Any, method: str = "POST") -> dict[str, Any]:
        answer = self.request.fetch(
            path,
            method=method,
            data=None if body is None else json.dumps(body),
            headers={"X-Player-Id": self.id, "Content-Type": "application/json"},
        )
        assert answer.ok, answer.text()
        found: dict[str, Any] = answer.json()
        return found
