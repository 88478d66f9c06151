"""One record on several devices in the browser (issue 20, docs/devices.md): each device is
its own browser context on the shared test server.

- transfer by code (a Japanese phone typing it in lower case with a space) and by link (the
  link the QR code carries, opened in a third context that has games of its own, so it asks
  first); a Poker Squares deal started on the desktop continued on both others with the same
  cards, each move seen by the others; the settings dialog's devices list;
- a device signed out from another is refused: the signed-out dialog with both choices (the
  code form, then "Start fresh", which gives it a new, empty record); "sign out everywhere
  else" refuses the rest;
- a recovery file downloaded on one device (after its warning) restores the record in a
  fresh context through the file input;
- behind the signed-out dialog, no page (Poker Squares, Kings Corner, daily, review,
  statistics, an online table, the room-code form) says "something went wrong", "could not
  reach the server" or "reconnecting", in English and Japanese;
- the transfer code's copy button puts `<origin>/link.html#CODE` on the clipboard and says
  so in its status line (or, without clipboard access, selects the link and says that).
- issue 44 (a new player moving his record to a second browser on one computer): the page a
  code used in the settings dialog lands on says that this browser has the record and under
  which name; two browsers of one kind are listed apart (numbered names, this one marked,
  when each was added); signing another device out asks first in a dialog naming it (Esc and
  Cancel keep it); a page left open on a deal of a device signed out meanwhile says so when
  its tab is shown or its window focused again, or on its next action ("Continue").

axe-core and phone tap targets on the dialog states, screenshots of each in both languages;
no console error beyond the refusals the tests provoke (Chromium logs every 4xx answer).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import APIResponse, Page, Route, WebSocketRoute, expect

from tests.web.a11y import assert_no_axe_violations, assert_tap_targets, check_screen
from tests.web.conftest import ConsoleGuard, NewPage
from tests.web.helpers import cell, grid_cards, start_deal, wait_held, wait_placed
from tests.web.online_helpers import create_table_api, ensure_player
from tests.web.online_helpers import player_id as online_player

PS = "/poker-squares.html"
I18N = Path(__file__).resolve().parents[3] / "cardtable" / "web" / "assets" / "i18n"
JA_SWITCHED = "このブラウザーで記録を使えるようになりました。"


def place(page: Page, row: int, col: int, placed_after: int) -> None:
    page.locator(cell(page, row, col)).click()
    wait_placed(page, placed_after)


def open_devices(page: Page) -> None:
    """Opens the settings dialog with its devices section loaded."""
    page.locator("#settings-open").click()
    expect(page.locator("#settings-dialog")).to_be_visible()


def close_settings(page: Page) -> None:
    page.locator("#settings-dialog [data-close]").click()
    expect(page.locator("#settings-dialog")).to_be_hidden()


def show_code(page: Page) -> str:
    """Asks for a transfer code in the open settings dialog; returns the new code as shown."""
    code = page.locator("#dv-share-code")
    before = code.inner_text() if code.is_visible() else ""
    if page.locator("#dv-share-btn").is_visible():
        page.locator("#dv-share-btn").click()
    else:
        page.locator("#dv-share-new").click()
    expect(code).to_be_visible()
    expect(code).to_have_text(re.compile(r"^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$"))
    if before:
        expect(code).not_to_have_text(before)
    expect(page.locator("#dv-share-qr")).to_be_visible()
    return code.inner_text()


def check_dialog(page: Page, where: str, *, phone: bool) -> None:
    """axe-core on the page, and on a phone 44 px targets in the open dialog."""
    assert_no_axe_violations(page, where)
    if phone:
        assert_tap_targets(page, where, within="dialog[open]")


def shot(page: Page, directory: Path, name: str) -> None:
    page.screenshot(path=str(directory / f"devices-{name}.png"), animations="disabled")


def dialog_shot(page: Page, directory: Path, name: str) -> None:
    """The open dialog whole (it scrolls inside the viewport)."""
    page.locator("dialog[open]").screenshot(
        path=str(directory / f"devices-{name}.png"), animations="disabled"
    )


def switch_language(page: Page, lang: str) -> None:
    """Switches with the header's buttons (closing and reopening an open settings dialog)."""
    dialog_open = page.locator("#settings-dialog").is_visible()
    if dialog_open:
        close_settings(page)
    page.locator(f"[data-set-lang={lang}]").click()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if dialog_open:
        open_devices(page)


def player_id(page: Page) -> str | None:
    value: str | None = page.evaluate("() => localStorage.getItem('cardtable.player')")
    return value


