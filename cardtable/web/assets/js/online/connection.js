/**
 * The online page's connection (main.js): opening a table's live channel (live.js) by its
 * token, and what its states show: "reconnecting" or "too many watching", the way back (the
 * table fetched again, "while you were away" from the version shown before), a table gone.
 */

import { t } from "../core/i18n.js";
import { onlineApi } from "./api.js";
import { adopt, gone, refresh } from "./change.js";
import { openLive } from "./live.js";
import { page, state } from "./state.js";

const $ = (id) => document.getElementById(id);

function connState(s) {
  const line = $("conn-line");
  if ((s === "lost" || s === "crowded") && state.seenBefore === null) state.seenBefore = state.game?.version ?? null;
  if (s === "open" && state.seenBefore !== null)
    setTimeout(() => {
      state.seenBefore = null;
    }, 5000);
  if (s === "lost") line.textContent = t("kco.live_lost");
  else if (s === "crowded") line.textContent = t("kco.crowded");
  // Signed out: not reconnecting, and the signed-out dialog says why.
  else if (s === "revoked") line.textContent = "";
  else if (s === "open") {
    line.textContent = t("kco.live_back");
    setTimeout(() => {
      if (line.textContent === t("kco.live_back")) line.textContent = "";
    }, 3000);
    refresh();
  } else if (s === "gone") gone();
  document.body.classList.toggle("offline", s === "lost" || s === "crowded");
}

export function openTable(token) {
  state.token = token;
  state.game = null;
  state.lastLog = 0;
  $("qr").src = onlineApi.qrUrl(token);
  page.live = openLive(token, {
    onTable: (next) => adopt(next),
    onState: connState,
    version: () => state.game?.version ?? null,
  });
}
