/**
 * What the player does at the Kings Corner screen (main.js): choosing and playing, ending the
 * turn, "Next player", the hand-off, undo, pause and speed, the next round, a new match here
 * or online, a rematch. Each sends one request (kings-corner/api.js), one at a time, adopts
 * the answer and says what happened; the computers then play on (answers.js).
 */

import { announce, announceInOrder, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { setSetting } from "../core/settings.js";
import { playSound } from "../core/sound.js";
import { onlineApi } from "../online/api.js";
import { ONLINE_PAGE } from "../online/code.js";
import { afterText, computerLoop, run } from "./answers.js";
import { kcApi } from "./api.js";
import { render, showSetup, showTable, turnText } from "./draw.js";
import { afterMove, announceRound, endTurnParts, focusHand, mayEndTurn, moveStart, say, undone } from "./play.js";
import { fillSetup, inviteFriends, readSetup } from "./setup.js";
import { adopt, myTurn, page, speed, state, view } from "./state.js";
import { rulesLine, seatName, sentences, singlePerson } from "./text.js";

const $ = (id) => document.getElementById(id);

// --- choosing and playing ----------------------------------------------------------------

export function blocked() {
  if (state.paused) {
    announce(t("kc.paused_announce"));
    say(t("kc.paused_announce"));
    return true;
  }
  if (!myTurn()) {
    const text = state.game && state.game.phase === "computer" ? t("kc.wait_computer") : "";
    say(text);
    if (text) announce(text);
    return true;
  }
  return false;
}

export function play(move, keyboard) {
  const game = state.game;
  const { table } = page;
  const start = moveStart(table, game, move);
  run(async () => {
    const next = await kcApi.move(game, move);
    showError(null);
    state.selection = null;
    adopt(next);
    render();
    const seat = game.view.to_play;
    afterMove({ table, next, seat, move, start, over: next.view.is_over, keyboard, slideMs: speed().slide });
  });
}

export function endTurn() {
  if (blocked()) return;
  const game = state.game;
  if (!mayEndTurn(view())) return;
  const seat = game.view.to_play;
  run(async () => {
    const next = await kcApi.move(game, "end");
    showError(null);
    state.selection = null;
    adopt(next);
    // "Next player" hands the device between people; one person against computers watches
    // the computers play on by themselves (each step announced and logged).
    const people = !singlePerson(next);
    state.waitNext = people && (next.phase === "computer" || next.phase === "handoff");
    render();
    playSound("undo");
    const parts = endTurnParts(next, seat);
    if (state.waitNext) parts.push(t("kc.press_next"));
    else if (next.phase !== "computer") parts.push(...afterText(next));
    // The line under the table says whose turn it is; a listener hears the computer's whole
    // turn next, so "Computer 2 is playing…" is shown, not said.
    say(sentences(next.phase === "computer" && !state.waitNext ? [...parts, turnText(next)] : parts));
    // In order: the computers' turns that follow are queued after it, not said over it.
    announceInOrder(sentences(parts));
    if (state.waitNext) $("next-btn").focus();
    else if (next.view.is_over) $("end-title")?.focus?.();
    else if (next.phase === "computer") {
      // End turn disappears: the keyboard waits on Pause, and comes back to the hand after.
      if (document.activeElement === $("end-btn") || document.activeElement === document.body) $("pause-btn").focus();
      computerLoop();
    }
  });
}

export function nextPlayer() {
  if (!state.waitNext) return;
  const keyboard = document.activeElement === $("next-btn");
  state.waitNext = false;
  say("");
  render();
  if (state.game.phase === "handoff") {
    $("reveal-btn").focus();
    announce(t("kc.turn_handoff", { who: seatName(state.game, state.game.view.to_play) }));
  } else {
    // Next player disappears: the keyboard waits on Pause, and comes back to the hand after.
    if (keyboard) $("pause-btn").focus();
    announce(turnText(state.game));
    computerLoop();
  }
}

export function reveal() {
  const game = state.game;
  if (!game || game.phase !== "handoff") return;
  run(async () => {
    const next = await kcApi.reveal(game);
    showError(null);
    adopt(next);
    render();
    announce(turnText(next));
    focusHand(0);
  });
}

export function undo() {
  const game = state.game;
  if (!game || state.paused || !myTurn() || !game.view.can_undo) return;
  run(async () => {
    const next = await kcApi.undo(game);
    showError(null);
    adopt(next);
    undone(state, render);
  });
}

export function togglePause() {
  const game = state.game;
  if (!game || state.screen !== "table" || game.view.is_over) return;
  state.paused = !state.paused;
  if (state.paused) state.selection = null;
  render();
  const text = t(state.paused ? "kc.paused_announce" : "kc.resumed_announce");
  say(text);
  announce(text);
  if (!state.paused) computerLoop();
}

export function setSpeed(value) {
  setSetting("kcSpeed", value);
  render();
}

export function nextRound() {
  const game = state.game;
  run(async () => {
    const next = await kcApi.nextRound(game);
    showError(null);
    state.selection = null;
    adopt(next);
    render();
    say("");
    announceRound(next, turnText(next));
    focusAfterDeal();
  });
}

function focusAfterDeal() {
  if (state.game.phase === "play") focusHand(0);
  else if (state.game.phase === "handoff") $("reveal-btn").focus();
  else $("pause-btn").focus();
  computerLoop();
}

/** An online table: created here, played on the online page (the invite link). */
function createOnline(body) {
  if (!body.name) {
    showError("kco.error.name_needed");
    $("host-name").focus();
    return;
  }
  run(async () => {
    const made = await onlineApi.create(body);
    showError(null);
    location.assign(`${ONLINE_PAGE}#${made.token}`);
  });
}

export function startMatch(body) {
  if (body.online) {
    createOnline(body.online);
    return;
  }
  run(async () => {
    const game = await kcApi.create(body.seats, body.rules, body.rounds);
    showError(null);
    state.selection = null;
    adopt(game);
    showTable();
    announce(sentences([rulesLine(game.view) + t("kc.full_stop"), turnText(game)]));
    focusAfterDeal();
  });
}

export function rematch() {
  fillSetup(state.game);
  startMatch(readSetup());
}

/** "Play with friends" (here or ?friends from the home page): the settings with invite seats,
 * the keyboard on the host's name. */
export function playWithFriends() {
  if (state.screen !== "setup") showSetup();
  inviteFriends();
  $("host-name").focus();
}

export function continueMatch() {
  showTable();
  focusAfterDeal();
}