def test_transfer_by_code_and_link_continue_then_sign_out(
    new_page: NewPage, console_guard: ConsoleGuard, screenshot_dir: Path
) -> None:
    console_guard.allow("401")  # a signed-out device's refused requests
    console_guard.allow("404")  # a wrong code
    console_guard.allow("429")  # too many attempts
    # Device A: a desktop in English with a deal in progress.
    a = new_page()
    start_deal(a)
    for i in range(3):
        place(a, 0, i, i + 1)
    open_devices(a)
    expect(a.locator("#dv-device-list li")).to_have_count(1)
    expect(a.locator("#dv-device-list li.current")).to_contain_text("this device")
    code = show_code(a)
    expect(a.locator("#dv-share-expiry")).to_have_text(
        re.compile(r"^Expires in (10:00|9:[0-5]\d)$")
    )
    expect(a.locator("#dv-share-link")).to_have_value(re.compile(rf"/link\.html#{code}$"))
    check_dialog(a, "settings, devices section with a code (en, desktop)", phone=False)
    dialog_shot(a, screenshot_dir, "settings-en-desktop")
    switch_language(a, "ja")
    expect(a.locator("#dv-share-expiry")).to_contain_text("有効期限まであと")
    dialog_shot(a, screenshot_dir, "settings-ja-desktop")
    switch_language(a, "en")

    # Device B: a Japanese phone with no record; a malformed and a wrong code first.
    b = new_page(phone=True, locale="ja-JP")
    b.goto("/")
    open_devices(b)
    expect(b.locator("#dv-devices-none")).to_be_visible()
    expect(b.locator("#dv-devices-own")).to_be_hidden()
    form = b.locator("#dv-settings-claim")
    form.locator("input").fill("OOOO")
    form.locator("button[type=submit]").click()
    expect(form.locator("[role=status]")).to_have_text("コードは英数字8文字です（例：ABCD-EFGH）。")
    # Too many attempts (the limit answered as the server would): the wait in words.
    b.route(
        "**/api/devices/claim",
        lambda route: route.fulfill(
            status=429,
            headers={"Retry-After": "42"},
            json={"code": "rate_limited", "message": "too many requests"},
        ),
    )
    form.locator("input").fill("2345 6789")
    form.locator("button[type=submit]").click()
    expect(form.locator("[role=status]")).to_have_text(
        "試行回数が多すぎます。42秒後にもう一度お試しください。"
    )
    b.unroute("**/api/devices/claim")
    form.locator("input").fill("2222-2222" if code != "2222-2222" else "3333-3333")
    form.locator("button[type=submit]").click()
    expect(form.locator("[role=status]")).to_contain_text("このコードは使えません")
    check_dialog(b, "settings, a wrong code (ja, phone)", phone=True)
    dialog_shot(b, screenshot_dir, "settings-claim-ja-phone")
    typed = code.lower().replace("-", " ")
    form.locator("input").fill(typed)
    form.locator("button[type=submit]").click()
    b.wait_for_load_state("load")
    expect(b.locator("#settings-dialog")).to_be_hidden()
    # The page it lands on says the record is here (issue 44).
    expect(b.locator("#dv-switched-text")).to_contain_text(JA_SWITCHED)
    b.goto(PS)
    wait_placed(b, 3)
    assert grid_cards(b) == grid_cards(a)
    expect(b.locator("#current-card")).to_have_attribute(
        "data-card", a.locator("#current-card").get_attribute("data-card") or ""
    )
    place(b, 1, 0, 4)  # B moves on; A sees it after a reload and moves on too
    a.reload()
    wait_placed(a, 4)
    assert grid_cards(a) == grid_cards(b)
    place(a, 1, 1, 5)

    # The code is used up: the list on A shows both devices, B's in Japanese on B.
    open_devices(b)
    expect(b.locator("#dv-device-list li")).to_have_count(2)
    expect(b.locator("#dv-device-list li.current")).to_contain_text("この端末")
    b_device = b.locator("#dv-device-list li.current").get_attribute("data-device")
    assert b_device
    check_dialog(b, "settings, devices list (ja, phone)", phone=True)
    dialog_shot(b, screenshot_dir, "settings-ja-phone")
    b.locator("#dv-rename-btn").click()
    b.locator("#dv-rename-input").fill("私のスマホ")
    b.locator("#dv-rename-save").click()
    expect(b.locator("#dv-device-list li.current .device-name")).to_have_text("私のスマホ")
    close_settings(b)

    # Device C: a desktop with a game of its own opens the link the QR code carries.
    c = new_page()
    start_deal(c)
    place(c, 4, 4, 1)
    own = player_id(c)
    a.locator("#settings-open").click()
    link_code = show_code(a)
    link = a.locator("#dv-share-link").input_value()
    c.goto(link)
    expect(c.locator("main .devices-confirm")).to_be_visible()
    expect(c.locator("main .devices-confirm")).to_contain_text("This browser has its own games")
    check_dialog(c, "link page, the question (en, desktop)", phone=False)
    shot(c, screenshot_dir, "link-question-en-desktop")
    c.locator("main .devices-confirm .danger").click()
    expect(c.locator("#link-status")).to_have_text("This device now uses your record.")
    assert player_id(c) not in (None, own)
    assert link_code not in c.url  # the code left the address
    expect(c.locator("#link-continue-ps")).to_be_visible()
    expect(c.locator("#link-continues")).to_contain_text("Poker Squares: 5 of 25 cards placed")
    check_dialog(c, "link page, done (en, desktop)", phone=False)
    shot(c, screenshot_dir, "link-done-en-desktop")
    c.locator("#link-continue-ps").click()
    wait_placed(c, 5)
    assert grid_cards(c) == grid_cards(a)

    # A signs B out: B's next request is refused and the dialog offers both ways.
    # A's open dialog follows the code's use: the list grows, the code is gone.
    expect(a.locator("#dv-device-list li")).to_have_count(3, timeout=15000)
    expect(a.locator("#dv-share-status")).to_have_text(
        "The code was used: the new device is in the list below."
    )
    expect(a.locator("#dv-device-list li[data-device='" + b_device + "']")).to_contain_text(
        "私のスマホ"
    )
    a.locator(f"#dv-device-list li[data-device='{b_device}'] .sign-out").click()
    expect(a.locator("#dv-sign-out-dialog")).to_contain_text("Sign out “私のスマホ”?")
    a.locator("#dv-sign-out-dialog-yes").click()
    expect(a.locator("#dv-list-status")).to_have_text("私のスマホ is signed out.")
    expect(a.locator("#dv-device-list li")).to_have_count(2)
    b.reload()
    revoked = b.locator("#revoked-dialog")
    expect(revoked).to_be_visible()
    expect(revoked.locator("h2")).to_have_text("この端末は記録からログアウトされました。")
    expect(b.locator("#revoked-fresh")).to_have_text("最初から始める")
    expect(b.locator("#revoked-code")).to_have_text("引き継ぎコードを入力")
    check_dialog(b, "signed-out dialog (ja, phone)", phone=True)
    dialog_shot(b, screenshot_dir, "revoked-ja-phone")
    b.locator("#revoked-code").click()
    expect(b.locator("#revoked-claim input")).to_be_focused()
    check_dialog(b, "signed-out dialog, code form (ja, phone)", phone=True)
    b.locator("#revoked-fresh").click()
    expect(b.locator("#setup")).to_be_visible()  # a new, empty record: no deal to continue
    expect(b.locator("#revoked-dialog")).to_have_count(0)
    # The link page without a code offers the form (Japanese phone).
    b.goto("/link.html")
    expect(b.locator("#link-status")).to_have_text(
        "このリンクにはコードが含まれていません。ほかの端末に表示されたコードを入力してください。"
    )
    expect(b.locator("#link-claim input")).to_be_focused()
    check_screen(b, "link page without a code (ja, phone)", phone=True)
    shot(b, screenshot_dir, "link-nocode-ja-phone")
    start_deal(b)
    place(b, 0, 0, 1)

    # "Sign out everywhere else" (confirmed) on A: C is refused next.
    a.locator("#dv-sign-out-others").click()
    expect(a.locator("#dv-sign-out-question")).to_contain_text("Sign out every other device")
    check_dialog(a, "settings, sign out everywhere else (en, desktop)", phone=False)
    a.locator("#dv-sign-out-yes").click()
    expect(a.locator("#dv-list-status")).to_have_text("Signed out 1 other device.")
    expect(a.locator("#dv-device-list li")).to_have_count(1)
    expect(a.locator("#dv-sign-out-others")).to_be_hidden()
    c.reload()
    expect(c.locator("#revoked-dialog")).to_be_visible()
    expect(c.locator("#revoked-dialog h2")).to_have_text(
        "This device was signed out of its record."
    )
    check_dialog(c, "signed-out dialog (en, desktop)", phone=False)
    dialog_shot(c, screenshot_dir, "revoked-en-desktop")
    close_settings(a)
    place(a, 1, 2, 6)  # A itself keeps working


