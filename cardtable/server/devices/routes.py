"""One record on several devices (docs/devices.md): transfer codes (with their QR), claiming
one, the record's devices (list, rename this one, sign one out, sign out everywhere else),
recovery keys and restoring from one.

Codes and keys are kept only as their SHA-256. A code is claimed by a compare-and-set in
one transaction (`DeviceStore.claim_code`): two claims at once have exactly one winner. A
wrong, used or expired code, and a malformed one, all answer the same 404 ``bad_code``.
Guesses (claims and restores) are limited per client address (an IPv6 client by its /64,
`client_key`), and claims also by one ceiling for the whole site; codes and recovery keys
issued are limited per player; all these limits are kept in the store, so they hold across
server processes (limits_store.py).
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Annotated, Literal

import segno
from fastapi import APIRouter, Request
from fastapi.responses import Response as HttpResponse
from pydantic import Field

from cardtable.server.core.errors import ApiError, not_found, responses
from cardtable.server.core.models import Request as RequestBody
from cardtable.server.core.models import Response
from cardtable.server.core.ratelimit import request_key
from cardtable.server.core.runtime import SITE_CLAIMS, Runtime, RuntimeDep
from cardtable.server.devices import service as devices
from cardtable.server.devices.players import DeviceDep, new_player_id, player_key
from cardtable.server.devices.store import Credential, DeviceStore

router = APIRouter(prefix="/api/devices", tags=["devices"])

ORIGIN = r"^https?://(\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(:[0-9]{1,5})?$"
"""A page origin, as the online invite QR accepts it (never taken from the Host header)."""
LINK_PAGE = "/link.html"
WARNING = (
    "Anyone holding this file can use your record (games, scores, statistics, online seats) "
    "until you sign it out in the devices list. Keep it private."
)
Name = Annotated[
    str,
    Field(
        max_length=256,
        description="The device's name: NFKC, control characters dropped, spaces collapsed, "
        "cut to 40 characters; empty means a name from the User-Agent.",
    ),
]


# -- bodies --------------------------------------------------------------------------------
class TransferCode(Response):
    code: str = Field(description="The code as shown, `ABCD-EFGH`; valid once.")
    expires_at: str = Field(description="ISO-8601 UTC.")
    expires_in: int = Field(description="Seconds it stays valid (600).")


class TransferQR(RequestBody):
    code: str = Field(max_length=40, description="The code just made (`ABCD-EFGH`).")
    origin: str = Field(
        max_length=300, pattern=ORIGIN, description="The page's own origin, e.g. https://x.org."
    )


class Claim(RequestBody):
    code: str = Field(max_length=40, description="The transfer code, as typed.")
    name: Name | None = None


class Restore(RequestBody):
    recovery_key: str = Field(max_length=200, description="The key from the recovery file.")
    name: Name | None = None


class Rename(RequestBody):
    name: Name


class NewDevice(Response):
    player_id: str = Field(description="This browser's new id: send it as `X-Player-Id`.")
    device: str
    name: str


class Device(Response):
    device: str = Field(description="The device's public id (12 characters a-z2-7).")
    name: str
    kind: Literal["device", "recovery"]
    created_at: str
    last_used_at: str
    current: bool = Field(description="The device making this request.")


class LiveTransfer(Response):
    expires_at: str


class Devices(Response):
    devices: list[Device]
    transfer: LiveTransfer | None = Field(description="The record's live transfer code, if any.")


class SignedOut(Response):
    revoked: int = Field(description="How many credentials were signed out.")


class RecoveryFile(Response):
    format: Literal["cardtable-recovery"]
    version: Literal[1]
    recovery_key: str
    device: str = Field(description="The recovery key's entry in the devices list.")
    created_at: str
    warning: str


# -- helpers -------------------------------------------------------------------------------
def bad_code() -> ApiError:
    return ApiError(404, "bad_code", "this code is unknown, already used or expired")


def _entry(c: Credential, current: str) -> Device:
    kind: Literal["device", "recovery"] = "recovery" if c.kind == "recovery" else "device"
    return Device(
        device=c.device, name=c.name, kind=kind, created_at=c.created_at,
        last_used_at=c.last_used_at, current=c.cred == current,
    )  # fmt: skip


def _rows(runtime: Runtime) -> DeviceStore:
    return DeviceStore(runtime.store)


# -- transfer codes ------------------------------------------------------------------------
@router.post(
    "/transfer", status_code=201, response_model=TransferCode, responses=responses(401, 429)
)
def transfer(me: DeviceDep, runtime: RuntimeDep, request: Request) -> TransferCode:
    """A new transfer code for this record (the previous unused one stops working)."""
    now = devices.now_of(request.app.state)
    runtime.stored_limit("transfer", me.player, now)
    code = devices.new_code()
    expires = now + timedelta(seconds=devices.CODE_SECONDS)
    _rows(runtime).new_code(me.player, player_key(code), me.device, now, expires)
    return TransferCode(
        code=devices.shown(code),
        expires_at=devices.iso(expires),
        expires_in=devices.CODE_SECONDS,
    )


@router.post(
    "/transfer-qr",
    response_class=HttpResponse,
    responses={200: {"content": {"image/svg+xml": {}}}, **responses(401, 404)},
)
def transfer_qr(
    body: TransferQR, me: DeviceDep, runtime: RuntimeDep, request: Request
) -> HttpResponse:
    """The link ``<origin>/link.html#ABCD-EFGH`` as a QR code, for this record's live code
    (404 ``not_found`` for any other code)."""
    code = devices.normal_code(body.code)
    live = _rows(runtime).live_code(me.player, devices.now_of(request.app.state))
    if code is None or live is None or live[0] != player_key(code):
        raise not_found("live transfer code")
    buffer = io.BytesIO()
    segno.make(f"{body.origin}{LINK_PAGE}#{devices.shown(code)}", error="m").save(
        buffer, kind="svg", xmldecl=False, scale=4, title="Transfer link"
    )
    return HttpResponse(buffer.getvalue(), media_type="image/svg+xml")


@router.post("/claim", status_code=201, response_model=NewDevice, responses=responses(404))
def claim(body: Claim, runtime: RuntimeDep, request: Request) -> NewDevice:
    """Make this browser a device of the code's record (the code is then used up).
    ``X-Player-Id`` is not needed and is ignored. Limited per client address and, for the
    codes that could exist, by one ceiling for the whole site (429 ``rate_limited``)."""
    now = devices.now_of(request.app.state)
    runtime.stored_limit("claim", request_key(request), now)
    code = devices.normal_code(body.code)
    if code is None:
        raise bad_code()
    runtime.site_limit(SITE_CLAIMS, now)
    player_id = new_player_id()
    name = devices.device_name(body.name, request.headers.get("user-agent"))
    made = _rows(runtime).claim_code(player_key(code), player_key(player_id), name, now)
    if made is None:
        raise bad_code()
    return NewDevice(player_id=player_id, device=made.device, name=made.name)


# -- the record's devices --------------------------------------------------------------------
@router.get("", response_model=Devices, responses=responses(401))
def list_devices(me: DeviceDep, runtime: RuntimeDep, request: Request) -> Devices:
    """The devices using this record (signed-out ones are not listed) and its live code."""
    rows = _rows(runtime)
    live = rows.live_code(me.player, devices.now_of(request.app.state))
    return Devices(
        devices=[_entry(c, me.cred) for c in rows.devices(me.player)],
        transfer=None if live is None else LiveTransfer(expires_at=live[1]),
    )


@router.patch("/current", response_model=Device, responses=responses(401))
def rename(body: Rename, me: DeviceDep, runtime: RuntimeDep, request: Request) -> Device:
    """Rename this device."""
    name = devices.device_name(body.name, request.headers.get("user-agent"))
    rows = _rows(runtime)
    rows.rename(me.cred, name)
    found = rows.resolve(me.cred)
    assert found is not None
    return _entry(found, me.cred)


@router.post("/sign-out-others", response_model=SignedOut, responses=responses(401))
def sign_out_others(me: DeviceDep, runtime: RuntimeDep, request: Request) -> SignedOut:
    """Sign out every other device of this record, recovery keys included."""
    now = devices.now_of(request.app.state)
    return SignedOut(revoked=_rows(runtime).revoke_others(me.player, me.cred, now))


# -- recovery ------------------------------------------------------------------------------
@router.post(
    "/recovery", status_code=201, response_model=RecoveryFile, responses=responses(401, 429)
)
def recovery(me: DeviceDep, runtime: RuntimeDep, request: Request) -> RecoveryFile:
    """A new recovery key for this record (offered as the file cardtable-recovery.json)."""
    now = devices.now_of(request.app.state)
    runtime.stored_limit("recovery", me.player, now)
    key = devices.new_recovery_key()
    made = _rows(runtime).add(me.player, player_key(key), "Recovery file", "recovery", now)
    return RecoveryFile(
        format="cardtable-recovery", version=1, recovery_key=key, device=made.device,
        created_at=made.created_at, warning=WARNING,
    )  # fmt: skip


@router.post("/restore", status_code=201, response_model=NewDevice, responses=responses(404))
def restore(body: Restore, runtime: RuntimeDep, request: Request) -> NewDevice:
    """Make this browser a device of the recovery key's record. ``X-Player-Id`` is not
    needed and is ignored. Limited per client address (with claims); a recovery key has 256
    bits, so no site-wide ceiling is needed, and a flood of claims cannot block restores."""
    now = devices.now_of(request.app.state)
    runtime.stored_limit("claim", request_key(request), now)
    rows = _rows(runtime)
    key = body.recovery_key.strip()
    found = rows.resolve(player_key(key)) if key.isascii() else None
    if found is None or found.kind != "recovery" or found.revoked_at is not None:
        raise bad_code()
    rows.touch(found.cred, now, now - devices.TOUCH_AFTER)
    player_id = new_player_id()
    name = devices.device_name(body.name, request.headers.get("user-agent"))
    made = rows.add(found.player, player_key(player_id), name, "device", now)
    return NewDevice(player_id=player_id, device=made.device, name=made.name)


# Last: a path parameter after the fixed paths, so that `/recovery` and the others (and
# their `Allow` on a 405) are never taken for a device id.
@router.delete("/{device}", status_code=204, responses=responses(401, 404))
def sign_out(device: str, me: DeviceDep, runtime: RuntimeDep, request: Request) -> None:
    """Sign one device of this record out (this one too): its next request is refused with
    401 ``revoked``."""
    if not devices.DEVICE.fullmatch(device):
        raise not_found("device")
    now = devices.now_of(request.app.state)
    if not _rows(runtime).revoke(me.player, device, now):
        raise not_found("device")
