/**
 * The Poker Squares table page (docs/ps-tables.md): 2-8 people place the same 25 cards, each
 * on their own grid. The invite link is this page with the table's token as the fragment;
 * without one the page offers a new table (create.js) and the room-code form. With one it
 * opens the live channel (online/live.js, given this table's addresses) and shows the lobby
 * (lobby.js), the deal being played (play.js) or its end (over.js), as the table's phase says.
 *
 * This entry module wires the page; the rest is by job: state.js (what the modules share),
 * change.js (a table arriving), actions.js (what this device does), api.js (the requests).
 */

import "../shell/boot.js";
import { onShortcuts } from "../core/feedback.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { wireCodeForm } from "../online/code.js";
import { openLive } from "../online/live.js";
import { copyLink, tickCountdowns } from "../online/lobby-parts.js";
import { createBoard } from "../poker-squares/board.js";
import { join, leave, place, refresh, rematch, start } from "./actions.js";
import { psTableApi } from "./api.js";
import { adopt, gone, render, showScreen } from "./change.js";
import { fieldMessage, rememberedName, wireCreate } from "./create.js";
import { shareResult, shareTexts } from "./over.js";
import { page, serverNow, state } from "./state.js";

const $ = (id) => document.getElementById(id);

addBundle("pstable"); // assets/i18n/pstable.<lang>.json

function connState(s) {
  const line = $("conn-line");
  if (s === "lost") line.textContent = t("kco.live_lost");
  else if (s === "crowded") line.textContent = t("kco.crowded");
  else if (s === "revoked") line.textContent = "";
  else if (s === "open") {
    line.textContent = "";
    refresh();
  } else if (s === "gone") gone();
  document.body.classList.toggle("offline", s === "lost" || s === "crowded");
}

function openTable(token) {
  state.token = token;
  $("qr").src = psTableApi.qrUrl(token);
  page.live = openLive(token, {
    onTable: (next) => adopt(next),
    onState: connState,
    version: () => state.table?.version ?? null,
    api: psTableApi,
  });
}

/** 1-5: that column in the cursor's row, as on the solitaire page. */
function jumpToColumn(col) {
  const [row] = page.board.cursor();
  page.board.setCursor(Math.min(row, 4), col, true);
}

function wireShare() {
  for (const [id, kind] of [
    ["share-btn", "marks"],
    ["share-words-btn", "words"],
  ]) {
    $(id).addEventListener("click", () => {
      const texts = state.table && shareTexts(state.table);
      if (texts) shareResult(texts[kind]);
    });
  }
}

function wire() {
  page.board = createBoard($("board"), { onCell: place, onLine: () => {} });
  wireCreate();
  wireCodeForm($("code-form"), $("room-code"));
  $("copy-btn").addEventListener("click", () => copyLink($("invite-link")));
  $("join-name").value = rememberedName();
  $("join-name").addEventListener("input", () => fieldMessage($("join-name"), null));
  $("join-box").addEventListener("submit", (ev) => {
    ev.preventDefault();
    join();
  });
  $("start-btn").addEventListener("click", start);
  for (const id of ["leave-btn", "play-leave-btn"]) $(id).addEventListener("click", leave);
  $("rematch-btn").addEventListener("click", rematch);
  wireShare();
  const keys = {};
  for (let col = 0; col < 5; col++) keys[String(col + 1)] = () => jumpToColumn(col);
  onShortcuts(() => state.screen === "playing" && !document.querySelector("dialog[open]"), keys);
  onLanguageChange(render);
  setInterval(() => tickCountdowns(serverNow), 500);
  window.addEventListener("hashchange", () => location.reload());
}

async function main() {
  await initPage();
  wire();
  const token = decodeURIComponent(location.hash.slice(1));
  if (/^[A-Za-z0-9_-]{16,64}$/.test(token)) openTable(token);
  else showScreen("create");
  document.body.dataset.ready = "pst";
}

main();
