"""The static site under ``cardtable/web`` served at "/", and the headers every response gets.

`Guard` is a plain ASGI middleware (cheap on every request): it adds the security headers
(a strict Content-Security-Policy: only this origin's scripts, styles and connections),
marks API answers uncacheable, and refuses bodies above the configured size with 413
``too_large`` before they are read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
NO_STORE = (b"cache-control", b"no-store")

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


class Guard:
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
                headers = [h for h in message.get("headers", []) if h[0] not in _REPLACED]
                headers.extend(SECURITY_HEADERS)
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


class WebFiles(StaticFiles):
    """StaticFiles with explicit media types (``.js`` is ``text/javascript``) that answers 404
    instead of failing while the site folder does not exist yet."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory, html=True, check_dir=False)

    async def check_config(self) -> None:
        if self.directory is not None and os.path.isdir(self.directory):
            await super().check_config()

    def file_response(self, full_path: Any, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(full_path, *args, **kwargs)
        media = MEDIA_TYPES.get(Path(str(full_path)).suffix.lower())
        if media is not None:
            response.headers["content-type"] = media
        return response


API_PATHS = ("/api/", "/healthz", "/openapi.json")


class SiteMount(Mount):
    """The site at "/", except API paths: an unknown API path or method must get the API's
    own 404 or 405 (with ``Allow``), not the static folder's."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("path", "").startswith(API_PATHS):
            return Match.NONE, {}
        return super().matches(scope)


def site(directory: Path) -> SiteMount:
    return SiteMount("/", app=WebFiles(directory), name="web")