def test_recovery_file_restores_the_record_elsewhere(
    new_page: NewPage, console_guard: ConsoleGuard, screenshot_dir: Path
) -> None:
    console_guard.allow("404")  # a file whose key no longer works
    a = new_page(phone=True, accept_downloads=True)
    start_deal(a)
    place(a, 2, 2, 1)
    place(a, 2, 3, 2)
    open_devices(a)

    # A code whose time runs out (the answer shortened to a second): it says so and offers
    # a new one.
    def short(route: Route) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, json={**answer.json(), "expires_in": 1})

    a.route("**/api/devices/transfer", short)
    a.locator("#dv-share-btn").click()
    expect(a.locator("#dv-share-status")).to_have_text("This code has expired. Get a new one.")
    expect(a.locator("#dv-share-qr")).to_be_hidden()
    expect(a.locator("#dv-share-link")).to_be_hidden()
    expect(a.locator("#dv-share-new")).to_be_visible()
    check_dialog(a, "settings, an expired code (en, phone)", phone=True)
    a.unroute("**/api/devices/transfer")
    a.locator("#dv-recovery-btn").click()
    warning = a.locator("#dv-recovery-warning")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Anyone who has this file can use your record")
    check_dialog(a, "settings, recovery warning (en, phone)", phone=True)
    dialog_shot(a, screenshot_dir, "recovery-en-phone")
    with a.expect_download() as info:
        a.locator("#dv-recovery-yes").click()
    download = info.value
    assert download.suggested_filename == "cardtable-recovery.json"
    path = Path(download.path())
    assert '"recovery_key"' in path.read_text(encoding="utf-8")
    expect(a.locator("#dv-recovery-status")).to_have_text("Saved as cardtable-recovery.json.")
    expect(a.locator("#dv-device-list li")).to_have_count(
        2
    )  # the file is listed, and can be signed out
    expect(a.locator("#dv-device-list")).to_contain_text("Recovery file")

    # A third context, a Japanese phone with no record of its own, restores from the file.
    d = new_page(phone=True, locale="ja-JP")
    d.goto(PS)
    open_devices(d)
    d.locator("#dv-restore-file").set_input_files(
        files=[{"name": "x.txt", "mimeType": "text/plain", "buffer": b"not a recovery file"}]
    )
    expect(d.locator("#dv-restore-status")).to_have_text(
        "cardtableの復元用ファイルではありません。"
    )
    # The file button speaks the page's language (not the browser's "Choose File") and opens
    # the file chooser like the native one.
    choose = d.get_by_label("ファイルを選ぶ…")
    expect(choose).to_have_attribute("type", "file")
    with d.expect_file_chooser() as chooser:
        d.locator("label[for=dv-restore-file]").click()
    chooser.value.set_files(str(path))
    # Asked first, saying what the file does (this browser has no games of its own to lose);
    # nothing reloads before the answer.
    confirm = d.locator(".devices-confirm:not([id])")
    expect(confirm).to_contain_text("このファイルの記録を復元しますか")
    check_dialog(d, "settings, restore question (ja, phone)", phone=True)
    confirm.get_by_role("button", name="続ける").click()
    d.wait_for_load_state("load")
    wait_placed(d, 2)
    expect(d.locator("#dv-switched-text")).to_contain_text(JA_SWITCHED)
    assert grid_cards(d) == grid_cards(a)
    place(d, 3, 3, 3)
    a.reload()
    wait_placed(a, 3)

    # D signs itself out (after the question): it starts afresh, A keeps the record. The
    # click comes before the device list has arrived: the question waits for the list, so it
    # knows A still holds the record.
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    d.route("**/api/devices", hold)
    open_devices(d)
    d.locator("#dv-sign-out-this").click()
    wait_held(d, held, "the device list")
    expect(d.locator("#dv-sign-out-confirm")).to_be_hidden()
    held[0].continue_()
    d.unroute("**/api/devices", hold)
    expect(d.locator("#dv-sign-out-question")).to_contain_text("この端末をログアウトしますか？")
    expect(d.locator("#dv-sign-out-no")).to_be_focused()
    d.locator("#dv-sign-out-yes").click()
    expect(d.locator("#setup")).to_be_visible()
    expect(d.locator("#settings-dialog")).to_be_hidden()

    # Last used, in words of the page's language (the answer's time moved 3 hours back).
    def earlier(route: Route) -> None:
        answer = route.fetch()
        data = answer.json()
        for d in data["devices"]:
            if not d["current"]:
                d["last_used_at"] = (datetime.now(UTC) - timedelta(hours=3)).isoformat()
        route.fulfill(response=answer, json=data)

    a.route("**/api/devices", earlier)
    open_devices(a)
    expect(a.locator("#dv-device-list li")).to_have_count(2)  # A and the recovery file
    expect(a.locator("#dv-device-list li:not(.current) .device-used")).to_have_text(
        "Last used 3 hours ago"
    )
    switch_language(a, "ja")
    expect(a.locator("#dv-device-list li:not(.current) .device-used")).to_have_text(
        "最終利用：3 時間前"
    )
    a.unroute_all(behavior="ignoreErrors")


