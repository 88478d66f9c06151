/**
 * What both game screens share to talk back to the player: the polite live region (`#live`),
 * the log of sentences said in turn (`announceInOrder`), the error line (`#error`), the router that turns an `ApiError` into a message or into the
 * screen's own reaction, and keyboard shortcuts that stay out of the way of form fields.
 */

import { t } from "./i18n.js";
import { playSound } from "./sound.js";

let liveTimer = 0;

/** Says `text` in the live region (emptied first, so the same sentence twice is read twice). */
export function announce(text) {
  const live = document.getElementById("live");
  if (!live) return;
  live.textContent = "";
  clearTimeout(liveTimer);
  liveTimer = setTimeout(() => {
    live.textContent = text.charAt(0).toUpperCase() + text.slice(1);
  }, 30);
}

const KEPT_IN_ORDER = 8;

/**
 * Says `text` after whatever is still being said: appended to `#live-log`, a polite log
 * region (made on first use), so a screen reader queues each sentence where `announce` would
 * cut the last one short. For sentences that follow each other faster than they can be read
 * (a computer's turns at the instant pace); only the last few stay in the page.
 */
export function announceInOrder(text) {
  let log = document.getElementById("live-log");
  if (!log) {
    log = document.createElement("div");
    log.id = "live-log";
    log.className = "visually-hidden";
    log.setAttribute("role", "log");
    log.setAttribute("aria-live", "polite");
    log.setAttribute("aria-relevant", "additions");
    document.body.append(log);
  }
  const line = document.createElement("p");
  line.textContent = text.charAt(0).toUpperCase() + text.slice(1);
  log.append(line);
  while (log.children.length > KEPT_IN_ORDER) log.firstElementChild.remove();
}

/** Shows the message of i18n `key` in the error line (with the error sound), or clears it. */
export function showError(key) {
  const line = document.getElementById("error");
  if (line) line.textContent = key ? t(key) : "";
  if (key) playSound("error");
}

/**
 * An error handler for a screen. `handlers` maps the codes the screen treats itself
 * (`stale_version`, `illegal_move`, `not_found`, ...) to a function of the error; a handler
 * that returns `false` declines, and the error gets the shared message. Every other code gets
 * the shared message: `error.network`, `error.rate_limited`, else `error.unknown`. A signed-out
 * device (`revoked`) gets none: api.js has asked for the signed-out dialog, which says what
 * happened, so the error line is cleared rather than saying "something went wrong" behind it.
 */
export function errorRouter(handlers) {
  return function handleError(err) {
    const code = err?.code;
    if (code === "revoked") {
      showError(null);
      return;
    }
    const own = code && Object.hasOwn(handlers, code) ? handlers[code] : null;
    if (own && own(err) !== false) return;
    showError(code === "network" || code === "rate_limited" ? `error.${code}` : "error.unknown");
  };
}

/** True when a key press belongs to a form field or a dialog, not to the screen. */
export function isTyping(target) {
  return target instanceof HTMLElement && Boolean(target.closest("input, select, textarea, dialog"));
}

/**
 * Single-key shortcuts for a screen: `keys` maps a lower-case `KeyboardEvent.key` ("z", "p",
 * "escape", "1", ...) to an action. They apply while `active()` is true, never with Alt, Ctrl
 * or Meta held and never while typing; a key that runs an action has its default prevented.
 */
export function onShortcuts(active, keys) {
  document.addEventListener("keydown", (ev) => {
    if (!active() || ev.altKey || ev.ctrlKey || ev.metaKey || isTyping(ev.target)) return;
    const key = ev.key.toLowerCase();
    if (!Object.hasOwn(keys, key)) return;
    keys[key]();
    ev.preventDefault();
  });
}
