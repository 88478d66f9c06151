"""The installable app: the web app manifest (``/manifest.webmanifest``) and the service worker
(``/sw.js``), both served from the site's root so that the worker's scope is the whole site.

The worker's code is ``worker/sw.js`` under the site folder; ``/sw.js`` is that code after one
line naming the release (`web.release`) and the files of the page shell it precaches (every
page and every asset under its versioned URL). A browser compares a registered worker's
script byte for byte on each navigation, so a new release is a new worker, which installs the
new set beside the old one (docs/web.md, "Installing the app").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cardtable.server.core.web import (
    WORKER_SOURCE,
    asset_url,
    page_names,
    release,
    shell_assets,
)

NAME = "cardtable"
DESCRIPTION = "Kings Corner and Poker Squares: two classic card games, in Japanese and English."
THEME_COLOUR = "#1b4d36"
"""The header's felt (``--felt`` in base.css): the colour of the browser's bar."""
BACKGROUND_COLOUR = "#0e2c1f"
"""The page's background (``--felt-deep``): the splash screen while the app starts."""
ICONS = (
    ("assets/img/app/icon-192.png", "192x192", "any"),
    ("assets/img/app/icon-512.png", "512x512", "any"),
    ("assets/img/app/icon-maskable-512.png", "512x512", "maskable"),
)
NOTIFICATION_ICON = "assets/img/app/icon-192.png"
NOTIFICATION_BADGE = "assets/img/app/badge-96.png"
NO_CACHE = "no-cache"


def manifest(web_dir: Path) -> dict[str, object]:
    """The manifest's members (https://www.w3.org/TR/appmanifest/): relative URLs resolve
    against the manifest's own URL, the site's root."""
    return {
        "id": "./",
        "name": NAME,
        "short_name": NAME,
        "description": DESCRIPTION,
        "lang": "en",
        "dir": "ltr",
        "start_url": "./",
        "scope": "./",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": BACKGROUND_COLOUR,
        "categories": ["games"],
        "icons": [
            {"src": asset_url(web_dir, src), "sizes": sizes, "type": "image/png", "purpose": use}
            for src, sizes, use in ICONS
        ],
    }


def worker_settings(web_dir: Path, values: Mapping[str, object] | None) -> dict[str, object]:
    """What the worker's code is given: its release, the pages and assets to precache, the
    offline page, and the icons of a notification."""
    pages = ["./", *(f"./{name}.html" for name in page_names(web_dir))]
    return {
        "release": release(web_dir, values),
        "pages": pages,
        "assets": [f"./{asset_url(web_dir, path)}" for path in shell_assets(web_dir)],
        "offline": "./offline.html",
        "manifest": "./manifest.webmanifest",
        "icon": f"./{asset_url(web_dir, NOTIFICATION_ICON)}",
        "badge": f"./{asset_url(web_dir, NOTIFICATION_BADGE)}",
    }


def routes(web_dir: Path, values: Mapping[str, object] | None = None) -> list[BaseRoute]:
    """``/manifest.webmanifest`` and ``/sw.js``, both revalidated on every use (``no-cache``):
    their content changes with each release under the same URL."""

    async def get_manifest(_request: Request) -> Response:
        body = json.dumps(manifest(web_dir), ensure_ascii=False, separators=(",", ":"))
        return Response(
            body,
            media_type="application/manifest+json",
            headers={"cache-control": NO_CACHE},
        )

    async def get_worker(_request: Request) -> Response:
        code = (web_dir / WORKER_SOURCE).read_text(encoding="utf-8")
        given = json.dumps(worker_settings(web_dir, values), separators=(",", ":"))
        return Response(
            f"self.CARDTABLE_SHELL = {given};\n{code}",
            media_type="text/javascript",
            headers={"cache-control": NO_CACHE},
        )

    return [
        Route("/manifest.webmanifest", get_manifest, methods=["GET"], include_in_schema=False),
        Route("/sw.js", get_worker, methods=["GET"], include_in_schema=False),
    ]
