/**
 * The Kings Corner online page (docs/online.md): the invite link is this page with the
 * table's token as the fragment. Without one it asks for a room code; with one it opens the
 * live channel and shows the lobby, then the table (kings-corner/table.js, as in the local
 * game: only this device's hand), others' moves animated and announced, connection states and
 * countdowns, the end of a round and the rematch. What a device does goes by POST with the
 * table's version; what the server pushes replaces the table when it is newer.
 *
 * This entry module wires the page; the rest is by job: state.js (what the modules share),
 * draw.js (drawing), change.js (a table arriving), actions.js (what this device does) and
 * connection.js (the live channel's states).
 */

import "../shell/boot.js";
import { notifyControl } from "../core/attention.js";
import { onShortcuts } from "../core/feedback.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { storageGet } from "../core/settings.js";
import { say, wireTable } from "../kings-corner/play.js";
import {
  blocked,
  copyLink,
  endTurn,
  fieldMessage,
  hostSeatTools,
  join,
  leave,
  makeComputer,
  nextRound,
  play,
  rematchPress,
  reveal,
  shareLink,
  start,
  undo,
} from "./actions.js";
import { attend } from "./change.js";
import { wireCodeForm } from "./code.js";
import { openTable } from "./connection.js";
import { render, showScreen, summary } from "./draw.js";
import { tickCountdowns } from "./lobby.js";
import { wireReactions } from "./reactions.js";
import { legal, NAME_KEY, page, reducedMotion, serverNow, state } from "./state.js";
import { latestText } from "./story.js";

const $ = (id) => document.getElementById(id);

function wire() {
  page.on = { join, makeComputer, nextRound, rematch: rematchPress };
  ({ table: page.table, chooser: page.chooser } = wireTable({ state, legal, blocked, render, play }, hostSeatTools));
  wireCodeForm($("code-form"), $("room-code"));
  $("copy-btn").addEventListener("click", () => copyLink($("invite-link")));
  // The phone's share sheet, where the browser has one (as the daily's share does).
  if (typeof navigator.share === "function") {
    $("share-btn").hidden = false;
    $("share-btn").addEventListener("click", shareLink);
  }
  $("seat-copy-btn").addEventListener("click", () => copyLink($("seat-invite-link")));
  $("away-ok").addEventListener("click", () => {
    $("away-summary").hidden = true;
    $("table-title").focus();
  });
  for (const id of ["join-name", "seat-join-name"]) {
    $(id).addEventListener("input", () => fieldMessage($(id), null));
  }
  // The absent seats' line and the open seat's invite head the side column (above the log):
  // in the status lines they would push the board down on a desktop.
  $("move-log").parentElement.prepend($("presence-line"), $("seat-open"));
  // Announcements go through #live; the line under the board is shown, not spoken twice.
  $("message").removeAttribute("aria-live");
  const drawNotify = notifyControl($("notify-btn"), $("notify-note"), { table: () => state.token });
  $("start-match-btn").addEventListener("click", start);
  $("leave-btn").addEventListener("click", leave);
  $("table-leave-btn").addEventListener("click", leave);
  $("end-btn").addEventListener("click", endTurn);
  $("undo-btn").addEventListener("click", undo);
  $("reveal-btn").addEventListener("click", reveal);
  wireReactions();
  $("join-name").value = storageGet(NAME_KEY) || "";
  $("seat-join-name").value = storageGet(NAME_KEY) || "";
  onShortcuts(() => state.screen === "table", { escape: () => page.chooser.cancel(), z: undo });
  reducedMotion.addEventListener?.("change", () => state.game && render());
  onLanguageChange(() => {
    render();
    drawNotify();
    const g = state.game;
    if (g && g.phase !== "lobby") say(latestText(g, () => summary(g)));
    attend();
  });
  setInterval(() => tickCountdowns(serverNow), 500);
  window.addEventListener("hashchange", () => location.reload());
}

async function main() {
  await initPage();
  wire();
  const token = decodeURIComponent(location.hash.slice(1));
  if (/^[A-Za-z0-9_-]{16,64}$/.test(token)) {
    openTable(token);
  } else {
    showScreen("code");
  }
  document.body.dataset.ready = "kco";
}

main();
