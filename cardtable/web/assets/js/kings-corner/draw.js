/**
 * Drawing the Kings Corner screen (main.js): the table with its lines and controls, the end
 * panel, the settings with Continue, and which of the two is shown. It draws `state`
 * (state.js); the end panel's buttons run the actions main.js gives as `page.on`.
 */

import { t } from "../core/i18n.js";
import { getSetting } from "../core/settings.js";
import { endSummary, renderEnd } from "./end.js";
import { ownTurnText, renderBoard, renderHandoff } from "./play.js";
import { fillSetup, refreshSetup } from "./setup.js";
import { myTurn, page, reducedMotion, state } from "./state.js";
import { seatName } from "./text.js";

const $ = (id) => document.getElementById(id);

export function turnText(game) {
  const v = game.view;
  if (game.phase === "round_over" || game.phase === "match_over") return endSummary(game);
  const who = seatName(game, v.to_play);
  if (state.waitNext) return t("kc.turn_over");
  if (game.phase === "computer") return t(state.paused ? "kc.turn_computer_paused" : "kc.turn_computer", { who });
  if (game.phase === "handoff") return t("kc.turn_handoff", { who });
  if (!myTurn()) return t("kc.turn_of", { who });
  return ownTurnText(game, who);
}

export function render() {
  const game = state.game;
  if (!game) return;
  const v = game.view;
  const tableEl = $("table");
  tableEl.dataset.game = game.id;
  tableEl.dataset.phase = game.phase;
  tableEl.dataset.version = String(game.version);
  tableEl.classList.toggle("wait-next", state.waitNext);
  const { table, chooser } = page;
  const a = renderBoard({ table, chooser, state, myTurn: myTurn(), turnLine: turnText(game) });

  const over = game.phase === "round_over" || game.phase === "match_over";
  renderHandoff(game, v.to_play, game.phase === "handoff" && !state.waitNext);
  const end = $("end-btn");
  end.hidden = state.waitNext || over || game.phase === "handoff";
  end.disabled = !a.moves.includes("end");
  $("next-btn").hidden = !state.waitNext;
  $("undo-btn").disabled = !myTurn() || !v.can_undo || state.paused;
  $("pause-btn").disabled = over;
  $("pause-btn").setAttribute("aria-pressed", String(state.paused));
  $("pause-label").textContent = t(state.paused ? "kc.resume" : "kc.pause");
  $("pause-overlay").hidden = !state.paused;
  $("speed").value = reducedMotion.matches ? "instant" : getSetting("kcSpeed") || "normal";
  $("speed").disabled = reducedMotion.matches;

  const endBox = $("end");
  endBox.hidden = !over;
  tableEl.classList.toggle("over", over);
  if (over) {
    renderEnd(endBox, game, { onNextRound: page.on.nextRound, onNewMatch: showSetup, onRematch: page.on.rematch });
  }
}

// --- screens -------------------------------------------------------------------------------

export function renderSetup() {
  const game = state.game;
  const unfinished = game && game.phase !== "match_over";
  $("continue-box").hidden = !unfinished;
  $("new-note").hidden = !unfinished;
  if (unfinished) {
    $("continue-text").textContent = t("kc.continue_text", {
      round: game.match.round,
      rounds: game.match.rounds,
      players: game.seats.length,
      rules: t(`kc.rule_set.${game.view.rule_set}`),
    });
  }
  refreshSetup();
}

export function showSetup() {
  state.screen = "setup";
  state.selection = null;
  $("table").hidden = true;
  $("setup").hidden = false;
  if (state.game) fillSetup(state.game);
  renderSetup();
  // The keyboard starts on Continue or Deal, the eye at the top of the page (the way in to
  // play with friends, then the settings).
  (!$("continue-box").hidden ? $("continue-btn") : $("start-btn")).focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

export function showTable() {
  state.screen = "table";
  $("setup").hidden = true;
  $("table").hidden = false;
  render();
}