def test_live_channel_of_a_signed_out_device_opens_the_dialog(
    new_page: NewPage, console_guard: ConsoleGuard
) -> None:
    """An online table's page whose device is signed out meanwhile: its live channel, opened
    again, is closed with 4401 `revoked` and the page shows the signed-out dialog."""
    console_guard.allow("401")
    a = new_page()
    sockets: list[WebSocketRoute] = []

    def through(ws: WebSocketRoute) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    a.route_web_socket(re.compile(r"/live$"), through)
    body = {"name": "Host", "seats": [{"kind": "me"}, {"kind": "invite"}], "rounds": 1}
    create_table_api(a, {**body, "rules": {"preset": "standard"}})
    me = {"X-Player-Id": online_player(a)}
    code = a.request.post("/api/devices/transfer", headers=me).json()["code"]
    other = a.request.post("/api/devices/claim", data={"code": code}).json()["player_id"]
    them = {"X-Player-Id": other}
    devices = a.request.get("/api/devices", headers=them).json()["devices"]
    (mine,) = [d["device"] for d in devices if not d["current"]]
    assert a.request.delete(f"/api/devices/{mine}", headers=them).status == 204
    # The connection drops (as a phone's network does); the page opens it again and its
    # hello is refused.
    assert sockets
    sockets[-1].close(code=4000, reason="dropped")
    expect(a.locator("#revoked-dialog")).to_be_visible(timeout=15000)
    expect(a.locator("#revoked-fresh")).to_be_visible()
    # ... and stops reconnecting (a retry would come within 2 s: 0.5 s doubling, jittered).
    opened = len(sockets)
    a.wait_for_timeout(2500)
    assert len(sockets) == opened


