"""`cardtable serve [--host 127.0.0.1] [--port 8000] [--data ./data]`: run the site.

The store is the SQLite file under ``--data`` unless ``DATABASE_URL`` names a PostgreSQL
server. uvicorn serves the app until Ctrl-C, configured by `cardtable.server.core.serving`:
connection cap, request and keep-alive timeouts, proxy headers trusted only from
``--forwarded-allow-ips``, no ``server`` banner, repeated error logs thinned out; log lines as
text or JSON (``--log-format``), ``/metrics`` for the addresses of ``--metrics-allow``.
"""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path
from typing import Any


def _rate(text: str) -> float | None:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("a rate is 0 (no limit) or more")
    return value or None


def _addresses(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an address or network: {item}") from None
    return items


def _workers(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError("between 1 and 64 worker processes")
    return value


def register(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the game site (http://127.0.0.1:8000 by default)",
        description="Serve the site and its API with uvicorn. Games are saved in a SQLite "
        "file under --data, or in PostgreSQL when DATABASE_URL=postgresql://... is set.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (8000)")
    serve.add_argument("--data", type=Path, default=Path("data"), help="data folder (./data)")
    serve.add_argument(
        "--forwarded-allow-ips",
        default="",
        metavar="IPS",
        help="comma-separated addresses of reverse proxies whose X-Forwarded-For is believed "
        "(default: none; see docs/reliability.md)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=None,
        metavar="N",
        help="open connections kept (default: from the file-descriptor limit)",
    )
    serve.add_argument(
        "--request-timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds a connection has to send a whole request (10)",
    )
    serve.add_argument(
        "--player-rate",
        type=_rate,
        default=50.0,
        metavar="R",
        help="requests per second per player id, 0 for no limit (50)",
    )
    serve.add_argument(
        "--hint-rate",
        type=_rate,
        default=2.0,
        metavar="R",
        help="hints per second per player id, 0 for no limit (2)",
    )
    serve.add_argument(
        "--signup-rate",
        type=_rate,
        default=1.0,
        metavar="R",
        help="new player ids per second per client address, 0 for no limit (1)",
    )
    serve.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="server processes sharing the port (1); more than 1 uses more cores, see README",
    )
    serve.add_argument(
        "--metrics-allow",
        type=_addresses,
        default=["127.0.0.1", "::1"],
        metavar="IPS",
        help="comma-separated addresses or networks that may read /metrics, as the server "
        'sees the client (default: 127.0.0.1,::1; "" for nobody)',
    )
    serve.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="log lines as text or as one JSON object each, with the request id (text)",
    )
    serve.add_argument("--no-access-log", action="store_true", help="do not log each request")
    serve.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import logging
    import sys

    from cardtable.cli.serve_workers import run, settings_from
    from cardtable.server.core.logs import json_line

    options = {
        "data": str(args.data),
        "forwarded_allow_ips": [
            ip.strip() for ip in args.forwarded_allow_ips.split(",") if ip.strip()
        ],
        "max_connections": args.max_connections,
        "request_timeout": args.request_timeout,
        "player_rate": args.player_rate,
        "search_rate": args.hint_rate,
        "signup_rate": args.signup_rate,
        "metrics_allow": args.metrics_allow,
    }
    settings = settings_from(options)

    def say(message: str, *, error: bool = False) -> None:
        if args.log_format == "json":
            message = json_line(message, level=logging.ERROR if error else logging.INFO)
        print(message, file=sys.stderr if error else sys.stdout, flush=True)

    if args.workers > 1 and not settings.uses_postgres:
        # With SQLite a live move reaches the other processes' sockets only through the
        # 2-second poll, and every write waits for the one file lock: refuse, say why.
        say(
            "cardtable: --workers needs PostgreSQL (set DATABASE_URL=postgresql://...); "
            "with SQLite, serve with one worker",
            error=True,
        )
        return 2
    where = "PostgreSQL (DATABASE_URL)" if settings.uses_postgres else str(settings.sqlite_path)
    workers = f" by {args.workers} worker processes" if args.workers > 1 else ""
    say(f"cardtable: serving http://{args.host}:{args.port}/{workers} (games saved in {where})")
    run(
        options,
        host=args.host,
        port=args.port,
        workers=args.workers,
        access_log=not args.no_access_log,
        log_format=args.log_format,
    )
    return 0
