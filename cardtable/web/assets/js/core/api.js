/**
 * The only module that talks to the server (docs/api.md): each feature's client (its folder's
 * api.js) goes through `call` or `request` here. It keeps the anonymous player id (through
 * settings.js, so a browser without storage keeps it in memory) and turns error answers into
 * `ApiError` with the contract's `code`.
 */

import { noteFairness } from "./fairness.js";
import { storageGet, storageSet } from "./settings.js";

const PLAYER_KEY = "cardtable.player";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || body?.code || `HTTP ${status}`);
    this.status = status;
    this.code = body?.code || (status === 0 ? "network" : "unknown");
    this.current = body?.current ?? null;
    this.body = body ?? null;
  }
}

export function hasPlayer() {
  return Boolean(storageGet(PLAYER_KEY));
}

/**
 * One request to the server, the only `fetch` of the API: JSON in (`body`) and out (null for
 * an empty answer), or the answer's text with `{ text: true }` (an SVG); error answers become
 * `ApiError`; a fairness commitment in an answer is noted (fairness.js, docs/fairness.md).
 * `playerId`, when given, goes in `X-Player-Id`. Most code wants `call` (on behalf of this
 * browser's player); `request` is for the few routes that take any or no player.
 */
export async function request(method, path, body, playerId = null, { text = false } = {}) {
  const headers = { Accept: text ? "*/*" : "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (playerId) headers["X-Player-Id"] = playerId;
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
  if (text && response.ok) return response.text();
  const data = await response.json().catch(() => null);
  noteFairness(data);
  if (!response.ok) {
    const err = new ApiError(response.status, data);
    err.retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw err;
  }
  return data;
}

let creating = null;

async function playerId() {
  const known = storageGet(PLAYER_KEY);
  if (known) return known;
  if (!creating) {
    creating = request("POST", "/api/players").then(
      (data) => {
        storageSet(PLAYER_KEY, data.player_id);
        creating = null;
        return data.player_id;
      },
      (err) => {
        creating = null;
        throw err;
      },
    );
  }
  return creating;
}

/** This browser's player id (created on first use): the live channel's hello carries it. */
export function ensurePlayer() {
  return playerId();
}

/** This browser's stored player id, or null; nothing is created. */
export function storedPlayer() {
  return storageGet(PLAYER_KEY);
}

/** Makes `id` (a credential from a transfer code or a recovery file, docs/devices.md) this
 * browser's player id. */
export function adoptPlayer(id) {
  storageSet(PLAYER_KEY, id);
}

/** The event a signed-out device raises on `document`. */
export const REVOKED_EVENT = "cardtable:revoked";

/** A signed-out device (`401 revoked`): raises `REVOKED_EVENT`, which the devices feature
 * answers with the dialog offering a fresh start or a transfer code (devices/revoked.js,
 * listened for on every page by shell/boot.js). This module imports no feature. The id is
 * never replaced silently. */
export function noteRevoked() {
  document.dispatchEvent(new CustomEvent(REVOKED_EVENT));
}

/**
 * A call on behalf of this browser's player (made on first use); an unknown id (a reset
 * server) is replaced once; a revoked one asks for the signed-out dialog and fails.
 * `options` as `request`'s.
 */
export async function call(method, path, body, options) {
  const id = await playerId();
  try {
    return await request(method, path, body, id, options);
  } catch (err) {
    if (err.code === "revoked") noteRevoked();
    if (err.code !== "no_player") throw err;
    storageSet(PLAYER_KEY, null);
    return request(method, path, body, await playerId(), options);
  }
}

/** What is not one game's: the unfinished games of this browser's player (home, Continue).
 * Each game and feature has its own client beside its page: poker-squares/api.js,
 * kings-corner/api.js, online/api.js, daily/api.js, review/api.js. */
export const api = {
  continueGames: () => call("GET", "/api/continue"),
};