GENERIC = ("error.unknown", "error.network", "error.rate_limited", "kco.live_lost")
"""The messages of an error the page cannot name (and the online page's "reconnecting")."""


def generic_messages(lang: str) -> list[str]:
    words = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    devices = json.loads((I18N / f"devices.{lang}.json").read_text(encoding="utf-8"))
    return [words[key] for key in GENERIC] + [devices["devices.failed"]]


def quiet_behind_the_dialog(page: Page, messages: list[str], where: str) -> None:
    """The signed-out dialog is open and nothing on the page reports a generic error. The
    page's own error handling runs before the dialog opens (api.js loads the dialog's module
    and strings first), so by now it has had its say."""
    expect(page.locator("#revoked-dialog")).to_be_visible()
    text = page.locator("body").inner_text()
    shown = [m for m in messages if m in text]
    assert not shown, f"{where}: a generic error behind the signed-out dialog: {shown}"
    if page.locator("#error").count():
        expect(page.locator("#error")).to_have_text("")


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("ja-JP", "ja")])
def test_pages_behind_the_signed_out_dialog_say_nothing_went_wrong(
    new_page: NewPage, console_guard: ConsoleGuard, locale: str, lang: str
) -> None:
    console_guard.allow("401")  # every request of the signed-out device
    page = new_page(locale=locale, phone=lang == "ja")
    made = create_table_api(page, {"name": "Host", "seats": [{"kind": "me"}, {"kind": "invite"}]})
    start_deal(page)
    place(page, 0, 0, 1)
    me = {"X-Player-Id": online_player(page)}
    deal = page.request.get("/api/continue", headers=me).json()["poker_squares"]["id"]
    devices = page.request.get("/api/devices", headers=me).json()["devices"]
    (mine,) = [d["device"] for d in devices if d["current"]]
    assert page.request.delete(f"/api/devices/{mine}", headers=me).status == 204
    messages = generic_messages(lang)

    for path in (
        PS,
        "/kings-corner.html",
        "/daily.html",
        f"/ps-review.html?game={deal}",
        "/stats.html",
        f"/kings-corner-online.html#{made['token']}",  # refused on the live channel
    ):
        page.goto(path)
        quiet_behind_the_dialog(page, messages, path)
        expect(page.locator("html")).to_have_attribute("lang", lang)

    # The room-code form: its lookup is the first request the page makes.
    page.goto("/kings-corner-online.html")
    page.locator("#room-code").fill("ABCDEF")
    page.locator("#code-form button[type=submit]").click()
    quiet_behind_the_dialog(page, messages, "the room-code form")


COPIED = {
    "en": ("Copy link", "Link copied.", "Could not copy: the link is selected, copy it yourself."),
    "ja": (
        "リンクをコピー",
        "リンクをコピーしました。",
        "コピーできませんでした。リンクを選択したので、手動でコピーしてください。",
    ),
}


@pytest.mark.parametrize(("locale", "lang"), [("en-US", "en"), ("ja-JP", "ja")])
def test_the_copy_button_puts_the_code_link_on_the_clipboard(
    new_page: NewPage, locale: str, lang: str
) -> None:
    label, copied, failed = COPIED[lang]
    page = new_page(
        locale=locale, phone=lang == "ja", permissions=["clipboard-read", "clipboard-write"]
    )
    page.goto("/")
    ensure_player(page)  # a record to share
    page.reload()
    open_devices(page)
    expect(page.locator("#dv-share-btn")).to_be_visible()
    code = show_code(page)
    button = page.locator("#dv-share-copy")
    expect(button).to_have_text(label)
    status = page.locator("#dv-share-status")
    expect(status).to_have_attribute("role", "status")  # read out when it changes
    expect(status).not_to_have_text(copied)
    button.click()
    expect(status).to_have_text(copied)
    link = page.evaluate("() => location.origin") + f"/link.html#{code}"
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    assert page.locator("#dv-share-link").input_value() == link

    # Without clipboard access the link is selected for copying by hand, and it says so.
    page.evaluate(
        "() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); }"
    )
    button.click()
    expect(status).to_have_text(failed)
    selected = page.evaluate(
        "() => { const i = document.getElementById('dv-share-link'); return"
        " [document.activeElement === i, i.selectionStart, i.selectionEnd, i.value.length]; }"
    )
    assert selected == [True, 0, len(link), len(link)]


