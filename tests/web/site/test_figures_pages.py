"""The how-to-play figures in the browser: both pages at desktop and phone size in both
languages with every figure's image loaded and its numbered marks drawn over it (screenshots
in test-artifacts/screenshots/figures-*.jpg), no horizontal overflow, axe-core clean; the
"your turn" step-through works from the keyboard and fades only without reduced motion; and
the weight of a first visit stays under 400 KB."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.web.a11y import assert_no_axe_violations
from tests.web.conftest import NewPage
from tools.figures.manifest import OUT

LOCALES = {"en": "en-US", "ja": "ja-JP"}
PAGES = {"kc": "/rules-kings-corner.html", "ps": "/rules-poker-squares.html"}
LAYOUTS = json.loads((OUT / "figures.json").read_text())
FIRST_VISIT_BUDGET = 400_000

# Scroll through the page so the lazy images load, then wait for every shown one. Every
# wait is bounded: a lazy image Chromium never starts (CI once hung here for 420 s on
# img.decode()) is made eager, and a decode that has not settled in 20 s counts as not
# loaded, so the assertion below names it instead of the run timing out.
LOAD_ALL = """async () => {
  for (let y = 0; y < document.body.scrollHeight && y < 100000; y += innerHeight / 2) {
    scrollTo(0, y);
    await new Promise((r) => setTimeout(r, 30));
  }
  const shown = [...document.querySelectorAll("article:not([hidden]) .fig-img:not([hidden])")];
  for (const img of shown) img.loading = "eager";
  const late = () => new Promise((r) => setTimeout(r, 20000));
  await Promise.all(shown.map((img) => Promise.race([img.decode().catch(() => null), late()])));
  scrollTo(0, 0);
  return shown.map((img) => [img.dataset.figure, img.naturalWidth, img.currentSrc]);
}"""

MARKS = """() => [...document.querySelectorAll("article:not([hidden]) .fig-media")].map((m) => {
  const img = [...m.querySelectorAll("img")].find((i) => !i.hidden);
  const svg = m.querySelector(".fig-marks");
  const a = img.getBoundingClientRect();
  const b = svg ? svg.getBoundingClientRect() : null;
  return {
    name: img.dataset.figure,
    markers: m.querySelectorAll(".fig-marker").length,
    arrows: m.querySelectorAll(".fig-arrow").length,
    fits: b !== null && Math.abs(a.width - b.width) < 1 && Math.abs(a.height - b.height) < 1,
  };
})"""


def open_page(new_page: NewPage, path: str, lang: str, **options: object) -> Page:
    page = new_page(locale=LOCALES[lang], **options)
    page.goto(path)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("body.ready")).to_have_count(1)
    expect(page.locator("article:not([hidden]) .fig-marks").first).to_be_attached()
    return page


@pytest.mark.parametrize("lang", ["en", "ja"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
@pytest.mark.parametrize("game", ["kc", "ps"])
def test_pages_show_every_figure_with_its_marks(
    new_page: NewPage, screenshot_dir: Path, game: str, phone: bool, lang: str
) -> None:
    page = open_page(new_page, PAGES[game], lang, phone=phone)
    where = f"{game} {'phone' if phone else 'desktop'} {lang}"
    loaded = page.evaluate(LOAD_ALL)
    assert loaded and all(width > 0 for _, width, _ in loaded), f"{where}: {loaded}"
    # A phone (2x) gets the 2x files, a desktop (1x) the 1x ones.
    assert all(("@2x." in src) == phone for _, _, src in loaded), f"{where}: {loaded}"
    for fig in page.evaluate(MARKS):
        layout = LAYOUTS[fig["name"]]
        assert fig["markers"] == len(layout["markers"]), f"{where}: {fig}"
        assert fig["arrows"] == len(layout["arrows"]), f"{where}: {fig}"
        assert fig["fits"], f"{where}: the marks of {fig['name']} do not cover the image"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"{where}: {overflow} px of horizontal overflow"
    size = "phone" if phone else "desktop"
    started = time.monotonic()
    # JPEG: a whole phone page at 2x is some 20,000 pixels tall (PNG takes several seconds).
    shot = screenshot_dir / f"figures-{game}-{size}-{lang}.jpg"
    page.screenshot(path=shot, full_page=True, type="jpeg", quality=70)
    print(f"{where}: screenshot {time.monotonic() - started:.1f} s")
    # axe-core takes seconds a page: two of the four sizes and languages here (with every
    # figure loaded); tests/web/site/test_a11y.py runs it on all four.
    if phone == (lang == "ja"):
        assert_no_axe_violations(page, where)


def visible_step(page: Page) -> str:
    return page.locator(".steps:visible .fig-img:not([hidden])").get_attribute("data-figure") or ""


def test_the_turn_steps_by_keyboard(new_page: NewPage) -> None:
    page = open_page(new_page, PAGES["kc"], "en")
    steps = page.locator(".steps:visible")
    prev = steps.locator("[data-step=prev]")
    nxt = steps.locator("[data-step=next]")
    status = steps.locator(".step-status")
    expect(status).to_have_text("Step 1 of 5")
    expect(prev).to_be_disabled()
    assert visible_step(page) == "kc-turn-1"
    nxt.focus()
    page.keyboard.press("Enter")
    expect(status).to_have_text("Step 2 of 5")
    assert visible_step(page) == "kc-turn-2"
    expect(steps.locator(".fig-keys > li").nth(1)).to_have_attribute("aria-current", "step")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text("Step 3 of 5")
    assert steps.locator(".fig-marker").count() == len(LAYOUTS["kc-turn-3"]["markers"])
    page.keyboard.press("End")
    expect(status).to_have_text("Step 5 of 5")
    expect(nxt).to_be_disabled()
    expect(prev).to_be_focused()  # the focus is not lost with the disabled button
    page.keyboard.press("Home")
    expect(status).to_have_text("Step 1 of 5")
    expect(nxt).to_be_focused()
    # Japanese has its own words for the same steps.
    page.locator("[data-set-lang=ja]").click()
    expect(page.locator(".steps:visible .step-status")).to_have_text("1 / 5")


FADE = """() => getComputedStyle(document.querySelector(
  "article:not([hidden]) .steps .fig-media.fade .fig-img:not([hidden])")).animationName"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_steps_fade_only_without_reduced_motion(new_page: NewPage, motion: str) -> None:
    page = open_page(new_page, PAGES["kc"], "en", reduced_motion=motion)
    page.locator(".steps:visible [data-step=next]").click()
    expect(page.locator(".steps:visible .step-status")).to_have_text("Step 2 of 5")
    assert page.evaluate(FADE) == ("none" if motion == "reduce" else "fig-in")


@pytest.mark.parametrize("game", ["kc", "ps"])
def test_first_visit_weight(new_page: NewPage, game: str) -> None:
    """Everything a first visit downloads (no cache) before the reader scrolls."""
    page = new_page(phone=True, fresh=True)
    sizes: dict[str, int] = {}
    page.on("requestfinished", lambda r: sizes.__setitem__(r.url, r.sizes()["responseBodySize"]))
    page.goto(PAGES[game])
    expect(page.locator(".fig-marks").first).to_be_attached()
    page.wait_for_load_state("networkidle")
    total = sum(sizes.values())
    print(f"first visit {PAGES[game]} (phone, 2x images): {total} bytes in {len(sizes)} files")
    assert total < FIRST_VISIT_BUDGET, sorted(sizes.items(), key=lambda kv: -kv[1])[:8]
    # For the record: the whole page read to the end (every figure of one language).
    page.evaluate(LOAD_ALL)
    page.wait_for_load_state("networkidle")
    print(f"  read to the end: {sum(sizes.values())} bytes in {len(sizes)} files")
