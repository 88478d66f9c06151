"""Browser hardening: every page, asset, API answer and error carries a Content-Security-Policy
with no inline script and ``frame-ancestors 'none'``, and ``nosniff``; the site's HTML has no
inline script and no ``on*=`` handler attributes, so the policy costs the page nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from cardtable.server.settings import WEB_DIR
from tests.server.helpers import Api


def directives(csp: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in csp.split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


def check_headers(headers: Any, what: str) -> None:
    csp = headers.get("content-security-policy")
    assert csp, f"{what}: no Content-Security-Policy"
    d = directives(csp)
    script = d.get("script-src", d.get("default-src"))
    assert script is not None, what
    assert "'unsafe-inline'" not in script and "'unsafe-eval'" not in script, what
    assert "'unsafe-inline'" not in d.get("default-src", []), what
    assert d.get("frame-ancestors") == ["'none'"], what
    assert headers.get("x-content-type-options") == "nosniff", what


def site_paths() -> list[str]:
    files = sorted(p for p in WEB_DIR.rglob("*") if p.is_file())
    return ["/"] + ["/" + p.relative_to(WEB_DIR).as_posix() for p in files]


def test_every_page_asset_and_answer_has_the_headers(client: TestClient, api: Api) -> None:
    paths = site_paths()
    assert any(p.endswith(".html") for p in paths)
    for path in paths:
        r = client.get(path)
        assert r.status_code == 200, path
        check_headers(r.headers, path)
    game = api.ps_new()
    answers = [
        client.get(f"/api/poker-squares/games/{game['id']}", headers=api.headers),
        client.post("/api/players"),
        client.get("/api/continue"),  # 401
        client.get("/api/nowhere"),  # 404
        client.get("/no-such-page.html"),
        client.put("/api/players"),  # 405
        client.post("/api/poker-squares/games", content=b"{", headers=api.headers),  # 422
        client.get("/healthz"),
        client.get("/openapi.json"),
    ]
    for r in answers:
        check_headers(r.headers, f"{r.request.method} {r.request.url.path} {r.status_code}")
    assert answers[0].headers["cache-control"] == "no-store"


INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>\s*\S", re.I | re.S)
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.I | re.S)
JS_URL = re.compile(r"""(href|src|action)\s*=\s*["']?\s*javascript:""", re.I)


def test_the_site_html_has_no_inline_script() -> None:
    pages = sorted(WEB_DIR.rglob("*.html"))
    assert pages
    for page in pages:
        html = Path(page).read_text(encoding="utf-8")
        assert not INLINE_SCRIPT.search(html), f"{page.name}: an inline <script> body"
        assert not HANDLER.search(html), f"{page.name}: an on*= handler attribute"
        assert not JS_URL.search(html), f"{page.name}: a javascript: URL"
        for m in re.finditer(r"<script\b[^>]*>", html, re.I):
            assert re.search(r"\bsrc=", m.group(0)), m.group(0)
