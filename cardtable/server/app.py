"""`create_app(settings)`: the FastAPI app (API routes, error handlers, headers, the site: pages
rendered from templates, files).

Building the app connects nothing; the store opens when the server starts (creating a new
SQLite file under the data folder) or, failing that, on the first request that needs it, and
closes when the app shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from starlette.middleware.gzip import GZipMiddleware

from cardtable import __version__
from cardtable.server.core import app_shell, errors, health, observe, retention
from cardtable.server.core.openapi_links import add_links
from cardtable.server.core.runtime import Runtime
from cardtable.server.core.settings import Settings
from cardtable.server.core.web import ResponseHeadersAndBodyLimit, site
from cardtable.server.daily import archive_routes as routes_daily_archive
from cardtable.server.daily import routes as routes_daily
from cardtable.server.devices import players
from cardtable.server.devices import routes as routes_devices
from cardtable.server.games import routes as routes_games
from cardtable.server.online import reactions as online_reactions
from cardtable.server.online import routes as online_routes
from cardtable.server.online.tables import OnlineTables, load_room
from cardtable.server.pstables import routes as routes_pstables
from cardtable.server.push import routes as routes_push
from cardtable.server.push.service import Push
from cardtable.server.quickplay import routes as routes_quick
from cardtable.server.quickplay.service import QuickPlay
from cardtable.server.rating import routes as routes_rating
from cardtable.server.rating.rate import Rater
from cardtable.server.review import routes as routes_review
from cardtable.server.stats import routes as routes_stats


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = Settings() if settings is None else settings
    runtime = Runtime(settings)
    online = OnlineTables(runtime)
    push = Push(runtime)
    online.saved_hooks.append(push.on_saved(load_room))
    rater = Rater(runtime)
    online.saved_hooks.append(rater.on_saved(load_room))
    quick = QuickPlay(runtime, online)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Open (and on first start create) the store when the server starts, so a new
        # `./data` exists at once; if it cannot be opened now, each request retries (503).
        with contextlib.suppress(errors.ApiError):
            await run_in_threadpool(lambda: runtime.store)
        runtime.admission.warm()
        await online.start()
        await push.start()
        await quick.matcher.start()
        try:
            async with retention.running(runtime):
                yield
        finally:
            await quick.matcher.stop()
            await push.stop()
            await online.stop()
            # The search pool stops with the last app using it, before the process exits
            # (cardtable/server/core/admission.py, "Lifecycle").
            await asyncio.to_thread(runtime.admission.close)
            runtime.close()

    app = FastAPI(
        title="cardtable",
        version=__version__,
        description="Kings Corner and Poker Squares: the game server's JSON API (docs/api.md).",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    app.state.online = online
    app.state.push = push
    app.state.rater = rater
    app.state.quick = quick
    errors.install(app)
    app.include_router(health.router)
    app.include_router(observe.router)
    app.include_router(routes_games.continue_router)
    app.include_router(players.router)
    app.include_router(routes_devices.router)
    app.include_router(routes_games.poker_squares_router)
    app.include_router(routes_games.kings_corner_router)
    app.include_router(online_routes.router)
    app.include_router(online_reactions.router)
    app.include_router(routes_review.router)
    app.include_router(routes_daily.router)
    app.include_router(routes_daily_archive.router)
    app.include_router(routes_stats.router)
    app.include_router(routes_push.router)
    app.include_router(routes_rating.router)
    app.include_router(routes_quick.router)
    app.include_router(routes_pstables.router)
    app.router.routes.extend(
        app_shell.routes(settings.web_dir, {"grace_seconds": round(settings.online.grace_seconds)})
    )
    app.router.routes.extend(
        site(settings.web_dir, {"grace_seconds": round(settings.online.grace_seconds)})
    )
    app.add_middleware(ResponseHeadersAndBodyLimit, max_body_bytes=settings.max_body_bytes)
    # Outermost: compresses pages, assets and API answers for clients that accept gzip.
    # Bodies under 1 KiB gain little; level 6 is zlib's usual balance of size and CPU.
    # WebSocket scopes pass through both middlewares untouched.
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    # Outermost of all: the request id and the request metrics (docs/operating.md, "Watch").
    app.add_middleware(observe.Observe)
    build_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        return add_links(build_openapi())

    app.openapi = openapi  # type: ignore[method-assign]
    return app