def test_a_list_asked_before_the_code_was_made_leaves_the_code(new_page: NewPage) -> None:
    """The device list answers whether a code is live. A list that was on its way while a new
    code was made cannot know of that code, so it must not take it for used (a slow list
    answer once emptied the new code and its QR code in a landing check)."""
    page = new_page()
    page.goto("/")
    ensure_player(page)
    page.reload()
    held: list[tuple[Route, APIResponse]] = []

    def hold_first(route: Route) -> None:
        """The dialog's first list is answered by the server at once and shown late."""
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route("**/api/devices", hold_first)
    page.locator("#settings-open").click()
    expect(page.locator("#dv-share-btn")).to_be_visible()
    wait_held(page, held, "the dialog's device list")  # asked as the dialog opens
    code = show_code(page)  # made while the list is held
    route, stale = held[0]
    route.fulfill(response=stale)
    expect(page.locator("#dv-device-list li")).to_have_count(1)  # the late list is shown
    expect(page.locator("#dv-share-code")).to_have_text(code)
    expect(page.locator("#dv-share-code")).to_be_visible()
    expect(page.locator("#dv-share-qr")).to_be_visible()
    expect(page.locator("#dv-share-status")).not_to_have_text(re.compile("was used"))


# -- issue 44: what a new player moving his record to a second browser tripped over ----------
SIZES = [
    pytest.param("en-US", "en", False, id="en-desktop"),
    pytest.param("en-US", "en", True, id="en-phone"),
    pytest.param("ja-JP", "ja", False, id="ja-desktop"),
    pytest.param("ja-JP", "ja", True, id="ja-phone"),
]
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "switched": "This browser now uses your record: your games, best scores and statistics"
        " are here.",
        "switched_name": "Settings lists it under “Your devices” as “{name}”.",
        "ok": "OK",
        "this_device": "this device",
        "added": "Added {when}",
        "made": "Made {when}",
        "title": "Sign out “{name}”?",
        "text": "That device stops using your record at once",
        "file_text": "This recovery file stops working at once",
        "keep": "Cancel",
        "yes": "Sign out",
        "signed_out": "{name} is signed out.",
        "revoked": "This device was signed out of its record.",
    },
    "ja": {
        "switched": "このブラウザーで記録を使えるようになりました。ゲームの続き、ベストスコア、"
        "成績もここにあります。",
        "switched_name": "設定の「端末と引き継ぎ」には「{name}」として表示されます。",
        "ok": "閉じる",
        "this_device": "この端末",
        "added": "追加：{when}",
        "made": "作成：{when}",
        "title": "「{name}」をログアウトしますか？",
        "text": "その端末ではすぐに記録が使えなくなります",
        "file_text": "この復元用ファイルはすぐに使えなくなり",
        "keep": "キャンセル",
        "yes": "ログアウト",
        "signed_out": "{name}をログアウトしました。",
        "revoked": "この端末は記録からログアウトされました。",
    },
}
QUIET_MS = 15_000
"""devices/standing.js `QUIET`: an action asks whether this browser is still signed in only
when nothing was asked for this long."""


def size_name(phone: bool) -> str:
    return "phone" if phone else "desktop"


def when_added(page: Page, stamp: str, lang: str) -> str:
    """A device's `created_at` as the list writes it (the page's language, date and time)."""
    text: str = page.evaluate(
        "([stamp, lang]) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium',"
        " timeStyle: 'short' }).format(Date.parse(stamp))",
        [stamp, lang],
    )
    return text


def second_device(page: Page) -> dict[str, str]:
    """Another device of `page`'s record, brought in by a code through the API (the same
    browser kind: its name is numbered); its claim answer."""
    me = {"X-Player-Id": ensure_player(page)}
    code = page.request.post("/api/devices/transfer", headers=me).json()["code"]
    made: dict[str, str] = page.request.post("/api/devices/claim", data={"code": code}).json()
    return made


