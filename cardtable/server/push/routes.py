"""The push routes (docs/online-push.md): the server's public key, and this device's
subscription (one per device: a new endpoint replaces the old one). The removal has a path of
its own (``/subscriptions/current``): a 405 then names exactly the methods of each path."""

from __future__ import annotations

import hashlib
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, Request

from cardtable.server.core.errors import ApiError, invalid, not_found, responses
from cardtable.server.core.runtime import Runtime
from cardtable.server.devices.public import Credential, DeviceIdDep, authenticate, now_of
from cardtable.server.push.models import NewSubscription, PublicKey, Subscription
from cardtable.server.push.service import Push

router = APIRouter(prefix="/api/push", tags=["push"])
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{24}$"


def _push(request: Request) -> Push:
    push: Push = request.app.state.push
    if not push.settings.enabled:
        raise ApiError(404, "not_found", "notifications are off on this server")
    return push


def _device(request: Request, player_id: str) -> Credential:
    runtime: Runtime = request.app.state.runtime
    device = authenticate(runtime, player_id, now_of(request.app.state))
    runtime.limit(runtime.player_limit, device.player)
    return device


def _table_key(token: str) -> str:
    """The online tables' key for a token (the store keeps only its hash)."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def _check_endpoint(push: Push, endpoint: str) -> None:
    """Only a push service's URL: the server will POST to it."""
    url = urlsplit(endpoint)
    host = (url.hostname or "").lower()
    schemes = ("https", "http") if push.settings.allow_http else ("https",)
    allowed = any(host == h or host.endswith("." + h) for h in push.settings.endpoint_hosts)
    if url.scheme not in schemes or not allowed:
        raise invalid("the endpoint is not a known push service")


@router.get("/key", response_model=PublicKey, responses=responses(404))
def public_key(request: Request) -> PublicKey:
    """The server's VAPID public key, for ``pushManager.subscribe``."""
    return PublicKey(key=_push(request).public_key())


@router.post("/subscriptions", status_code=201, response_model=Subscription,
             responses=responses(401, 404, 429))  # fmt: skip
def subscribe(body: NewSubscription, player_id: DeviceIdDep, request: Request) -> Subscription:
    """This device's subscription: for one table (``table``), or every table
    (``all_tables``), and which events."""
    push = _push(request)
    device = _device(request, player_id)
    _check_endpoint(push, body.endpoint)
    if body.table is None and not body.all_tables:
        raise invalid("name a table or ask for all tables")
    table = None if body.table is None else (_table_key(body.table), body.table)
    push.store.subscribe(
        device.cred, device.player, body.endpoint, body.keys.p256dh, body.keys.auth,
        lang=body.lang, all_tables=body.all_tables, events=body.events, table=table,
    )  # fmt: skip
    return _current(push, device)


def _current(push: Push, device: Credential) -> Subscription:
    found = push.store.subscription(device.cred)
    if found is None:
        raise not_found("subscription")
    return Subscription(**found)


@router.delete("/subscriptions/current", status_code=204, responses=responses(401, 404))
def unsubscribe(
    player_id: DeviceIdDep,
    request: Request,
    table: Annotated[str | None, Query(pattern=TOKEN_PATTERN)] = None,
) -> None:
    """Forget one table (``table``), or with none this device's whole subscription."""
    push = _push(request)
    device = _device(request, player_id)
    push.store.unsubscribe(device.cred, None if table is None else _table_key(table))
