"""What a figure depends on, hashed: its description (position, markers, arrows, facts) and
the source files that draw it. The generator stores the hashes in ``manifest.json``; the
out-of-date test recomputes them without a browser."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .positions import FIGURES, describe

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
WEB = ROOT / "cardtable" / "web"
OUT = WEB / "assets" / "img" / "figures"
MANIFEST = HERE / "manifest.json"
SIZES_TEMPLATE = WEB / "templates" / "_figure_sizes.html"

# The files whose change can change a picture (the render page, the game screens' drawing code
# and style sheets, and this tool).
SOURCES = (
    "tools/figures/render.html",
    "tools/figures/render.js",
    "tools/figures/render.css",
    "tools/figures/generate.py",
    "cardtable/web/assets/js/core/cards.js",
    "cardtable/web/assets/js/core/i18n.js",
    "cardtable/web/assets/js/kings-corner/table.js",
    "cardtable/web/assets/js/kings-corner/text.js",
    "cardtable/web/assets/js/poker-squares/board.js",
    "cardtable/web/assets/css/base.css",
    "cardtable/web/assets/css/cards.css",
    "cardtable/web/assets/css/kings-corner.css",
    "cardtable/web/assets/css/poker-squares.css",
    "cardtable/web/assets/img/card-back.svg",
)


def sources_hash() -> str:
    h = hashlib.sha256()
    for rel in SOURCES:
        h.update(rel.encode() + b"\0" + (ROOT / rel).read_bytes() + b"\0")
    return h.hexdigest()


def description_hash(description: dict[str, Any]) -> str:
    text = json.dumps(description, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def current() -> dict[str, Any]:
    """The manifest the figures should have now: one hash per figure and one for the sources."""
    return {
        "sources": sources_hash(),
        "figures": {f.name: description_hash(describe(f)) for f in FIGURES},
    }