@pytest.mark.parametrize(("locale", "lang", "phone"), SIZES)
def test_a_code_used_in_settings_says_so_where_it_lands_and_the_list_tells_both_apart(
    new_page: NewPage, screenshot_dir: Path, locale: str, lang: str, phone: bool
) -> None:
    """Issue 44, points 1 and 2: "Use this code" reloads the page, which then says that this
    browser has the record and under which name; two browsers of one kind are listed under
    names of their own, this one marked, each with when it was added and last used."""
    words = WORDS[lang]
    size = size_name(phone)
    a = new_page(locale=locale, phone=phone)
    start_deal(a)
    place(a, 0, 0, 1)
    open_devices(a)
    code = show_code(a)

    b = new_page(locale=locale, phone=phone)
    b.goto("/")
    expect(b.locator("#dv-switched")).to_have_count(0)
    open_devices(b)
    form = b.locator("#dv-settings-claim")
    form.locator("input").fill(code)
    form.locator("button[type=submit]").click()
    notice = b.locator("#dv-switched")
    expect(notice).to_be_visible()
    expect(b.locator("#settings-dialog")).to_be_hidden()
    text = b.locator("#dv-switched-text")
    name = "Chrome on Linux (2)"
    expect(text).to_have_text(f"{words['switched']} {words['switched_name'].format(name=name)}")
    expect(text).to_have_attribute("role", "status")
    ok = b.locator("#dv-switched-ok")
    expect(ok).to_have_text(words["ok"])
    check_screen(b, f"home page after a code was used ({lang}, {size})", phone=phone)
    shot(b, screenshot_dir, f"switched-{lang}-{size}")
    ok.click()
    expect(notice).to_have_count(0)
    b.reload()  # said once, on the page it landed on
    expect(b.locator("html")).to_have_attribute("lang", lang)
    expect(b.locator("#dv-devices-own")).to_be_attached()
    expect(b.locator("#dv-switched")).to_have_count(0)
    # The record is this browser's: the deal started on A continues here.
    b.goto(PS)
    wait_placed(b, 1)
    expect(b.locator("#dv-switched")).to_have_count(0)

    # The list on B: this browser first and marked, both named apart, each with when it was
    # added (date and time) and last used.
    open_devices(b)
    rows = b.locator("#dv-device-list li")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_have_class(re.compile(r"\bcurrent\b"))
    expect(rows.nth(0).locator(".device-name")).to_have_text(name)
    expect(rows.nth(0).locator(".device-tag")).to_have_text(words["this_device"])
    expect(rows.nth(1).locator(".device-name")).to_have_text("Chrome on Linux")
    expect(rows.nth(1).locator(".device-tag")).to_have_count(0)
    me = {"X-Player-Id": player_id(b) or ""}
    for entry in b.request.get("/api/devices", headers=me).json()["devices"]:
        row = b.locator(f"#dv-device-list li[data-device='{entry['device']}']")
        added = words["added"].format(when=when_added(b, entry["created_at"], lang))
        expect(row.locator(".device-added")).to_have_text(added)
        expect(row.locator(".device-used")).to_be_visible()
    check_dialog(b, f"settings, two browsers of one kind ({lang}, {size})", phone=phone)
    b.locator("#dv-device-list").scroll_into_view_if_needed()
    b.locator("section[aria-labelledby=dv-list-title]").screenshot(
        path=str(screenshot_dir / f"devices-list-two-alike-{lang}-{size}.png"),
        animations="disabled",
    )
    close_settings(b)


