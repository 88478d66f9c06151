"""`cardtable serve [--host 127.0.0.1] [--port 8000] [--data ./data]`: run the site.

The store is the SQLite file under ``--data`` unless ``DATABASE_URL`` names a PostgreSQL
server. uvicorn serves the app until Ctrl-C.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


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
    serve.set_defaults(func=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from cardtable.server import Settings, create_app

    settings = Settings(data_dir=args.data)
    where = "PostgreSQL (DATABASE_URL)" if settings.uses_postgres else str(settings.sqlite_path)
    print(f"cardtable: serving http://{args.host}:{args.port}/ (games saved in {where})")
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0
