/**
 * The live channel of an online Kings Corner table (docs/online.md "Live channel"): one
 * WebSocket that says hello with this browser's player id and the last version it has, then
 * receives the table after every change. A dropped connection is opened again with a growing,
 * jittered delay (0.5 s doubling to 10 s); coming back online or to the tab retries at once.
 * Closing codes: 4404 the table is gone (no retry), 4409 too many spectators (retry slowly),
 * 4401 an unknown player id (replaced through the API, then retried), or with the reason
 * "revoked" a signed-out device (the signed-out dialog; no retry).
 */

import { ensurePlayer, noteRevoked, onlineApi } from "../core/api.js";

const FIRST_DELAY = 500;
const MAX_DELAY = 10000;
const CROWDED_DELAY = 15000;
const PING_EVERY = 20000;

/**
 * `onTable(table, events)` for every table pushed; `onState(state)` with "open", "lost"
 * (reconnecting), "gone" (4404), "crowded" (4409) or "revoked" (signed out: no reconnecting). `version()` is the last version the page
 * holds, sent in each hello.
 */
export function openLive(token, { onTable, onState, version }) {
  let ws = null;
  let attempt = 0;
  let retryTimer = 0;
  let pingTimer = 0;
  let stopped = false;

  function schedule(delay) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay);
  }

  function backoff() {
    const base = Math.min(MAX_DELAY, FIRST_DELAY * 2 ** attempt);
    attempt += 1;
    return base / 2 + Math.random() * (base / 2);
  }

  async function connect() {
    if (stopped || (ws && ws.readyState <= WebSocket.OPEN)) return;
    let player;
    try {
      player = await ensurePlayer();
    } catch {
      onState("lost");
      schedule(backoff());
      return;
    }
    const socket = new WebSocket(onlineApi.liveUrl(token));
    ws = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ type: "hello", player, version: version() }));
      clearInterval(pingTimer);
      pingTimer = setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
      }, PING_EVERY);
    });
    socket.addEventListener("message", (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "table") {
        if (attempt) onState("open");
        attempt = 0;
        onTable(msg.table, msg.table.events || []);
      }
    });
    socket.addEventListener("close", (ev) => {
      clearInterval(pingTimer);
      if (ws === socket) ws = null;
      if (stopped) return;
      if (ev.code === 4404) {
        onState("gone");
        return;
      }
      if (ev.code === 4401 && ev.reason === "revoked") {
        // This device was signed out of its record (docs/devices.md): the dialog, no retry.
        onState("revoked");
        noteRevoked();
        return;
      }
      if (ev.code === 4401) {
        // An unknown player id (a server that forgot it): any API call replaces it.
        onlineApi
          .get(token)
          .catch(() => null)
          .finally(() => schedule(backoff()));
        return;
      }
      if (ev.code === 4409) {
        onState("crowded");
        schedule(CROWDED_DELAY);
        return;
      }
      onState("lost");
      schedule(backoff());
    });
  }

  function now() {
    if (stopped) return;
    if (!ws) {
      attempt = Math.min(attempt, 1);
      schedule(0);
    }
  }

  window.addEventListener("online", now);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) now();
  });
  connect();

  return {
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      if (ws) ws.close(1000);
    },
  };
}
