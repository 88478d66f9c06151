/**
 * The only module that talks to the server (docs/api.md). It keeps the anonymous player id
 * (through settings.js, so a browser without storage keeps it in memory) and turns error
 * answers into `ApiError` with the contract's `code`.
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
  }
}

export function hasPlayer() {
  return Boolean(storageGet(PLAYER_KEY));
}

async function send(method, path, body, playerId) {
  const headers = { Accept: "application/json" };
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
  const data = await response.json().catch(() => null);
  noteFairness(data); // commitments seen before their reveal (fairness.js, docs/fairness.md)
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

let creating = null;

async function playerId() {
  const known = storageGet(PLAYER_KEY);
  if (known) return known;
  if (!creating) {
    creating = send("POST", "/api/players").then(
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

/** A call on behalf of this browser's player; an unknown id (a reset server) is replaced once. */
async function call(method, path, body) {
  const id = await playerId();
  try {
    return await send(method, path, body, id);
  } catch (err) {
    if (err.code !== "no_player") throw err;
    storageSet(PLAYER_KEY, null);
    return send(method, path, body, await playerId());
  }
}

export const api = {
  continueGames: () => call("GET", "/api/continue"),
  newPokerSquares: (table, target, replayOf = null) =>
    call("POST", "/api/poker-squares/games", { table, target, replay_of: replayOf }),
  getPokerSquares: (id) => call("GET", `/api/poker-squares/games/${encodeURIComponent(id)}`),
  place: (game, row, col) =>
    call("POST", `/api/poker-squares/games/${encodeURIComponent(game.id)}/moves`, {
      version: game.version,
      row,
      col,
    }),
  undo: (game) =>
    call("POST", `/api/poker-squares/games/${encodeURIComponent(game.id)}/undo`, {
      version: game.version,
    }),
  hint: (game) =>
    call("POST", `/api/poker-squares/games/${encodeURIComponent(game.id)}/hint`, {
      version: game.version,
    }),
  pokerSquaresScores: () => call("GET", "/api/poker-squares/scores"),
};

const KC = "/api/kings-corner/games";
const kcPath = (game, action) => `${KC}/${encodeURIComponent(game.id)}/${action}`;

/** Kings Corner (docs/api.md): every change is sent with the version it was made against. */
export const kcApi = {
  create: (seats, rules, rounds) => call("POST", KC, { seats, rules, rounds }),
  get: (id) => call("GET", `${KC}/${encodeURIComponent(id)}`),
  move: (game, move) => call("POST", kcPath(game, "moves"), { version: game.version, move }),
  undo: (game) => call("POST", kcPath(game, "undo"), { version: game.version }),
  reveal: (game) => call("POST", kcPath(game, "reveal"), { version: game.version }),
  computerStep: (game) => call("POST", kcPath(game, "computer-step"), { version: game.version }),
  nextRound: (game) => call("POST", kcPath(game, "next-round"), { version: game.version }),
  results: () => call("GET", "/api/kings-corner/results"),
};

const KCO = "/api/kings-corner/online";
const onlinePath = (table, action) => `${KCO}/${encodeURIComponent(table.token)}/${action}`;
const versioned = (table, extra = {}) => ({ version: table.version, ...extra });

/** Kings Corner online (docs/online.md): plain POSTs for what a device does, each with the
 * table's version; what the server tells the device comes over the live channel. */
export const onlineApi = {
  create: (body) => call("POST", KCO, body),
  findCode: (code) => call("GET", `${KCO}/codes/${encodeURIComponent(code)}`),
  get: (token) => call("GET", `${KCO}/${encodeURIComponent(token)}`),
  join: (table, name, seat = null) => call("POST", onlinePath(table, "join"), versioned(table, { name, seat })),
  leave: (table) => call("POST", onlinePath(table, "leave"), versioned(table)),
  seatComputer: (table, seat, strength) =>
    call("POST", onlinePath(table, `seats/${seat}`), versioned(table, { kind: "computer", strength })),
  start: (table) => call("POST", onlinePath(table, "start"), versioned(table)),
  move: (table, move) => call("POST", onlinePath(table, "moves"), versioned(table, { move })),
  undo: (table) => call("POST", onlinePath(table, "undo"), versioned(table)),
  reveal: (table) => call("POST", onlinePath(table, "reveal"), versioned(table)),
  nextRound: (table) => call("POST", onlinePath(table, "next-round"), versioned(table)),
  rematch: (table) => call("POST", onlinePath(table, "rematch"), versioned(table)),
  liveUrl: (token) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}${KCO}/${encodeURIComponent(token)}/live`;
  },
  qrUrl: (token) => `${KCO}/${encodeURIComponent(token)}/qr.svg?origin=${encodeURIComponent(location.origin)}`,
};
