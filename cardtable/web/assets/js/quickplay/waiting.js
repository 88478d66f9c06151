/**
 * The quick-play waiting state on the home page: what this player waits for (how many
 * players, which rules), how many wait now in the queues they could be seated from, how long
 * they have waited, and when computers take the empty seats (the server's `fill_at`, shown in
 * this reader's local time and counted down). `skew` is the server's clock minus this one, in
 * milliseconds; the countdown never shows more than the wait the server allows.
 */

import { currentLanguage, t } from "../core/i18n.js";

const $ = (id) => document.getElementById(id);
/** From this many seconds on, the countdown counts minutes. */
const LONG = 100;

/** "0:07", "1:42", "12:05": minutes and seconds. */
function clock(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** "2:34:36 PM", "14:34:36": the reader's clock, never broken across lines. */
function localTime(iso) {
  return new Intl.DateTimeFormat(currentLanguage(), {
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
  })
    .format(new Date(iso))
    .replace(/\s/g, "\u00a0");
}

function title(status) {
  if (status.players === null || status.players === undefined) return t("quick.looking_any");
  return t("quick.looking", { n: status.players });
}

/** The facts that change only with a new answer: who is waiting, the rules. */
function facts(status) {
  const parts = [t("quick.waiting_n", { n: status.waiting ?? 1 })];
  if (status.preset) parts.push(t("quick.rules_in", { rules: t(`kc.rule_set.${status.preset}`) }));
  return parts.join(t("quick.sep"));
}

/** Seconds until computers fill the empty seats (0 once the time has come). */
export function secondsToFill(status, skew) {
  const fill = Date.parse(status.fill_at);
  const since = Date.parse(status.since);
  const now = Date.now() + skew;
  // A clock that disagrees with the server's still counts down from no more than the wait.
  const left = Math.min(fill - now, fill - since);
  return Math.max(0, Math.ceil(left / 1000));
}

/** Draws the waiting state from a `GET /api/quick-play` answer. */
export function drawWaiting(status, skew) {
  $("qp-wait-title").textContent = title(status);
  $("qp-wait-facts").textContent = facts(status);
  tickWaiting(status, skew);
}

/** Moves the waiting clock and the countdown on (called every second, no request). */
export function tickWaiting(status, skew) {
  const now = Date.now() + skew;
  $("qp-waited").textContent = t("quick.waited", { time: clock(now - Date.parse(status.since)) });
  const left = secondsToFill(status, skew);
  const fill = $("qp-fill");
  const time = localTime(status.fill_at);
  if (left <= 0) fill.textContent = t("quick.fill_now");
  else if (left < LONG) fill.textContent = t("quick.fill_at", { time, n: left });
  else fill.textContent = t("quick.fill_at_min", { time, n: Math.ceil(left / 60) });
  fill.dataset.left = String(left);
}
