/**
 * Kings Corner online (docs/online.md) on behalf of this browser's player, through core/api.js's
 * `call`: plain POSTs for what a device does, each with the table's version; what the server
 * tells the device comes over the live channel (live.js, at `liveUrl`).
 */

import { call } from "../core/api.js";

const KCO = "/api/kings-corner/online";
const onlinePath = (table, action) => `${KCO}/${encodeURIComponent(table.token)}/${action}`;
const versioned = (table, extra = {}) => ({ version: table.version, ...extra });

export const onlineApi = {
  create: (body) => call("POST", KCO, body),
  findCode: (code) => call("GET", `${KCO}/codes/${encodeURIComponent(code)}`),
  get: (token) => call("GET", `${KCO}/${encodeURIComponent(token)}`),
  join: (table, name, seat = null) => call("POST", onlinePath(table, "join"), versioned(table, { name, seat })),
  leave: (table) => call("POST", onlinePath(table, "leave"), versioned(table)),
  seatComputer: (table, seat, strength) =>
    call("POST", onlinePath(table, `seats/${seat}`), versioned(table, { kind: "computer", strength })),
  /** The host's actions on an absent person's seat: a computer plays it now (until they are
   * back), or it is opened for someone new. */
  standIn: (table, seat) => call("POST", onlinePath(table, `seats/${seat}/stand-in`), versioned(table)),
  invite: (table, seat) => call("POST", onlinePath(table, `seats/${seat}/invite`), versioned(table)),
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
