/**
 * The daily deal and statistics routes (docs/api.md, "Daily deal" and "Statistics") on
 * behalf of this browser's player. The player id is api.js's: a first visit makes one
 * through it, and an id the server no longer knows is replaced once, as api.js does.
 */

import { ApiError, api, hasPlayer } from "./api.js";
import { storageGet, storageSet } from "./settings.js";

const PLAYER_KEY = "cardtable.player";

async function send(method, path, body) {
  if (!hasPlayer()) await api.continueGames(); // api.js makes and keeps the id
  const headers = { Accept: "application/json", "X-Player-Id": storageGet(PLAYER_KEY) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, { code: "network" });
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

async function call(method, path, body) {
  try {
    return await send(method, path, body);
  } catch (err) {
    if (err.code !== "no_player") throw err;
    storageSet(PLAYER_KEY, null);
    return send(method, path, body);
  }
}

const enc = encodeURIComponent;

export const dailyApi = {
  day: (table, day = null) => call("GET", `/api/daily/${enc(table)}${day ? `?day=${enc(day)}` : ""}`),
  play: (table) => call("POST", `/api/daily/${enc(table)}/play`),
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
