/**
 * The daily deal and statistics routes (docs/api.md, "Daily deal" and "Statistics") on
 * behalf of this browser's player, through core/api.js's `call` (which makes the id on a first
 * visit and replaces one the server no longer knows).
 */

import { call } from "../core/api.js";

const enc = encodeURIComponent;

export const dailyApi = {
  day: (table, day = null) => call("GET", `/api/daily/${enc(table)}${day ? `?day=${enc(day)}` : ""}`),
  play: (table, replaceCounted = false) =>
    call("POST", `/api/daily/${enc(table)}/play`, { replace_counted: replaceCounted }),
  setName: (name) => call("PUT", "/api/daily/me/name", { name }),
  stats: () => call("GET", "/api/stats"),
  history: () => call("GET", "/api/stats/history"),
  exportData: () => call("GET", "/api/stats/export"),
  deleteData: () => call("DELETE", "/api/stats/data"),
};

/** Where the daily page remembers the game of today's attempt, so the Poker Squares screen
 * can offer the way back to the board when it ends. */
export const DAILY_GAME_KEY = "cardtable.daily";

/** Milliseconds until the next UTC midnight (the next daily deal). */
export function msToNextDay(now = Date.now()) {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) - now;
}

/** "HH:MM:SS" for a span of milliseconds. */
export function formatCountdown(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}
