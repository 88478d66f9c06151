"""Accessibility checks for browser tests: axe-core (pinned through `axe-playwright-python`,
which bundles it, so no Node is needed) and the size of tap targets on phone layouts.

    assert_no_axe_violations(page, "kings corner, a card chosen")
    assert_tap_targets(page, "poker squares, phone")   # every visible control >= 44x44 px
    check_screen(page, "kings corner, table (phone)", phone=True)  # both, inside <main>
"""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

AXE = Axe()
MIN_TARGET = 44
"""The smallest tap target on a phone, in CSS pixels (WCAG 2.5.5, Apple and Android guides)."""

# Every control a finger can press. Inline links inside running text are exempt (WCAG 2.5.5:
# "the target is in a sentence or block of text"); they are marked with `data-inline-link`
# or sit inside a paragraph.
_TARGETS_JS = """
([min, within]) => {
  const found = [];
  const root = within ? document.querySelector(within) : document;
  if (!root) return [`nothing matches ${within}`];
  const controls = root.querySelectorAll(
    'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button],'
    + ' [role=gridcell][tabindex], [tabindex="0"]'
  );
  for (const el of controls) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    if (el.closest('[hidden], [inert], [aria-hidden=true]')) continue;
    if (el.matches('a') && el.closest('p, li p, td, figcaption')) continue;
    // An input whose label is big enough is reached through it (a checkbox inside its label,
    // a visually hidden file input behind a label drawn as a button).
    if (el.matches('input') && [...(el.labels || [])].some((label) => {
      const box = label.getBoundingClientRect();
      return box.width >= min && box.height >= min;
    })) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // Off the page until focused (a skip link): not a target a finger can reach.
    if (r.bottom <= 0 || r.right <= 0) continue;
    if (r.width < min || r.height < min) {
      const name = (el.getAttribute('aria-label') || el.textContent || el.id || el.tagName)
        .trim().slice(0, 40);
      found.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${name}"`
        + ` ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return found;
}
"""


# axe-core is injected once per document (not before every run, as `Axe.run` does: half a
# megabyte of script each time), and only the violations come back over the wire (the passes
# and inapplicable rules are most of a full result and nothing here reads them).
_HAS_AXE_JS = "() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"
_RUN_AXE_JS = """
([within, options]) => axe.run(within === null ? document : within, options)
  .then(results => results.violations)
"""


def axe_violations(page: Page, within: str | None = None, **options: Any) -> list[str]:
    """One line per axe-core violation on the page as it is now (or in the element `within`
    selects): rule, impact, where."""
    if not page.evaluate(_HAS_AXE_JS):
        page.evaluate(AXE.axe_script)
    violations = page.evaluate(_RUN_AXE_JS, [within, {"resultTypes": ["violations"], **options}])
    lines = []
    for v in violations:
        targets = [", ".join(node["target"]) for node in v["nodes"][:5]]
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}x): {'; '.join(targets)}")
    return lines


# Experimental in axe-core 4.x and off by default, but it is the rule voice-control users
# need (a control's name starts with what it shows): every check here turns it on.
EXTRA_RULES = {"label-content-name-mismatch": {"enabled": True}}


def assert_no_axe_violations(page: Page, where: str, within: str | None = None) -> None:
    found = axe_violations(page, within, rules=EXTRA_RULES)
    assert not found, f"axe-core on {where}:\n" + "\n".join(found)


def small_tap_targets(
    page: Page, minimum: int = MIN_TARGET, within: str | None = None
) -> list[str]:
    """Visible controls (in the element `within` selects, else anywhere) smaller than
    ``minimum`` CSS pixels either way."""
    result: list[str] = page.evaluate(_TARGETS_JS, [minimum, within])
    return result


def assert_tap_targets(
    page: Page, where: str, minimum: int = MIN_TARGET, within: str | None = None
) -> None:
    found = small_tap_targets(page, minimum, within)
    assert not found, f"tap targets under {minimum} px on {where}:\n" + "\n".join(found)


def check_screen(page: Page, where: str, *, phone: bool) -> None:
    """A game screen's state: axe-core on the whole page and, on a phone, 44 px tap targets
    inside ``<main>`` (the shared header is checked by the site-wide sweep)."""
    assert_no_axe_violations(page, where)
    if phone:
        assert_tap_targets(page, where, within="main")
