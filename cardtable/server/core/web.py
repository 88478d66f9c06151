"""The site under ``cardtable/web`` served at "/", and the headers every response gets.

The pages are Jinja2 templates under ``templates/`` rendered on request (`Pages`); everything
else (``assets/``) is served as files (`WebFiles`), never the templates' source.

`ResponseHeadersAndBodyLimit` is a plain ASGI middleware (cheap on every request): it adds
the security headers (a strict Content-Security-Policy: only this origin's scripts, styles and
connections), marks API answers uncacheable, and refuses bodies above the configured size with
413 ``too_large`` before they are read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; "
    "manifest-src 'self'; worker-src 'self'"
)
PERMISSIONS = (
    "accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
    "magnetometer=(), microphone=(), payment=(), usb=()"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"permissions-policy", PERMISSIONS.encode()),
    (b"cross-origin-opener-policy", b"same-origin"),
)
NO_STORE = (b"cache-control", b"no-store")
CSP_HEADER = b"content-security-policy"
assert SECURITY_HEADERS[0][0] == CSP_HEADER
PAGE_CSP_START = b"default-src 'self'; script-src 'self' 'sha256-"


def page_csp(inline_script: str) -> str:
    """The policy of a page whose one inline script (its import map) is ``inline_script``:
    the site's policy with that script's hash allowed, and nothing else inline."""
    digest = base64.b64encode(hashlib.sha256(inline_script.encode()).digest()).decode()
    page = CSP.replace("script-src 'self'", f"script-src 'self' 'sha256-{digest}'", 1)
    assert page.encode().startswith(PAGE_CSP_START)
    return page


# Assets: a URL carrying the file's content hash (`?v=`, written by `asset_url` into the
# pages, and by each page's import map for what the modules import or fetch) never changes
# meaning, so it is cached for a year; any other asset URL is cached but revalidated on each
# use (`no-cache`: a 304 against the ETag), because the same URL may hold new content after
# an upgrade.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, no-cache"

MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".webmanifest": "application/manifest+json",
    ".woff2": "font/woff2",
}


class ResponseHeadersAndBodyLimit:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int) -> None:
        self.app = app
        self.max_body = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        is_api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                given = message.get("headers", [])
                # A page sets its own policy (the default's, plus its import map's hash).
                own = [h for h in given if h[0] == CSP_HEADER and h[1].startswith(PAGE_CSP_START)]
                headers = [h for h in given if h[0] not in _REPLACED]
                if 300 <= message["status"] < 400:
                    headers = [_relative_location(h) for h in headers]
                headers.extend(own[:1] or SECURITY_HEADERS[:1])
                headers.extend(SECURITY_HEADERS[1:])
                if is_api:
                    headers.append(NO_STORE)
                message = {**message, "headers": headers}
            await send(message)

        length = _content_length(scope)
        if length is not None and length > self.max_body:
            await _too_large(self.max_body)(scope, receive, send_with_headers)
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise HTTPException(413, f"the body is larger than {self.max_body} bytes")
            return message

        await self.app(scope, limited_receive, send_with_headers)


_REPLACED = {name for name, _ in SECURITY_HEADERS}


def _relative_location(header: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
    """A redirect's ``Location`` as a path on this site. Starlette builds the trailing-slash
    and directory redirects from the request's ``Host`` header, which the client chooses:
    kept absolute, ``Host: evil.example`` would send the browser there. A path (with a
    single leading slash, so never a protocol-relative ``//host``) cannot leave the site."""
    name, value = header
    if name != b"location":
        return header
    parts = urlsplit(value.decode("latin-1"))
    path = "/" + parts.path.lstrip("/")
    if parts.query:
        path += "?" + parts.query
    return name, path.encode("latin-1")


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _too_large(limit: int) -> Response:
    body = {"code": "too_large", "message": f"the body is larger than {limit} bytes"}
    return Response(json.dumps(body), status_code=413, media_type="application/json")


TEMPLATES = "templates"
PAGE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


class Pages:
    """The site's pages: every ``templates/<name>.html`` is rendered at ``/<name>.html`` (and
    ``index`` also at "/"), except ``base.html``, the shell the pages extend. Autoescaped and
    strict: a name the template does not define fails instead of printing nothing.

    A page carries an ETag of its body and answers 304 to a matching ``If-None-Match``."""

    def __init__(self, web_dir: Path, values: Mapping[str, object] | None = None) -> None:
        self.web_dir = web_dir
        self.directory = web_dir / TEMPLATES
        env = Environment(
            loader=FileSystemLoader(self.directory),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.globals["asset"] = lambda path: asset_url(web_dir, path)
        env.globals.update(values or {})
        self.values: Mapping[str, object] = dict(values or {})
        self.templates = Jinja2Templates(env=env)

    def exists(self, name: str) -> bool:
        return (
            name != "base"
            and bool(PAGE_NAME.fullmatch(name))
            and (self.directory / f"{name}.html").is_file()
        )

    async def render(self, request: Request) -> Response:
        name = request.path_params.get("page", "index")
        mapping = import_map(self.web_dir)
        response = self.templates.TemplateResponse(request, f"{name}.html", {"import_map": mapping})
        response.headers["content-security-policy"] = page_csp(mapping)
        # The release the page belongs to: the service worker keeps a page it fetched only
        # when it is of the worker's own release (docs/web.md, "Installing the app").
        response.headers[RELEASE_HEADER] = release(self.web_dir, self.values)
        etag = '"' + hashlib.sha256(response.body).hexdigest()[:32] + '"'
        response.headers["etag"] = etag
        response.headers["cache-control"] = REVALIDATE
        wanted = {
            tag.strip().removeprefix("W/")
            for tag in request.headers.get("if-none-match", "").split(",")
        }
        if etag in wanted or "*" in wanted:
            # The 304's headers replace the cached page's: it must carry the page's policy.
            unchanged = NotModifiedResponse(response.headers)
            unchanged.headers["content-security-policy"] = response.headers[
                "content-security-policy"
            ]
            return unchanged
        return response


class PageRoute(Route):
    """A GET route that matches only a page whose template exists: any other path falls
    through to the files (and a site folder without templates is served as plain files)."""

    def __init__(self, path: str, pages: Pages) -> None:
        super().__init__(path, pages.render, methods=["GET"], name="page", include_in_schema=False)
        self.pages = pages

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE and not self.pages.exists(
            child["path_params"].get("page", "index")
        ):
            return Match.NONE, {}
        return match, child


class WebFiles(StaticFiles):
    """StaticFiles with explicit media types (``.js`` is ``text/javascript``) that answers 404
    instead of failing while the site folder does not exist yet, and for the templates' source."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory, html=True, check_dir=False)

    async def check_config(self) -> None:
        if self.directory is not None and os.path.isdir(self.directory):
            await super().check_config()

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if path.split(os.sep, 1)[0] == TEMPLATES:
            return "", None
        return super().lookup_path(path)

    def file_response(
        self, full_path: Any, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        media = MEDIA_TYPES.get(Path(str(full_path)).suffix.lower())
        if media is not None:
            response.headers["content-type"] = media
        wanted = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v")
        versioned = wanted is not None and wanted[-1] == file_hash(
            str(full_path), stat_result.st_mtime_ns, stat_result.st_size
        )
        response.headers["cache-control"] = IMMUTABLE if versioned else REVALIDATE
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


@lru_cache(maxsize=256)
def file_hash(path: str, mtime_ns: int, size: int) -> str:
    """The first 12 hex digits of the file's SHA-256, cached while it is unchanged: the
    modification time and size are part of the cache key, so a changed file is read again."""
    del mtime_ns, size
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


def asset_url(web_dir: Path, path: str) -> str:
    """``path`` (relative to the site, e.g. ``assets/css/base.css``) with its content hash as
    ``?v=``, so the file can be cached for a year; the path alone if the file is missing."""
    try:
        st = (web_dir / path).stat()
    except OSError:
        return path
    return f"{path}?v={file_hash(str(web_dir / path), st.st_mtime_ns, st.st_size)}"


MAPPED = (("assets/js", "*.js"), ("assets/i18n", "*.json"), ("assets/css", "*.css"))
MAPPED_FILES = (("assets/img", "card-back.svg"),)


def import_map(web_dir: Path) -> str:
    """The page's import map (JSON): every module, string table and style sheet the modules
    import, fetch or link by plain URL, mapped to its versioned URL, so that a page load asks
    the server for none of them again until one changes (without it, each load revalidated
    20-34 modules). The modules find their own files through it with
    `import.meta.resolve`."""
    found = sorted(
        {
            *(p for folder, pattern in MAPPED for p in (web_dir / folder).rglob(pattern)),
            *(web_dir / folder / name for folder, name in MAPPED_FILES),
        }
    )
    imports = {}
    for path in found:
        relative = path.relative_to(web_dir).as_posix()
        versioned = asset_url(web_dir, relative)
        if versioned != relative:  # the file exists
            imports[f"./{relative}"] = f"./{versioned}"
    return json.dumps({"imports": imports}, separators=(",", ":"))


RELEASE_HEADER = "x-cardtable-release"
ASSETS = "assets"
WORKER_SOURCE = "worker/sw.js"


def shell_assets(web_dir: Path) -> list[str]:
    """Every file under ``assets/`` (paths relative to the site, sorted): the files the
    installed app keeps for offline use, each under its versioned URL."""
    root = web_dir / ASSETS
    if not root.is_dir():
        return []
    return sorted(p.relative_to(web_dir).as_posix() for p in root.rglob("*") if p.is_file())


def page_names(web_dir: Path) -> list[str]:
    """The names of the site's pages (templates that `Pages` renders), sorted."""
    folder = web_dir / TEMPLATES
    if not folder.is_dir():
        return []
    return sorted(
        p.stem for p in folder.glob("*.html") if p.stem != "base" and PAGE_NAME.fullmatch(p.stem)
    )


def release(web_dir: Path, values: Mapping[str, object] | None = None) -> str:
    """The site's release: 12 hex digits of a hash over everything a page or the service
    worker is made of (every asset's content hash, every template's, the worker's source and
    the values the pages state). Any change to one of them is a new release; the installed
    app keeps one cache per release (docs/web.md, "Installing the app")."""
    digest = hashlib.sha256(json.dumps(dict(values or {}), sort_keys=True).encode())
    templates = (
        sorted((web_dir / TEMPLATES).glob("*.html")) if (web_dir / TEMPLATES).is_dir() else []
    )
    for relative in (
        *shell_assets(web_dir),
        *(p.relative_to(web_dir).as_posix() for p in templates),
        WORKER_SOURCE,
    ):
        digest.update(asset_url(web_dir, relative).encode() + b"\n")
    return digest.hexdigest()[:12]


API_PATHS = ("/api/", "/healthz", "/openapi.json")


class SiteMount(Mount):
    """The site at "/", except API paths: an unknown API path or method must get the API's
    own 404 or 405 (with ``Allow``), not the static folder's."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("path", "").startswith(API_PATHS):
            return Match.NONE, {}
        return super().matches(scope)


def site(directory: Path, values: Mapping[str, object] | None = None) -> list[BaseRoute]:
    """The routes of the site in ``directory``: its pages, then its files. ``values`` are
    names every page may use (the server's settings a page states, such as the online grace
    period)."""
    pages = Pages(directory, values)
    return [
        PageRoute("/", pages),
        PageRoute("/{page}.html", pages),
        SiteMount("/", app=WebFiles(directory), name="web"),
    ]
