"""Issue 17, the HTTP fixes: a move racing a new game is refused, ``"rounds": true`` is
refused, redirects never follow the ``Host`` header, the extra browser headers, gzip, and
asset caching (content-hashed URLs for a year, the rest revalidated)."""

from __future__ import annotations

import gzip
import re
from typing import Any

from fastapi import FastAPI
from starlette.testclient import TestClient

from cardtable.server.core.settings import WEB_DIR
from cardtable.server.core.store import GameRecord
from cardtable.server.core.web import _relative_location, file_hash
from tests.server.helpers import Api


def test_a_move_on_a_game_replaced_after_its_load_is_refused(
    app: FastAPI, client: TestClient, api: Api
) -> None:
    """The race of issue 17 (5), made deterministic: a new deal lands while the move is on its
    way to the store. A move is one transaction now (`Store.change_game`: the game read and
    saved by one compare-and-set, SQLite holding its write lock from the read on), so the
    latest the other tab's deal can land is just before that transaction; the move must then
    see the game is no longer current: 409, nothing written. (Between the read and the write
    on PostgreSQL: tests/server/games/test_ps_move_transaction.py.)"""
    game = api.ps_new()
    store = app.state.runtime.store
    original = store.change_game
    replaced: list[dict[str, Any]] = []

    def change_after_a_replacement(*args: Any, **kwargs: Any) -> Any:
        if not replaced:
            replaced.append(api.ps_new())  # the other tab's new deal, at the worst moment
        return original(*args, **kwargs)

    store.change_game = change_after_a_replacement
    try:
        refused = api.ps(game, "moves", status=409, row=0, col=0)
    finally:
        store.change_game = original
    assert refused["code"] == "wrong_phase"
    old = store.load_game(game["id"], _key(api))  # as it was: version 1, no card placed
    assert old is not None and old.version == 1 and not old.current
    assert api.get(f"/api/poker-squares/games/{game['id']}")["view"]["placed"] == 0
    # The new deal is the current one and plays normally.
    new = replaced[0]
    assert api.get("/api/continue")["poker_squares"]["id"] == new["id"]
    api.ps(new, "moves", row=0, col=0)


def _key(api: Api) -> str:
    from cardtable.server.devices.players import player_key

    assert api.player_id is not None
    return player_key(api.player_id)


def test_kc_move_on_a_replaced_match_is_refused_at_save(
    app: FastAPI, client: TestClient, api: Api
) -> None:
    game = api.kc_new(seats=[{"kind": "human"}, {"kind": "human"}])
    store = app.state.runtime.store
    original = store.save_game

    def save_after_a_replacement(record: GameRecord, *args: Any, **kwargs: Any) -> GameRecord:
        store.save_game = original
        api.kc_new()
        return original(record, *args, **kwargs)

    store.save_game = save_after_a_replacement
    try:
        assert api.kc(game, "moves", status=409, move="end")["code"] == "wrong_phase"
    finally:
        store.save_game = original
    assert api.get(f"/api/kings-corner/games/{game['id']}")["version"] == game["version"]


def test_rounds_true_is_refused(api: Api) -> None:
    seats = [{"kind": "human"}, {"kind": "computer", "strength": "easy"}]
    for bad in (True, False, "3", None, 2):
        answer = api.kc_new(status=422, seats=seats, rounds=bad)
        assert answer["code"] == "invalid_request", bad
    assert api.kc_new(seats=seats, rounds=3)["match"]["rounds"] == 3
    assert api.kc_new(seats=seats, rounds=5.0)["match"]["rounds"] == 5


def test_redirects_never_use_the_host_header(client: TestClient, api: Api) -> None:
    for path, target in (
        ("/api/continue/", "/api/continue"),
        ("/api/continue/?x=1", "/api/continue?x=1"),
        ("/assets", "/assets/"),
    ):
        r = client.get(
            path,
            headers={**api.headers, "Host": "evil.example"},
            follow_redirects=False,
        )
        if r.status_code == 404:  # a path no route takes: nothing to redirect
            continue
        assert 300 <= r.status_code < 400, (path, r.status_code)
        location = r.headers["location"]
        assert location == target, (path, location)
        assert "evil.example" not in location.split("/")[0:3], location
        assert not location.startswith("//"), location
    r = client.get("/api/continue/", headers={**api.headers, "Host": "evil.example"})
    assert r.status_code == 200  # the redirect still leads to the answer
    # A location that would be protocol-relative keeps a single leading slash.
    for value, target in (
        (b"http://evil.example//x.example/a?b=1", b"/x.example/a?b=1"),
        (b"https://h/", b"/"),
        (b"/plain", b"/plain"),
    ):
        assert _relative_location((b"location", value)) == (b"location", target)


def test_extra_headers_and_no_server_banner_in_the_app(client: TestClient, api: Api) -> None:
    for r in (client.get("/"), client.get("/assets/css/base.css"), client.get("/api/continue")):
        assert r.headers["cross-origin-opener-policy"] == "same-origin"
        policy = r.headers["permissions-policy"]
        assert "camera=()" in policy and "geolocation=()" in policy and "microphone=()" in policy
    page = client.get("/").text
    assert re.search(r'<meta name="description" content="[^"]{20,}">', page)


def test_gzip_for_pages_assets_and_api_answers(client: TestClient, api: Api) -> None:
    game = api.kc_new()
    for path, headers in (
        ("/", {}),
        ("/assets/js/kings-corner/table.js", {}),
        (f"/api/kings-corner/games/{game['id']}", api.headers),
    ):
        plain = client.get(path, headers={**headers, "Accept-Encoding": "identity"})
        packed = client.get(path, headers={**headers, "Accept-Encoding": "gzip"})
        assert plain.status_code == packed.status_code == 200
        assert "content-encoding" not in plain.headers, path
        assert packed.headers["content-encoding"] == "gzip", path
        assert "accept-encoding" in packed.headers["vary"].lower()
        # httpx decodes for us; the raw size shows it was compressed.
        assert packed.content == plain.content
        assert int(packed.headers["content-length"]) < len(plain.content), path
    small = client.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # below the 1 KiB minimum
    assert gzip.decompress(gzip.compress(b"x")) == b"x"


def test_assets_versioned_urls_are_immutable_and_the_rest_revalidate(client: TestClient) -> None:
    page = client.get("/").text
    versioned = re.findall(r'(?:href|src)="(assets/[^"]+\?v=[0-9a-f]{12})"', page)
    assert any(v.startswith("assets/css/base.css?v=") for v in versioned), page
    assert any(v.startswith("assets/js/home/main.js?v=") for v in versioned), page
    for url in versioned:
        r = client.get("/" + url)
        assert r.status_code == 200, url
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable", url
        path = WEB_DIR / url.split("?")[0]
        st = path.stat()
        assert url.endswith(file_hash(str(path), st.st_mtime_ns, st.st_size))
    # The same file without (or with an old) version: cached but revalidated every time.
    for url in ("/assets/css/base.css", "/assets/css/base.css?v=000000000000"):
        r = client.get(url)
        assert r.headers["cache-control"] == "public, no-cache", url
        again = client.get(url, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.headers["cache-control"] == "public, no-cache"
    assert client.get("/").headers["cache-control"] == "public, no-cache"
    assert client.get("/api/continue").headers["cache-control"] == "no-store"