@pytest.mark.parametrize(("locale", "lang", "phone"), SIZES)
def test_signing_a_device_out_asks_first_naming_it(
    new_page: NewPage, screenshot_dir: Path, locale: str, lang: str, phone: bool
) -> None:
    """Issue 44, point 3: "Sign out" on another device's entry asks first, in a dialog that
    names the device (name, when added, last used); focus starts on Cancel; Esc and Cancel
    leave it signed in and give focus back to its button; only "Sign out" signs it out."""
    words = WORDS[lang]
    size = size_name(phone)
    a = new_page(locale=locale, phone=phone)
    a.goto("/")
    other = second_device(a)
    me = {"X-Player-Id": player_id(a) or ""}
    made = a.request.post("/api/devices/recovery", headers=me).json()
    theirs = {"X-Player-Id": other["player_id"]}
    a.reload()
    open_devices(a)
    expect(a.locator("#dv-device-list li")).to_have_count(3)
    row = a.locator(f"#dv-device-list li[data-device='{other['device']}']")
    button = row.locator(".sign-out")
    button.click()
    dialog = a.locator("#dv-sign-out-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text(words["title"].format(name=other["name"]))
    entry = next(
        d
        for d in a.request.get("/api/devices", headers=me).json()["devices"]
        if d["device"] == other["device"]
    )
    facts = a.locator("#dv-sign-out-dialog-device")
    added = words["added"].format(when=when_added(a, entry["created_at"], lang))
    expect(facts).to_contain_text(added)
    expect(facts).to_contain_text(row.locator(".device-used").inner_text())
    expect(a.locator("#dv-sign-out-dialog-text")).to_contain_text(words["text"])
    keep = a.locator("#dv-sign-out-dialog-keep")
    expect(keep).to_have_text(words["keep"])
    expect(a.locator("#dv-sign-out-dialog-yes")).to_have_text(words["yes"])
    expect(keep).to_be_focused()
    where = f"settings, the question before signing a device out ({lang}, {size})"
    assert_no_axe_violations(a, where)
    if phone:
        assert_tap_targets(a, where, within="#dv-sign-out-dialog")
    dialog.screenshot(
        path=str(screenshot_dir / f"devices-sign-out-ask-{lang}-{size}.png"), animations="disabled"
    )
    shot(a, screenshot_dir, f"sign-out-ask-page-{lang}-{size}")

    # Esc: the question closes (the settings dialog stays), nothing is signed out.
    a.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(a.locator("#settings-dialog")).to_be_visible()
    expect(button).to_be_focused()
    assert a.request.get("/api/devices", headers=theirs).status == 200
    # Cancel: the same.
    button.click()
    expect(keep).to_be_focused()
    keep.click()
    expect(dialog).to_be_hidden()
    expect(button).to_be_focused()
    expect(a.locator("#dv-device-list li")).to_have_count(3)
    assert a.request.get("/api/devices", headers=theirs).status == 200

    # The recovery file's entry asks in its own words.
    file_row = a.locator(f"#dv-device-list li[data-device='{made['device']}']")
    file_row.locator(".sign-out").click()
    expect(dialog.locator("h2")).to_have_text(
        words["title"].format(name=file_row.locator(".device-name").inner_text())
    )
    made_at = words["made"].format(when=when_added(a, made["created_at"], lang))
    expect(facts).to_contain_text(made_at)
    expect(a.locator("#dv-sign-out-dialog-text")).to_contain_text(words["file_text"])
    a.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    # "Sign out": now it is.
    button.click()
    a.locator("#dv-sign-out-dialog-yes").click()
    expect(dialog).to_be_hidden()
    expect(a.locator("#dv-list-status")).to_have_text(
        words["signed_out"].format(name=other["name"])
    )
    expect(a.locator("#dv-device-list li")).to_have_count(2)
    refused = a.request.get("/api/devices", headers=theirs)
    assert refused.status == 401 and refused.json()["code"] == "revoked"


def signed_out_elsewhere(old: Page) -> None:
    """Another device of `old`'s record (brought in by a code) signs `old` out, through the
    API: `old`'s open page hears nothing of it."""
    other = second_device(old)
    theirs = {"X-Player-Id": other["player_id"]}
    listed = old.request.get("/api/devices", headers=theirs).json()["devices"]
    (mine,) = [d["device"] for d in listed if not d["current"]]
    assert old.request.delete(f"/api/devices/{mine}", headers=theirs).status == 204


@pytest.mark.parametrize(
    ("locale", "lang", "phone", "how"),
    [
        pytest.param("en-US", "en", False, "visible", id="en-desktop-tab-shown"),
        pytest.param("ja-JP", "ja", True, "visible", id="ja-phone-tab-shown"),
        pytest.param("en-US", "en", True, "focus", id="en-phone-window-focused"),
        pytest.param("ja-JP", "ja", False, "focus", id="ja-desktop-window-focused"),
    ],
)
def test_an_open_deal_of_a_signed_out_device_says_so_when_looked_at_again(
    new_page: NewPage,
    console_guard: ConsoleGuard,
    screenshot_dir: Path,
    locale: str,
    lang: str,
    phone: bool,
    how: str,
) -> None:
    """Issue 44, point 4: the old browser's page, left open on its deal while another device
    signs it out, says so as soon as it is looked at again (its tab shown again, or its
    window focused again after the player left it): the signed-out dialog, over nothing that
    says "something went wrong"."""
    console_guard.allow("401")  # the signed-out device's refused question
    old = new_page(locale=locale, phone=phone)
    start_deal(old)
    place(old, 0, 0, 1)
    signed_out_elsewhere(old)
    expect(old.locator("#play")).to_be_visible()  # nothing told the page yet
    expect(old.locator("#revoked-dialog")).to_have_count(0)
    if how == "visible":
        old.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    else:
        old.evaluate(
            "() => { window.dispatchEvent(new Event('blur'));"
            " window.dispatchEvent(new Event('focus')); }"
        )
    quiet_behind_the_dialog(old, generic_messages(lang), f"the deal, {how}")
    expect(old.locator("#revoked-dialog h2")).to_have_text(WORDS[lang]["revoked"])
    check_dialog(old, f"signed-out dialog over the deal ({lang}, {size_name(phone)})", phone=phone)
    dialog_shot(old, screenshot_dir, f"revoked-over-deal-{lang}-{size_name(phone)}")


@pytest.mark.parametrize(("locale", "lang", "phone"), SIZES)
def test_continue_on_a_signed_out_device_says_so(
    new_page: NewPage, console_guard: ConsoleGuard, locale: str, lang: str, phone: bool
) -> None:
    """Issue 44, point 4: "Continue" on the old browser's setup screen shows its deal from
    memory, without a request; once the page has asked nothing for a while (`QUIET_MS`, on
    the page's clock), that action asks, and the signed-out dialog comes over the deal."""
    console_guard.allow("401")
    old = new_page(locale=locale, phone=phone)
    old.clock.install()
    start_deal(old)
    place(old, 0, 0, 1)
    old.locator("#new-deal-btn").click()
    expect(old.locator("#continue-btn")).to_be_visible()
    signed_out_elsewhere(old)
    old.clock.fast_forward(QUIET_MS + 1000)
    old.locator("#continue-btn").click()
    expect(old.locator("#play")).to_be_visible()
    quiet_behind_the_dialog(old, generic_messages(lang), "Continue on the setup screen")
    expect(old.locator("#revoked-dialog h2")).to_have_text(WORDS[lang]["revoked"])
    check_dialog(old, f"signed-out dialog after Continue ({lang}, {size_name(phone)})", phone=phone)
