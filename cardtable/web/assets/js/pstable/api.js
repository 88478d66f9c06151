/**
 * Poker Squares tables (docs/ps-tables.md) on behalf of this browser's player, through
 * core/api.js's `call`: plain POSTs for what a device does (no version: placements of several
 * players on the same card do not conflict); what the server tells the device comes over the
 * live channel (online/live.js, at `liveUrl`).
 */

import { call } from "../core/api.js";

const PST = "/api/poker-squares/tables";
/** The page a table's invite link opens. */
export const TABLE_PAGE = "poker-squares-table.html";
const tablePath = (token, action) => `${PST}/${encodeURIComponent(token)}/${action}`;

export const psTableApi = {
  create: (body) => call("POST", PST, body),
  findCode: (code) => call("GET", `${PST}/codes/${encodeURIComponent(code)}`),
  get: (token) => call("GET", `${PST}/${encodeURIComponent(token)}`),
  join: (token, name) => call("POST", tablePath(token, "join"), { name }),
  leave: (token) => call("POST", tablePath(token, "leave"), {}),
  start: (token) => call("POST", tablePath(token, "start"), {}),
  place: (token, card, cell) => call("POST", tablePath(token, "place"), { card, cell }),
  rematch: (token) => call("POST", tablePath(token, "rematch"), {}),
  liveUrl: (token) => {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}${PST}/${encodeURIComponent(token)}/live`;
  },
  qrUrl: (token) => `${tablePath(token, "qr.svg")}?origin=${encodeURIComponent(location.origin)}`,
};
