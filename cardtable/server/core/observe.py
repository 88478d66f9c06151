"""Watching the server (docs/operating.md, "Watch"): every request's id and metrics, and
`/metrics`.

- `Observe`, the outermost ASGI middleware: gives each request (and live-channel connection)
  its id (logs.py: the ``X-Request-ID`` header when it is a safe token, else a new one),
  returned in the answer's ``X-Request-ID`` and carried by every log line written while it is
  served; and counts each HTTP request by its route's *template*
  (``/api/kings-corner/online/{token}``, never the path itself, so the labels stay few;
  ``other`` for a path no route matched), method and status, with its time.
- ``GET /metrics``: the Prometheus text format (metrics.py: this process, or every worker
  under ``--workers``), only for clients whose address is in `Settings.metrics_allow`
  (``--metrics-allow``, default loopback), as the server believes it: the peer, or behind a
  proxy named in ``--forwarded-allow-ips`` the client it forwarded. A request that names a
  forwarded client while the server trusts no proxy came through a proxy the server does not
  know, whose clients all look like the proxy: it is refused too. Everyone else gets 403.
  It reads no player id and no store, and no rate limit applies.
"""

from __future__ import annotations

import ipaddress
import secrets
import time

from fastapi import APIRouter, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from cardtable.server.core.errors import ApiError
from cardtable.server.core.logs import CURRENT, REQUEST_ID, RequestInfo
from cardtable.server.core.metrics import HTTP_REQUESTS, HTTP_SECONDS, exposition

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""Methods counted by name; any other is ``other`` (a client chooses the method)."""
OTHER = "other"
FORWARDED = (b"x-forwarded-for", b"forwarded", b"x-real-ip")

router = APIRouter()


def new_request_id() -> str:
    """32 hex digits, as nginx's ``$request_id``."""
    return secrets.token_hex(16)


def request_id_of(scope: Scope) -> str:
    """The request's own ``X-Request-ID`` if it is a safe token, else a new id."""
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            given = str(value.decode("latin-1"))
            if REQUEST_ID.fullmatch(given):
                return given
            break
    return new_request_id()


def route_label(scope: Scope) -> str:
    """The template of the route that answered (``other``: none matched). A route of an
    included router knows its template below the router's prefix only
    (``/games/{game_id}/moves``): the prefix is the request path's leading segments before
    the route's own (the routers' prefixes are literal: ``/api/poker-squares``)."""
    route = _route_of(scope)
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return OTHER
    if isinstance(route, Mount):
        return f"{path}/{{path:path}}"
    own = [part for part in path.split("/") if part]
    if any(":path}" in part for part in own):
        return path  # a parameter that spans segments: the route's own template alone
    parts = [part for part in str(scope.get("path", "")).split("/") if part]
    prefix = parts[: max(0, len(parts) - len(own))]
    return "/" + "/".join([*prefix, *own])


def _route_of(scope: Scope) -> BaseRoute | None:
    """The route that answered. FastAPI's router names an API route in the scope
    (``route``); of any other (the site's pages and files, ``/openapi.json``) only the
    endpoint it called is there, found again among the app's routes."""
    route = scope.get("route")
    if isinstance(route, BaseRoute):
        return route
    endpoint = scope.get("endpoint")
    if endpoint is None:
        return None
    for candidate in getattr(scope.get("router"), "routes", ()):
        if getattr(candidate, "endpoint", None) is endpoint or (
            isinstance(candidate, Mount) and candidate.app is endpoint
        ):
            return candidate  # type: ignore[no-any-return]
    return None


class Observe:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        rid = request_id_of(scope)
        client = scope.get("client")
        start = time.perf_counter()
        method = scope.get("method", "GET")
        info = RequestInfo(rid, method, scope.get("path", ""), client[0] if client else "", start)
        token = CURRENT.set(info)
        try:
            if kind == "websocket":
                await self.app(scope, receive, send)
                return
            status = 500  # unless an answer starts: an error escaped every handler
            header = (b"x-request-id", rid.encode())

            async def send_with_id(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                    message = {**message, "headers": [*message.get("headers", ()), header]}
                await send(message)

            try:
                await self.app(scope, receive, send_with_id)
            finally:
                route = route_label(scope)
                HTTP_REQUESTS.labels(
                    route=route, method=method if method in METHODS else OTHER, status=str(status)
                ).inc()
                HTTP_SECONDS.labels(route=route).observe(time.perf_counter() - start)
        finally:
            CURRENT.reset(token)


class Allowed:
    """Client addresses and networks (``127.0.0.1``, ``10.0.0.0/8``, ``::1``); an IPv4
    address that arrives IPv4-mapped (``::ffff:127.0.0.1``) counts as itself."""

    def __init__(self, items: tuple[str, ...]) -> None:
        self.networks = [ipaddress.ip_network(item.strip(), strict=False) for item in items]

    def __contains__(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host.partition("%")[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


def not_allowed() -> ApiError:
    return ApiError(
        403,
        "forbidden",
        "the metrics are not served to this address (cardtable serve --metrics-allow)",
    )


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """The metrics in the Prometheus text format, for allowed addresses only."""
    settings = request.app.state.runtime.settings
    client = request.client.host if request.client is not None else ""
    proxied = any(name in FORWARDED for name, _ in request.scope.get("headers", ()))
    if client not in Allowed(settings.metrics_allow) or (
        proxied and not settings.forwarded_allow_ips
    ):
        raise not_allowed()
    body, media_type = exposition()
    return Response(body, media_type=media_type, headers={"cache-control": "no-store"})
