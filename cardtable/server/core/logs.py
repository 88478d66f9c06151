"""Log lines as text (uvicorn's own format, the default) or as one JSON object per line
(`cardtable serve --log-format json`), and the request id that ties a request's lines
together (docs/operating.md, "Watch").

Every request gets an id (observe.py): its ``X-Request-ID`` header when that is a safe token
(`REQUEST_ID`: a proxy such as nginx sends its own ``$request_id`` and logs it too), else a
new one; the answer carries it back in ``X-Request-ID``. It is kept in a context variable
(`CURRENT`) for the request's task, which asyncio and Starlette copy into the threads the
request runs in, so every line logged while serving the request carries it: the access
line, the error log's traceback, the app's own loggers.

A JSON line has ``time`` (ISO 8601, UTC, milliseconds), ``level``, ``logger``, ``message``
and ``pid`` (the worker under ``--workers``); ``request_id`` while serving a request; the
access line (``uvicorn.access``) also ``method``, ``path`` (with the query), ``status``,
``client`` (the address the server believes: after a trusted proxy's ``X-Forwarded-For``)
and ``duration_ms`` (from the request's arrival at the app to the start of its answer);
an exception's traceback is the ``exception`` field of its one line.
"""

from __future__ import annotations

import json
import logging
import re
import time
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A request id taken from the request's ``X-Request-ID`` (anything else: a new one)."""
ACCESS = "uvicorn.access"


@dataclass(frozen=True)
class RequestInfo:
    """The request being served, for its log lines."""

    id: str
    method: str
    path: str
    client: str
    start: float
    """`time.perf_counter` when the request reached the app."""


CURRENT: ContextVar[RequestInfo | None] = ContextVar("cardtable_request", default=None)


class JsonFormatter(logging.Formatter):
    """One JSON object per record (the module's docstring lists the fields)."""

    def format(self, record: logging.LogRecord) -> str:
        at = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        info = CURRENT.get()
        if info is not None:
            line["request_id"] = info.id
        args = record.args
        if record.name == ACCESS and isinstance(args, tuple) and len(args) == 5:
            # uvicorn's access line: (client "host:port", method, path?query, version, status)
            peer, method, path, _, status = args
            line |= {"method": method, "path": path, "status": status}
            if info is not None:
                line["client"] = info.client
                line["duration_ms"] = round((time.perf_counter() - info.start) * 1000, 3)
            else:
                line["client"] = str(peer).rpartition(":")[0]
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str)


def log_config(log_format: str) -> dict[str, Any]:
    """The `logging.config.dictConfig` of ``log_format`` ``json`` for uvicorn (which applies
    it in the server process and again in each worker): uvicorn's error log and the app's
    loggers (``cardtable.*``, from INFO) and anything else (from WARNING, Python's warnings
    included) on stderr, the access log on stdout, as uvicorn's own configuration has them."""
    if log_format != "json":
        raise ValueError(f"no logging configuration for {log_format!r}")
    stream = "logging.StreamHandler"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {
            "default": {"class": stream, "formatter": "json", "stream": "ext://sys.stderr"},
            "access": {"class": stream, "formatter": "json", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            ACCESS: {"handlers": ["access"], "level": "INFO", "propagate": False},
            "cardtable": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "py.warnings": {"handlers": ["default"], "propagate": False},
        },
        "root": {"handlers": ["default"], "level": "WARNING"},
    }


def configure(log_format: str) -> None:
    """What a process serving with ``log_format`` sets up beside uvicorn's configuration:
    with ``json``, Python's warnings go through the log (else they are printed as text)."""
    logging.captureWarnings(log_format == "json")


def json_line(message: str, *, level: int = logging.INFO, name: str = "cardtable.serve") -> str:
    """``message`` as a JSON log line (what `cardtable serve` says before logging is set up)."""
    record = logging.LogRecord(name, level, __file__, 0, message, None, None)
    return JsonFormatter().format(record)
