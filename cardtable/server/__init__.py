"""The game server: a FastAPI app over the engines and the store (docs/api.md, docs/server.md).

``from cardtable.server import create_app, Settings``; `cardtable serve` runs it with uvicorn.
"""

from cardtable.server.app import create_app
from cardtable.server.core.settings import Settings

__all__ = ["Settings", "create_app"]
