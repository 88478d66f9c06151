"""Every error the API answers, as JSON ``{code, message}`` with a stable code.

Routes raise `ApiError`; the handlers here turn it, FastAPI's validation errors and
Starlette's HTTP errors into that shape. The catch-all answers 500 ``internal`` and logs the
traceback; the tests assert it is never reached.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardtable.server.core.models import ErrorBody
from cardtable.server.core.store import StoreBusy, StoreError

log = logging.getLogger("cardtable.server")

CODES = {
    401: "no_player",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    503: "unavailable",
}


class ApiError(Exception):
    """An answer other than success: HTTP status, stable code, readable message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.extra}


def not_found(what: str = "game") -> ApiError:
    return ApiError(404, "not_found", f"no such {what}")


def no_player() -> ApiError:
    return ApiError(
        401, "no_player", "send the X-Player-Id header with an id from POST /api/players"
    )


def revoked() -> ApiError:
    return ApiError(
        401,
        "revoked",
        "this device was signed out of its record: start fresh or enter a transfer code",
    )


def rate_limited(retry_after: str) -> ApiError:
    return ApiError(
        429,
        "rate_limited",
        f"too many requests; try again in {retry_after} s",
        headers={"Retry-After": retry_after},
    )


def damaged(what: str = "game") -> ApiError:
    """A saved game whose state does not load (a damaged or tampered row): refused, never
    a 500, and nothing is written."""
    return ApiError(
        409, "damaged_game", f"this saved {what} is damaged and cannot be loaded; start a new one"
    )


def illegal(reason: str) -> ApiError:
    return ApiError(409, "illegal_move", reason)


def wrong_phase(message: str) -> ApiError:
    return ApiError(409, "wrong_phase", message)


def invalid(message: str) -> ApiError:
    return ApiError(422, "invalid_request", message)


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status)


def _location(loc: Any) -> str:
    parts = [str(p) for p in loc if p not in ("body",)] if isinstance(loc, list | tuple) else []
    return ".".join(parts) or "body"


def describe_validation(errors: Any) -> str:
    """One line per problem, e.g. ``row: Input should be less than or equal to 4``."""
    lines = []
    for err in list(errors)[:5]:
        if isinstance(err, dict):
            lines.append(f"{_location(err.get('loc'))}: {err.get('msg', 'invalid')}")
    return "; ".join(lines) or "the request body is not valid"


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", describe_validation(exc.errors()))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:
        # FastAPI's answer to a body it cannot decode: for the API that is a malformed body.
        return error_response(422, "invalid_request", "the body is not valid JSON text")
    code = CODES.get(exc.status_code, "error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    if exc.status_code == 404:
        message = "not found"
    return JSONResponse(
        {"code": code, "message": message},
        status_code=exc.status_code,
        headers=getattr(exc, "headers", None),
    )


async def _store_busy(request: Request, exc: Exception) -> JSONResponse:
    body = {"code": "unavailable", "message": "the game store is busy; try again"}
    return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})


async def _store_error(request: Request, exc: Exception) -> JSONResponse:
    """The store cannot be used now (the database unreachable, a lost connection): 503 at
    once, nothing changed. The reason is logged, never sent (it may name hosts)."""
    log.warning("store unavailable on %s %s: %s", request.method, request.url.path, exc)
    body = {"code": "unavailable", "message": "the game store is unavailable; try again shortly"}
    return JSONResponse(body, status_code=503, headers={"Retry-After": "2"})


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(500, "internal", "the server failed; the game was not changed")


def install(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(StoreBusy, _store_busy)
    app.add_exception_handler(StoreError, _store_error)
    app.add_exception_handler(Exception, _internal)


def responses(*statuses: int, conflict: type[ErrorBody] | None = None) -> dict[int | str, Any]:
    """OpenAPI ``responses`` for the error statuses a route can answer (422 always: it
    replaces FastAPI's default validation-error schema with ours)."""
    described = {
        401: "Missing or unknown X-Player-Id (`no_player`), or this device was signed out "
        "(`revoked`).",
        404: "No such game, or not yours (`not_found`).",
        409: "Stale version (`stale_version`, with `current`), a move the rules refuse "
        "(`illegal_move`), an action out of turn or on a replaced game (`wrong_phase`), a "
        "saved game that does not load (`damaged_game`) or a hint or computer step already "
        "being worked out for this game (`busy`).",
        413: "Body too large (`too_large`).",
        422: "Malformed body (`invalid_request`).",
        429: "Too many requests (`rate_limited`); see the `Retry-After` header.",
    }
    out: dict[int | str, Any] = {}
    for status in sorted({*statuses, 422, 429}):
        model: type[ErrorBody] = ErrorBody
        if status == 409 and conflict is not None:
            model = conflict
        out[status] = {"model": model, "description": described.get(status, "Error.")}
    return out
