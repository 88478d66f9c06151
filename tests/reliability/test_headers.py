"""Browser hardening: every page, asset, API answer and error carries a Content-Security-Policy
with no inline script and ``frame-ancestors 'none'``, and ``nosniff``; the pages the server
renders from the templates have no inline script or style and no ``on*=`` handler attributes,
so the policy costs the page nothing."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from starlette.testclient import TestClient

from cardtable.server.core.settings import WEB_DIR
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


def page_paths() -> list[str]:
    """The URL of every page: one per template but the shell they extend."""
    # base.html is the shell and "_name.html" are partials the pages include: not pages.
    pages = sorted(
        p.name
        for p in (WEB_DIR / "templates").glob("*.html")
        if p.name != "base.html" and not p.name.startswith("_")
    )
    return ["/", *(f"/{name}" for name in pages)]


def site_paths() -> list[str]:
    files = sorted(p for p in (WEB_DIR / "assets").rglob("*") if p.is_file())
    return page_paths() + ["/" + p.relative_to(WEB_DIR).as_posix() for p in files]


def test_every_page_asset_and_answer_has_the_headers(client: TestClient, api: Api) -> None:
    paths = site_paths()
    assert len(page_paths()) >= 6 and "/kings-corner.html" in paths
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
        client.get("/templates/base.html"),  # 404: the templates' source is not served
        client.put("/api/players"),  # 405
        client.post("/api/poker-squares/games", content=b"{", headers=api.headers),  # 422
        client.get("/healthz"),
        client.get("/openapi.json"),
    ]
    for r in answers:
        check_headers(r.headers, f"{r.request.method} {r.request.url.path} {r.status_code}")
    assert answers[0].headers["cache-control"] == "no-store"
    assert answers[4].status_code == answers[5].status_code == 404


INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)(?![^>]*importmap)[^>]*>\s*\S", re.I | re.S)
IMPORT_MAP = re.compile(r'<script type="importmap">(.*?)</script>', re.S)


def check_import_map(html: str, csp: str, path: str) -> None:
    """The page's one inline script is its import map: plain data (every key a file of the
    site, every value the same file with its content hash), allowed by its hash alone."""
    maps = IMPORT_MAP.findall(html)
    assert len(maps) == 1, f"{path}: {len(maps)} import maps"
    imports = json.loads(maps[0])["imports"]
    assert "./assets/js/core/i18n.js" in imports and "./assets/i18n/ja.json" in imports
    for key, value in imports.items():
        assert key.startswith("./assets/") and re.fullmatch(
            re.escape(key) + r"\?v=[0-9a-f]{12}", value
        ), (path, key, value)
    digest = base64.b64encode(hashlib.sha256(maps[0].encode()).digest()).decode()
    assert directives(csp)["script-src"] == ["'self'", f"'sha256-{digest}'"], path


INLINE_STYLE = re.compile(r"<style\b|<[^>]*\sstyle\s*=", re.I | re.S)
HANDLER = re.compile(r"<[^>]*\son[a-z]+\s*=", re.I | re.S)
JS_URL = re.compile(r"""(href|src|action)\s*=\s*["']?\s*javascript:""", re.I)


def test_the_rendered_pages_have_no_inline_script_or_style(client: TestClient) -> None:
    for path in page_paths():
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html"), path
        html = r.text
        assert html.startswith("<!doctype html>"), path
        assert not INLINE_SCRIPT.search(html), f"{path}: an inline <script> body"
        assert not INLINE_STYLE.search(html), f"{path}: a <style> element or a style= attribute"
        assert not HANDLER.search(html), f"{path}: an on*= handler attribute"
        assert not JS_URL.search(html), f"{path}: a javascript: URL"
        for m in re.finditer(r"<script\b[^>]*>", html, re.I):
            assert re.search(r"\bsrc=|type=\"importmap\"", m.group(0)), m.group(0)
        check_import_map(html, r.headers["content-security-policy"], path)


def test_pages_are_revalidated_with_an_etag(client: TestClient) -> None:
    r = client.get("/kings-corner.html")
    etag = r.headers["etag"]
    again = client.get("/kings-corner.html", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["etag"] == etag and not again.content
    check_headers(again.headers, "304")
    # The 304's headers replace the cached page's: its policy must still allow the import map.
    assert again.headers["content-security-policy"] == r.headers["content-security-policy"]
    assert client.get("/", headers={"If-None-Match": '"other"'}).status_code == 200
