"""Players, health, continue, errors, headers, the static site and the OpenAPI document."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from cardtable.server import Settings, create_app
from cardtable.server.core.store import StoreBusy
from cardtable.server.core.web import CSP
from tests.server.helpers import Api


def test_health(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok", "store": "ok"}


def test_player_ids_are_long_random_and_stored_hashed(client: TestClient, app: object) -> None:
    ids = {client.post("/api/players").json()["player_id"] for _ in range(5)}
    assert len(ids) == 5
    store = client.app.state.runtime.store  # type: ignore[attr-defined]
    for pid in ids:
        assert len(pid) >= 22 and pid.replace("-", "").replace("_", "").isalnum()
        assert not store.has_player(pid)
        assert store.has_player(hashlib.sha256(pid.encode()).hexdigest())


@pytest.mark.parametrize(
    "headers",
    [{}, {"X-Player-Id": ""}, {"X-Player-Id": "short"}, {"X-Player-Id": "A" * 32},
     {"X-Player-Id": "not a token at all, with spaces!!"}, {"X-Player-Id": "x" * 5000}],
)  # fmt: skip
def test_unknown_or_missing_player_is_401(client: TestClient, headers: dict[str, str]) -> None:
    for method, path in (
        ("GET", "/api/continue"),
        ("GET", "/api/poker-squares/scores"),
        ("GET", "/api/kings-corner/results"),
        ("GET", "/api/poker-squares/games/abc"),
        ("POST", "/api/poker-squares/games"),
    ):
        r = client.request(method, path, headers=headers, json={})
        assert r.status_code == 401, (method, path, r.text)
        assert r.json()["code"] == "no_player"


def test_player_known_to_another_process_is_accepted(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=None)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        pid = a.post("/api/players").json()["player_id"]
        r = b.get("/api/continue", headers={"X-Player-Id": pid})
        assert r.status_code == 200


def test_continue_starts_empty(api: Api) -> None:
    assert api.get("/api/continue") == {
        "poker_squares": None,
        "kings_corner": None,
        "poker_squares_counted": None,
    }


def test_security_headers_everywhere(client: TestClient, api: Api) -> None:
    for r in (
        client.get("/healthz"),
        client.get("/api/continue", headers=api.headers),
        client.get("/api/continue"),
        client.get("/no-such-page.html"),
        client.post("/api/poker-squares/games", headers=api.headers, json={"table": 1}),
    ):
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    assert client.get("/api/continue").headers["cache-control"] == "no-store"


def test_unknown_paths_and_methods_answer_json(client: TestClient) -> None:
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = client.delete("/api/players")
    assert r.status_code == 405 and r.json()["code"] == "method_not_allowed"


def test_too_large_bodies_are_413(api: Api) -> None:
    big = {"table": "american", "pad": "x" * 40_000}
    r = api.client.post("/api/poker-squares/games", headers=api.headers, json=big)
    assert r.status_code == 413 and r.json()["code"] == "too_large"

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(40):
            yield b" " * 1000

    r = api.client.post(
        "/api/poker-squares/games",
        headers={**api.headers, "content-type": "application/json"},
        content=chunks(),
    )
    assert r.status_code == 413 and r.json()["code"] == "too_large"


def test_static_site_with_types(tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><title>cardtable</title>")
    (web / "assets" / "app.js").write_text("export const x = 1;\n")
    (web / "assets" / "ja.json").write_text('{"hello": "こんにちは"}')
    settings = Settings(data_dir=tmp_path / "data", database_url=None, web_dir=web)
    with TestClient(create_app(settings)) as client:
        r = client.get("/")
        assert r.status_code == 200 and "<title>cardtable</title>" in r.text
        assert r.headers["content-type"].startswith("text/html")
        assert r.headers["content-security-policy"] == CSP
        r = client.get("/assets/app.js")
        assert r.headers["content-type"] == "text/javascript; charset=utf-8"
        assert r.headers["x-content-type-options"] == "nosniff"
        r = client.get("/assets/ja.json")
        assert r.headers["content-type"] == "application/json" and r.json()["hello"]
        assert client.get("/missing.js").status_code == 404
        assert client.get("/../pyproject.toml").status_code == 404


def test_missing_site_folder_is_404_not_500(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=None, web_dir=tmp_path / "nope")
    with TestClient(create_app(settings)) as client:
        r = client.get("/")
        assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_building_the_app_connects_nothing_and_starting_creates_the_store(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    app = create_app(Settings(data_dir=data, database_url=None))
    assert not data.exists()
    with TestClient(app) as client:  # runs the app's startup
        assert (data / "cardtable.sqlite3").exists()
        assert client.post("/api/players").status_code == 201


def test_unreachable_database_is_503(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url="mysql://nowhere")
    with TestClient(create_app(settings)) as client:
        r = client.post("/api/players")
        assert r.status_code == 503 and r.json()["code"] == "unavailable"


@pytest.mark.untraced  # its lines are covered by traced tests (docs/checks.md)
def test_openapi_lists_every_endpoint_and_model(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    paths = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    expected = {
        ("/healthz", "get"),
        ("/api/players", "post"),
        ("/api/continue", "get"),
        ("/api/poker-squares/games", "post"),
        ("/api/poker-squares/games/{game_id}", "get"),
        ("/api/poker-squares/games/{game_id}/moves", "post"),
        ("/api/poker-squares/games/{game_id}/undo", "post"),
        ("/api/poker-squares/games/{game_id}/hint", "post"),
        ("/api/poker-squares/scores", "get"),
        ("/api/kings-corner/games", "post"),
        ("/api/kings-corner/games/{game_id}", "get"),
        ("/api/kings-corner/games/{game_id}/moves", "post"),
        ("/api/kings-corner/games/{game_id}/undo", "post"),
        ("/api/kings-corner/games/{game_id}/reveal", "post"),
        ("/api/kings-corner/games/{game_id}/computer-step", "post"),
        ("/api/kings-corner/games/{game_id}/next-round", "post"),
        ("/api/kings-corner/results", "get"),
        ("/api/review/poker-squares/{game_id}", "get"),
        ("/api/review/poker-squares/{game_id}/start", "post"),
        ("/api/review/kings-corner/{game_id}/rounds/{number}", "get"),
    }
    online = "/api/kings-corner/online"
    expected |= {(online, "post"), (f"{online}/codes/{{code}}", "get")}
    expected |= {
        (f"{online}/{{token}}{tail}", "get") for tail in ("", "/qr.svg", "/rounds/{number}")
    }
    expected |= {
        (f"{online}/{{token}}/{action}", "post")
        for action in ("join", "leave", "seats/{seat}", "seats/{seat}/stand-in",
                       "seats/{seat}/invite", "start", "moves", "undo", "reveal", "next-round",
                       "rematch")
    }  # fmt: skip
    expected |= {
        ("/api/daily/{table}", "get"),
        ("/api/daily/{table}/play", "post"),
        ("/api/daily/me/name", "put"),
        ("/api/daily/archive/{table}", "get"),
        ("/api/daily/{table}/archive/{day}/play", "post"),
        ("/api/stats", "get"),
        ("/api/stats/history", "get"),
        ("/api/stats/export", "get"),
        ("/api/stats/data", "delete"),
    }
    expected |= {("/api/devices", "get"), ("/api/devices/current", "patch")}
    expected |= {("/api/devices/{device}", "delete")}
    expected |= {
        (f"/api/devices/{action}", "post")
        for action in ("transfer", "transfer-qr", "claim", "sign-out-others", "recovery", "restore")
    }
    expected |= {(f"{online}/mine", "get")}
    expected |= {(f"{online}/{{token}}/reactions", "post")}
    expected |= {
        ("/api/push/key", "get"),
        ("/api/push/subscriptions", "post"),
        ("/api/push/subscriptions/current", "delete"),
    }
    expected |= {("/api/ratings/me", "get"), ("/api/ratings/board", "get")}
    expected |= {("/api/quick-play", m) for m in ("get", "post", "delete")}
    expected |= {("/api/quick-play/blocks", m) for m in ("get", "post")}
    expected |= {("/api/quick-play/blocks/{ident}", "delete")}
    ps_tables = "/api/poker-squares/tables"  # docs/ps-tables.md
    expected |= {(ps_tables, "post"), (f"{ps_tables}/codes/{{code}}", "get")}
    expected |= {(f"{ps_tables}/{{token}}{tail}", "get") for tail in ("", "/qr.svg")}
    expected |= {
        (f"{ps_tables}/{{token}}/{action}", "post")
        for action in ("join", "leave", "start", "place", "rematch")
    }
    assert paths == expected
    schemas = doc["components"]["schemas"]
    names = "PSGame PSMove PSNewGame PSHint PSScoreBoard KCGame KCMove KCNewGame KCResults"
    for name in (*names.split(), "Continue", "ErrorBody", "NewPlayer"):
        assert name in schemas, name
    move = doc["paths"]["/api/poker-squares/games/{game_id}/moves"]["post"]
    assert set(move["responses"]) == {"200", "401", "404", "409", "413", "422", "429"}
    assert "HTTPValidationError" not in schemas


def test_a_busy_store_answers_503_with_retry_after(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid = client.post("/api/players").json()["player_id"]
    store = client.app.state.runtime.store  # type: ignore[attr-defined]

    def busy(*args: object, **kwargs: object) -> None:
        raise StoreBusy("every database connection stayed busy")

    monkeypatch.setattr(store, "current_game", busy)
    r = client.get("/api/continue", headers={"X-Player-Id": pid})
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert r.json()["code"] == "unavailable"
