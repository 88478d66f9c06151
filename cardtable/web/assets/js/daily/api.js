/**
 * The daily deal and statistics routes (docs/api.md, "Daily deal" and "Statistics") on
 * behalf of this browser's player, through core/api.js's `call` (which makes the id on a first
 * visit and replaces one the server no longer knows).
 */

import { call } from "../core/api.js";

const enc = encodeURIComponent;

export const dailyApi = {
  /** The date `day`'s daily, or (null) this device's own date's (docs/daily.md, "Your own
   * midnight"); when no time zone is on that date yet (this device's clock is ahead), the
   * server's own (UTC) date. */
  async day(table, day = null) {
    const path = `/api/daily/${enc(table)}`;
    if (day) return call("GET", `${path}?day=${enc(day)}`);
    try {
      return await call("GET", `${path}?day=${localDay()}`);
    } catch (err) {
      if (err?.code !== "not_found") throw err;
      return call("GET", path);
    }
  },
  /** Deals the date `day` (this device's own date when null). */
  play: (table, replaceCounted = false, day = null) =>
    call("POST", `/api/daily/${enc(table)}/play`, { replace_counted: replaceCounted, day: day || localDay() }),
  /** The archive's calendar of `month` ("YYYY-MM"), and a past date dealt as practice. */
  archive: (table, month) => call("GET", `/api/daily/archive/${enc(table)}?month=${enc(month)}`),
  archivePlay: (table, day, replaceCounted = false) =>
    call("POST", `/api/daily/${enc(table)}/archive/${enc(day)}/play`, { replace_counted: replaceCounted }),
  setName: (name) => call("PUT", "/api/daily/me/name", { name }),
  stats: () => call("GET", "/api/stats"),
  history: () => call("GET", "/api/stats/history"),
  exportData: () => call("GET", "/api/stats/export"),
  deleteData: () => call("DELETE", "/api/stats/data"),
};

/** Where the daily page remembers the game of today's attempt, so the Poker Squares screen
 * can offer the way back to the board when it ends. */
export const DAILY_GAME_KEY = "cardtable.daily";

/** This device's calendar date, "YYYY-MM-DD": the daily it plays. */
export function localDay(now = Date.now()) {
  const d = new Date(now);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Milliseconds until this device's next midnight (its next daily deal). */
export function msToNextDay(now = Date.now()) {
  const d = new Date(now);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() - now;
}

/** "HH:MM:SS" for a span of milliseconds. */
export function formatCountdown(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}
