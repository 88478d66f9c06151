"""The pictures docs/ shows, made from the browser tests' screenshots (`make screenshots` runs
the tests that take them, then this): each is scaled to the docs' width, cut to a height,
and written as a small JPEG under docs/img/. Chromium does the scaling and the encoding, so
nothing beyond the tests' own browser is needed.

    python -m tools.screenshots
"""

from __future__ import annotations

import base64
import sys
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "screenshots"
IMG = ROOT / "docs" / "img"


@dataclass(frozen=True)
class Picture:
    source: str
    """The test's screenshot under test-artifacts/screenshots/."""
    width: int
    """CSS pixels wide in the docs (the screenshot is scaled to it)."""
    height: int
    """At most this many pixels tall (the top part of a long page)."""
    test: str
    """The test that takes it (docs/web.md names it under the picture)."""


DOCS = {
    "kc-four-players-phone-en.jpg": Picture(
        "kc-four-players-phone-en.png", 390, 844, "tests/web/kings_corner/test_layout.py"
    ),
    "online-phone-en.jpg": Picture(
        "online-phone-en.jpg", 390, 844, "tests/web/online/test_layout.py"
    ),
    "online-phone-ja.jpg": Picture(
        "online-phone-ja.jpg", 390, 844, "tests/web/online/test_layout.py"
    ),
    "online-story-host-en.jpg": Picture(
        "online-story-host-en.png", 800, 554, "tests/web/online/test_online.py"
    ),
    "review-ps-en-desktop.jpg": Picture(
        "review-ps-en-desktop.png", 800, 820, "tests/web/review/test_review.py"
    ),
    "review-kc-en-desktop.jpg": Picture(
        "review-kc-en-desktop.png", 800, 695, "tests/web/review/test_review.py"
    ),
}


def chromium() -> str:
    from tests.web.conftest import CHROMIUM

    return CHROMIUM


def main() -> int:
    missing = [p.source for p in DOCS.values() if not (SHOTS / p.source).exists()]
    if missing:
        print(f"not taken (run `make screenshots`): {', '.join(missing)}", file=sys.stderr)
        return 1
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium(), args=["--disable-gpu"])
        for name, picture in DOCS.items():
            data = (SHOTS / picture.source).read_bytes()
            kind = "png" if picture.source.endswith(".png") else "jpeg"
            page = browser.new_page(viewport={"width": picture.width, "height": picture.height})
            source = f"data:image/{kind};base64,{base64.b64encode(data).decode()}"
            page.set_content(
                f'<body style="margin:0"><img src="{source}" style="width:100%;display:block">'
            )
            page.wait_for_function("() => document.images[0].complete")
            page.screenshot(path=str(IMG / name), type="jpeg", quality=70)
            page.close()
            print(f"docs/img/{name} <- {picture.source} ({picture.test})")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
