/**
 * The pieces of a table's lobby that any table page uses (the Kings Corner online page's
 * lobby.js, the Poker Squares table's pstable/lobby.js): the room code shown and spoken, the
 * invite link copied, and countdowns. A countdown is an element with `data-deadline` (server
 * epoch seconds) that `tickCountdowns` rewrites from the server clock.
 */

import { announce } from "../core/feedback.js";
import { t } from "../core/i18n.js";

/** "0:42" */
export function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** A text that counts down to `deadline`: `key` is given the time left as `time`. */
export function countdown(className, key, deadline, serverNow) {
  const span = document.createElement("span");
  span.className = `countdown ${className}`;
  span.dataset.deadline = String(deadline);
  span.dataset.key = key;
  span.textContent = t(key, { time: clock(deadline - serverNow()) });
  return span;
}

/** Rewrites every countdown on the page. */
export function tickCountdowns(serverNow) {
  const now = serverNow();
  for (const span of document.querySelectorAll("[data-deadline]")) {
    span.textContent = t(span.dataset.key, { time: clock(Number(span.dataset.deadline) - now) });
  }
}

/** "K7Q M2X" for the eye in `node`; spoken letter by letter. */
export function showCode(node, code) {
  node.textContent = `${code.slice(0, 3)} ${code.slice(3)}`;
  node.setAttribute("aria-label", t("kco.code_spoken", { letters: code.split("").join(" ") }));
}

/** Copies the link in `input` (or selects it when the clipboard refuses) and says which;
 * `said(text)` also shows the words where the page has a line for them. */
export async function copyLink(input, said = () => {}) {
  try {
    await navigator.clipboard.writeText(input.value);
    said(t("kco.copied"));
    announce(t("kco.copied"));
  } catch {
    input.select();
    announce(t("kco.copy_failed"));
  }
}
