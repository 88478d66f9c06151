/**
 * The live channel of an online Kings Corner table (docs/online.md "Live channel"): one
 * WebSocket that says hello with this browser's player id and the last version it has, then
 * receives the table after every change. A dropped connection is opened again with a growing,
 * jittered delay (0.5 s doubling to 10 s); coming back online or to the tab retries at once.
 * Closing codes: 4404 the table is gone (no retry), 4409 too many spectators (retry slowly),
 * 4401 an unknown player id (replaced through the API, then retried), or with the reason
 * "revoked" a signed-out device (the signed-out dialog; no retry).
 */

import { ensurePlayer, noteRevoked } from "../core/api.js";
import { onlineApi } from "./api.js";

const FIRST_DELAY = 500;
const MAX_DELAY = 10000;
const CROWDED_DELAY = 15000;
const PING_EVERY = 20000;
/** Raised on `document` with a reaction said at the table (`{type, seat, key, at}`) as the
 * event's `detail`, for reactions.js. */
export const REACTION_EVENT = "kco:reaction";

/**
 * `onTable(table, events)` for every table pushed; `onState(state)` with "open", "lost"
 * (reconnecting), "gone" (4404), "crowded" (4409) or "revoked" (signed out: no reconnecting). `version()` is the last version the page
 * holds, sent in each hello.
 */
export function openLive(token, { onTable, onState, version, api = onlineApi }) {
  // The channel: its socket, how many tries since the last table, its timers, and whether
  // the page stopped it; `api` gives the channel's address and a GET of the table (the Poker
  // Squares table page passes its own, pstable/api.js).
  const ch = {
    token,
    onTable,
    onState,
    version,
    api,
    ws: null,
    attempt: 0,
    retryTimer: 0,
    pingTimer: 0,
    stopped: false,
  };

  function now() {
    if (ch.stopped) return;
    if (!ch.ws) {
      ch.attempt = Math.min(ch.attempt, 1);
      schedule(ch, 0);
    }
  }

  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) now();
  });
  connect(ch);

  return {
    stop() {
      ch.stopped = true;
      clearTimeout(ch.retryTimer);
      clearInterval(ch.pingTimer);
      if (ch.ws) ch.ws.close(1000);
    },
  };
}

function schedule(ch, delay) {
  clearTimeout(ch.retryTimer);
  ch.retryTimer = setTimeout(() => connect(ch), delay);
}

function backoff(ch) {
  const base = Math.min(MAX_DELAY, FIRST_DELAY * 2 ** ch.attempt);
  ch.attempt += 1;
  return base / 2 + Math.random() * (base / 2);
}

async function connect(ch) {
  if (ch.stopped || (ch.ws && ch.ws.readyState <= WebSocket.OPEN)) return;
  let player;
  try {
    player = await ensurePlayer();
  } catch {
    ch.onState("lost");
    schedule(ch, backoff(ch));
    return;
  }
  const socket = new WebSocket(ch.api.liveUrl(ch.token));
  ch.ws = socket;
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", player, version: ch.version() }));
    clearInterval(ch.pingTimer);
    ch.pingTimer = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
    }, PING_EVERY);
  });
  socket.addEventListener("message", (ev) => received(ch, ev));
  socket.addEventListener("close", (ev) => closed(ch, socket, ev));
}

function received(ch, ev) {
  let msg;
  try {
    msg = JSON.parse(ev.data);
  } catch {
    return;
  }
  if (msg.type === "table") {
    if (ch.attempt) ch.onState("open");
    ch.attempt = 0;
    ch.onTable(msg.table, msg.table.events || []);
  } else if (msg.type === "reaction") {
    document.dispatchEvent(new CustomEvent(REACTION_EVENT, { detail: msg }));
  }
}

function closed(ch, socket, ev) {
  clearInterval(ch.pingTimer);
  if (ch.ws === socket) ch.ws = null;
  if (ch.stopped) return;
  if (ev.code === 4404) {
    ch.onState("gone");
    return;
  }
  if (ev.code === 4401 && ev.reason === "revoked") {
    // This device was signed out of its record (docs/devices.md): the dialog, no retry.
    ch.onState("revoked");
    noteRevoked();
    return;
  }
  if (ev.code === 4401) {
    // An unknown player id (a server that forgot it): any API call replaces it.
    ch.api
      .get(ch.token)
      .catch(() => null)
      .finally(() => schedule(ch, backoff(ch)));
    return;
  }
  if (ev.code === 4409) {
    ch.onState("crowded");
    schedule(ch, CROWDED_DELAY);
    return;
  }
  ch.onState("lost");
  schedule(ch, backoff(ch));
}
