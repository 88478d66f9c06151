"""Draw every figure of the how-to-play pages in headless Chromium with the game screens' own
code, and write the images, the marker positions and the manifest.

    make figures        # or: .venv/bin/python -m tools.figures

For each figure (`positions.FIGURES`): the position comes from the engine; the private render
page (render.html, served here from memory, never by the site) draws it with the site's modules
kings-corner/table.js, poker-squares/board.js or core/cards.js; the named parts the markers and
arrows point at are measured there; the screenshot is encoded as WebP at 1x and 2x by the
browser's own encoder. Written:

- ``cardtable/web/assets/img/figures/<name>.webp`` and ``<name>@2x.webp`` (each under 60 KB),
- ``cardtable/web/assets/img/figures/figures.json``: per figure its size in CSS pixels and its
  markers and arrows in percent of the image (rules/figures.js draws them as SVG over it),
- ``cardtable/web/templates/_figure_sizes.html``: the sizes, for the images' width and height,
- ``tools/figures/manifest.json``: the hashes the out-of-date test checks.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Route, sync_playwright

from .manifest import HERE, MANIFEST, OUT, SIZES_TEMPLATE, WEB, current
from .positions import FIGURES, describe

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--disable-gpu", "--disable-quic", "--no-sandbox", "--disable-background-networking"]
BASE = "http://figures.invalid"
MAX_BYTES = 60_000
INSET = -3.0  # px: a marker sits this far inside the corner of its part (negative: outside)


def _serve(route: Route) -> None:
    path = route.request.url.removeprefix(BASE).split("?")[0].lstrip("/")
    file = WEB / path if path.startswith("assets/") else HERE / path
    if not file.is_file():
        route.fulfill(status=404, body="not found")
        return
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".js":
        kind = "text/javascript"
    route.fulfill(status=200, body=file.read_bytes(), headers={"content-type": kind})


def _point(box: dict[str, float], corner: str) -> tuple[float, float]:
    x0, y0, w, h = box["x"], box["y"], box["w"], box["h"]
    xs = {"l": x0 + INSET, "c": x0 + w / 2, "r": x0 + w - INSET}
    ys = {"t": y0 + INSET, "c": y0 + h / 2, "b": y0 + h - INSET}
    named = {
        "tl": "lt",
        "tr": "rt",
        "bl": "lb",
        "br": "rb",
        "c": "cc",
        "t": "ct",
        "b": "cb",
        "l": "lc",
        "r": "rc",
    }
    hx, vy = named[corner]
    return xs[hx], ys[vy]


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["w"] / 2, box["y"] + box["h"] / 2


def _edge(box: dict[str, float], toward: tuple[float, float], gap: float) -> tuple[float, float]:
    """Where the line from the box's centre to `toward` leaves the box, `gap` px further out."""
    cx, cy = _centre(box)
    dx, dy = toward[0] - cx, toward[1] - cy
    length = max((dx * dx + dy * dy) ** 0.5, 1e-6)
    tx = box["w"] / 2 / abs(dx) if dx else float("inf")
    ty = box["h"] / 2 / abs(dy) if dy else float("inf")
    t = min(tx, ty, 1.0)
    return cx + dx * t + gap * dx / length, cy + dy * t + gap * dy / length


def _layout(desc: dict[str, Any], measured: dict[str, Any]) -> dict[str, Any]:
    w, h = measured["width"], measured["height"]
    boxes = measured["anchors"]

    def pct(p: tuple[float, float]) -> list[float]:
        return [round(100 * p[0] / w, 2), round(100 * p[1] / h, 2)]

    markers = [
        {"n": m["n"], "at": pct(_point(boxes[m["at"]], m["corner"]))} for m in desc["markers"]
    ]
    arrows = []
    for a in desc["arrows"]:
        s, e = _centre(boxes[a["start"]]), _centre(boxes[a["end"]])
        start = _edge(boxes[a["start"]], e, 2)
        end = _edge(boxes[a["end"]], s, 1)
        arrows.append({"from": pct(start), "to": pct(end), "style": a["style"]})
    return {"width": round(w), "height": round(h), "markers": markers, "arrows": arrows}


def _webp(page: Any, png: bytes, scale: float) -> bytes:
    for quality in (0.82, 0.72, 0.6, 0.5):
        data = base64.b64decode(
            page.evaluate(
                "([p, q, s]) => toWebp(p, q, s)", [base64.b64encode(png).decode(), quality, scale]
            )
        )
        if len(data) < MAX_BYTES:
            return data
    raise SystemExit(f"a figure stays over {MAX_BYTES} bytes even at quality 0.5")


def generate(only: set[str] | None = None) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    layouts: dict[str, Any] = {}
    old = OUT / "figures.json"
    if only and old.is_file():
        layouts = json.loads(old.read_text())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(
            viewport={"width": 480, "height": 1000}, device_scale_factor=2
        )
        context.route(f"{BASE}/**", _serve)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for figure in FIGURES:
            if only and figure.name not in only:
                continue
            desc = describe(figure)
            anchors = sorted(
                {m["at"] for m in desc["markers"]}
                | {a["start"] for a in desc["arrows"]}
                | {a["end"] for a in desc["arrows"]}
            )
            page.goto(f"{BASE}/render.html")
            page.wait_for_function("window.renderReady === true")
            measured = page.evaluate("([s, a]) => drawFigure(s, a)", [desc["spec"], anchors])
            if errors:
                raise SystemExit(f"{figure.name}: {errors}")
            png = page.locator("#stage").screenshot(animations="disabled")
            (OUT / f"{figure.name}@2x.webp").write_bytes(_webp(page, png, 1.0))
            (OUT / f"{figure.name}.webp").write_bytes(_webp(page, png, 0.5))
            layouts[figure.name] = _layout(desc, measured)
            print(
                f"{figure.name}: {layouts[figure.name]['width']}x{layouts[figure.name]['height']}",
                file=sys.stderr,
            )
        browser.close()
    names = [f.name for f in FIGURES]
    layouts = {n: layouts[n] for n in names if n in layouts}
    old.write_text(json.dumps(layouts, indent=2, sort_keys=True) + "\n")
    # Formatted as Biome wants it (make lint checks every JSON file under cardtable/web).
    biome = Path(sys.executable).parent / "biome"
    subprocess.run([str(biome), "format", "--write", str(old)], check=True, capture_output=True)
    sizes = ", ".join(f'"{n}": [{v["width"]}, {v["height"]}]' for n, v in layouts.items())
    SIZES_TEMPLATE.write_text(
        "{# Written by tools/figures (make figures): each figure's size in CSS pixels. #}\n"
        f"{{% set SIZES = {{{sizes}}} %}}\n"
    )
    MANIFEST.write_text(json.dumps(current(), indent=1, sort_keys=True) + "\n")


def main(argv: list[str]) -> None:
    generate(set(argv) or None)
