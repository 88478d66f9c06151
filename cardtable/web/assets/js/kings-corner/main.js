/**
 * The Kings Corner screen: settings, the table, playing and moving piles, ending the turn,
 * the Next-player step, hand-offs on one device, computer turns shown step by step, pause,
 * undo, the end of a round and of a match. It renders the server's game and sends moves; the
 * legal targets come only from `view.legal_moves` (docs/api.md).
 *
 * This entry module wires the screen; the rest is by job: state.js (what the modules share),
 * draw.js (drawing), actions.js (what the player does), answers.js (errors and the
 * computers' turns).
 */

import "../shell/boot.js";
import { api, hasPlayer } from "../core/api.js";
import { onShortcuts } from "../core/feedback.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { wireCodeForm } from "../online/code.js";
import {
  blocked,
  continueMatch,
  endTurn,
  nextPlayer,
  nextRound,
  play,
  playWithFriends,
  rematch,
  reveal,
  setSpeed,
  startMatch,
  togglePause,
  undo,
} from "./actions.js";
import { computerLoop, handleError } from "./answers.js";
import { render, renderSetup, showSetup } from "./draw.js";
import { wireTable } from "./play.js";
import { wireSetup } from "./setup.js";
import { adopt, legal, page, reducedMotion, state } from "./state.js";

const $ = (id) => document.getElementById(id);

function wire() {
  page.on = { nextRound, rematch };
  ({ table: page.table, chooser: page.chooser } = wireTable({ state, legal, blocked, render, play }));
  wireSetup(startMatch);
  wireCodeForm($("code-form"), $("room-code"));
  $("continue-btn").addEventListener("click", continueMatch);
  $("friends-btn").addEventListener("click", playWithFriends);
  $("end-btn").addEventListener("click", endTurn);
  $("next-btn").addEventListener("click", nextPlayer);
  $("reveal-btn").addEventListener("click", reveal);
  $("undo-btn").addEventListener("click", undo);
  $("pause-btn").addEventListener("click", togglePause);
  $("speed").addEventListener("change", (ev) => setSpeed(ev.target.value));
  $("menu-btn").addEventListener("click", showSetup);
  onShortcuts(() => state.screen === "table", { escape: () => page.chooser.cancel(), z: undo, p: togglePause });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) computerLoop();
  });
  reducedMotion.addEventListener?.("change", () => state.game && render());
  onLanguageChange(() => {
    if (state.screen === "table") render();
    else renderSetup();
  });
}

async function start() {
  await initPage();
  wire();
  if (hasPlayer()) {
    try {
      const saved = await api.continueGames();
      if (saved.kings_corner) adopt(saved.kings_corner);
    } catch (err) {
      if (err.code !== "no_player") handleError(err);
    }
  }
  // An unfinished match comes straight back (a reload mid-game, ?continue from the home
  // page); Menu on the table leads to the settings, where Continue returns to it.
  if (new URLSearchParams(location.search).has("friends")) {
    showSetup();
    playWithFriends();
  } else if (state.game && state.game.phase !== "match_over") continueMatch();
  else showSetup();
  document.body.dataset.ready = "kc";
}

start();
