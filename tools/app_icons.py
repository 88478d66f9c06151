"""The installed app's icons (docs/web.md, "Installing the app"), drawn from the site's own
artwork: the favicon's two cards (cardtable/web/assets/img/favicon.svg) on the table's felt
(the page background's gradient, base.css). Chromium draws and encodes them, so nothing
beyond the tests' own browser is needed; the PNGs are committed, and this makes them again
after the artwork changes:

    python -m tools.app_icons

- icon-192.png, icon-512.png: rounded felt square, cards filling 72% (purpose "any");
- icon-maskable-512.png: felt to the edges, cards inside the central circle of 80% that every
  platform's mask keeps (purpose "maskable");
- apple-touch-icon-180.png: felt to the edges (iOS rounds the corners itself), no transparency;
- badge-96.png: the heart alone in white on transparent (Android draws a notification's badge
  from its alpha channel only).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "cardtable" / "web" / "assets" / "img"
OUT = IMG / "app"
CHROMIUM = "/usr/bin/chromium"
FELT = (
    '<radialGradient id="felt" cx="50%" cy="0%" r="120%">'
    '<stop offset="0" stop-color="#23603f"/><stop offset=".55" stop-color="#1b4d36"/>'
    '<stop offset="1" stop-color="#0e2c1f"/></radialGradient>'
)


@dataclass(frozen=True)
class Icon:
    name: str
    size: int
    art: float
    """The artwork's box as a share of the icon's side."""
    corner: float
    """The felt square's corner radius as a share of the side (0: square to the edges)."""


ICONS = (
    Icon("icon-192.png", 192, 0.72, 0.22),
    Icon("icon-512.png", 512, 0.72, 0.22),
    # The cards' box inside the safe circle (diameter 80%): its diagonal 0.56 * sqrt 2 < 0.8.
    Icon("icon-maskable-512.png", 512, 0.56, 0.0),
    Icon("apple-touch-icon-180.png", 180, 0.68, 0.0),
)
BADGE = ("badge-96.png", 96)


def favicon_inner() -> str:
    """The favicon's drawing, without its outer <svg> element."""
    text = (IMG / "favicon.svg").read_text(encoding="utf-8")
    return re.sub(r"^\s*<svg[^>]*>|</svg>\s*$", "", text.strip())


def icon_svg(icon: Icon) -> str:
    s = icon.size
    art = s * icon.art
    at = (s - art) / 2
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{s}" height="{s}" viewBox="0 0 {s} {s}">'
        f"<defs>{FELT}</defs>"
        f'<rect width="{s}" height="{s}" rx="{s * icon.corner}" fill="url(#felt)"/>'
        f'<svg x="{at}" y="{at}" width="{art}" height="{art}" viewBox="0 0 64 64">'
        f"{favicon_inner()}</svg></svg>"
    )


def badge_svg(size: int) -> str:
    heart = re.search(r'<path d="([^"]+)"', favicon_inner())
    assert heart is not None
    # The heart spans x 20-56, y 17-50 in the favicon: centred in a 40-unit box.
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="18 13.5 40 40"><path d="{heart.group(1)}" fill="#fff"/></svg>'
    )


def render(page: Page, svg: str, size: int, path: Path) -> None:
    page.set_viewport_size({"width": size, "height": size})
    page.set_content(
        "<!doctype html><style>html,body{margin:0;background:transparent}"
        f"svg{{display:block}}</style>{svg}"
    )
    page.screenshot(
        path=str(path),
        omit_background=True,
        clip={"x": 0, "y": 0, "width": size, "height": size},
    )


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(device_scale_factor=1)
        for icon in ICONS:
            render(page, icon_svg(icon), icon.size, OUT / icon.name)
        render(page, badge_svg(BADGE[1]), BADGE[1], OUT / BADGE[0])
        browser.close()
    for made in sorted(OUT.glob("*.png")):
        print(made.relative_to(ROOT), made.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
