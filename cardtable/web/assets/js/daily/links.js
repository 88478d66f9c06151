/**
 * The daily deal's doors on other pages: a "Daily deal" button (with the countdown to the
 * next deal on the home page), and at the end of a daily deal on the Poker Squares screen,
 * the way back to its board. A page using them loads the "daily" strings (`addBundle`).
 */

import { t } from "../core/i18n.js";
import { storageGet } from "../core/settings.js";
import { DAILY_GAME_KEY, formatCountdown, msToNextDay } from "./api.js";

function link(id, key, href, className = "button") {
  const a = document.createElement("a");
  a.id = id;
  a.className = className;
  a.href = href;
  a.dataset.i18n = key;
  a.textContent = t(key);
  return a;
}

/** A "Daily deal" button placed after `anchor`. */
export function addDailyButton(anchor) {
  if (!anchor || document.getElementById("daily-btn")) return;
  anchor.after(link("daily-btn", "daily.ps_button", "daily.html"));
}

/** The daily button with the countdown to the next deal, appended to `box` (home page). */
export function addDailyCountdown(box) {
  if (!box) return;
  const a = link("daily-home", "daily.home_button", "daily.html", "button primary");
  const time = document.createElement("span");
  time.id = "daily-countdown";
  time.className = "note daily-countdown";
  const tick = () => {
    time.textContent = t("daily.home_next", { time: formatCountdown(msToNextDay()) });
  };
  tick();
  setInterval(tick, 1000);
  box.append(a, time);
}

/** At the end of the daily deal `gameId`, a link back to its board in `section`. */
export function addDailyEndLink(section, gameId) {
  let daily = null;
  try {
    daily = JSON.parse(storageGet(DAILY_GAME_KEY) || "null");
  } catch {
    daily = null;
  }
  if (!daily || daily.id !== gameId) return;
  const p = document.createElement("p");
  p.className = "daily-back";
  // An archive deal goes back to its date in the calendar, with that date's board.
  const back = new URLSearchParams({ table: daily.table });
  if (daily.archive) back.set("archive", daily.day);
  const key = daily.archive ? "daily.back_to_archive" : "daily.back_to_board";
  p.append(link("daily-back", key, `daily.html?${back}`, "button primary"));
  // Right under the total: the way back to the board is what a daily player wants next.
  const result = section.querySelector(".end-result");
  if (result) result.after(p);
  else section.append(p);
}
