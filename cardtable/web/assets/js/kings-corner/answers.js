/**
 * What the Kings Corner screen (main.js) hears back from the server besides its own moves'
 * answers: refusals and errors (the game shown as it is, or the settings when it is gone),
 * and the computers' turns, asked for one step at a time and shown step by step (each card
 * sliding in, each turn said once, whole), and where the keyboard goes after them.
 */

import { announceInOrder, errorRouter, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { serialRunner } from "../core/page.js";
import { playSound } from "../core/sound.js";
import { kcApi } from "./api.js";
import { render, showSetup, turnText } from "./draw.js";
import { endSummary } from "./end.js";
import { focusHand, landing, say, slideFrom } from "./play.js";
import { adopt, myTurn, page, sleep, speed, state } from "./state.js";
import { eventAction, eventText, parseMove, seatName, sentences, stepText, turnAction, turnSentence } from "./text.js";

const $ = (id) => document.getElementById(id);

// --- motion ------------------------------------------------------------------------------

function rectOf(node) {
  return node ? node.getBoundingClientRect() : null;
}

/** Where a step's card comes from, measured before the board changes. */
function sourceRect(seat, move) {
  const m = parseMove(move);
  if (m.kind === "shift") return rectOf(page.table.pile(m.from));
  if (m.kind !== "play") return null;
  const card = state.game.viewer === seat ? page.table.card(m.card) : null;
  return rectOf(card || page.table.seat(seat));
}

// --- server answers ------------------------------------------------------------------------

export const handleError = errorRouter({
  stale_version(err) {
    if (!err.current) return false;
    state.selection = null;
    adopt(err.current);
    render();
    showError("kc.error.stale_version");
    computerLoop();
  },
  illegal_move: () => refuse("illegal_move"),
  wrong_phase: () => refuse("wrong_phase"),
  not_found: lost,
  no_player: lost,
  invalid_name: () => showError("kco.error.invalid_name"),
});

/** The server refused a move the page offered: say so and show the game as it is. */
function refuse(code) {
  showError(`kc.error.${code}`);
  refresh();
}

/** The game is gone (or the player is unknown): back to the settings. */
function lost() {
  state.game = null;
  showError("kc.error.not_found");
  showSetup();
}

export const run = serialRunner(state, (err) => handleError(err));

async function refresh() {
  if (!state.game) return;
  try {
    adopt(await kcApi.get(state.game.id));
    render();
  } catch (err) {
    if (err.code !== "illegal_move") handleError(err);
  }
}

// --- the computer ------------------------------------------------------------------------

function computerMayGo() {
  const g = state.game;
  return (
    g && g.phase === "computer" && state.screen === "table" && !state.paused && !state.waitNext && !document.hidden
  );
}

/**
 * A computer's turn as it is shown step by step, said as one sentence when it ends (or the
 * round ends, or the player pauses): a screen reader hears each turn once, whole, at any
 * pace, and turns that follow each other at the instant pace are queued, not cut short
 * (`announceInOrder`).
 */
function computerTurns() {
  let turn = null; // {seat, actions}
  const flush = (game, ended) => {
    if (!turn) return;
    const parts = [turnSentence(game, turn.seat, turn.actions, ended), ...turn.after, ...afterText(game)];
    turn = null;
    announceInOrder(sentences(parts));
  };
  return {
    step(next, step) {
      if (turn && turn.seat !== step.seat) flush(next, false);
      turn ??= { seat: step.seat, actions: [], after: [] };
      const action = turnAction(step.move);
      if (action) turn.actions.push(action);
      for (const e of next.events || []) {
        const said = e.seat === step.seat ? eventAction(e) : eventText(next, e);
        if (said) (e.seat === step.seat ? turn.actions : turn.after).push(said);
      }
      if (step.move === "end" || next.phase !== "computer") flush(next, step.move === "end");
    },
    /** The loop stopped mid-turn (paused, hidden, or something else changed the game). */
    stop(game) {
      if (game) flush(game, false);
    },
  };
}

/** Asks the server for one computer move at a time and shows each (SPEC KC-24, C-6). */
export async function computerLoop() {
  if (state.looping || !computerMayGo()) return;
  state.looping = true;
  const turns = computerTurns();
  try {
    while (computerMayGo()) {
      await sleep(speed().delay);
      while (state.busy) await sleep(30);
      if (!computerMayGo()) break;
      const before = state.game;
      let next;
      state.busy = true;
      try {
        next = await kcApi.computerStep(before);
      } finally {
        state.busy = false;
      }
      if (state.game !== before) break; // something else changed the game meanwhile
      const step = next.step;
      const from = step ? sourceRect(step.seat, step.move) : null;
      adopt(next);
      render();
      if (step) {
        const pile = landing(step.move);
        if (pile) slideFrom(page.table, from, pile, speed().slide);
        playSound(step.move === "end" ? "undo" : "place");
        say(stepText(next, step.seat, step.move));
        turns.step(next, step);
      }
    }
  } catch (err) {
    handleError(err);
  } finally {
    state.looping = false;
    turns.stop(state.game);
  }
  // The computers are done: the line under the board no longer speaks of their turn.
  if (state.game && state.game.phase !== "computer") say("");
  if (state.game && !state.looping && state.game.phase !== "computer") focusAfterTurn();
}

export function afterText(game) {
  if (game.phase === "round_over" || game.phase === "match_over") return [endSummary(game)];
  if (game.phase === "play" && myTurn()) return [turnText(game)];
  if (game.phase === "handoff") return [t("kc.turn_handoff", { who: seatName(game, game.view.to_play) })];
  return [];
}

/**
 * After the computers' turns: the keyboard goes back to the hand (or to the hand-off button,
 * or to the result). Focus left on a control that only mattered while the computers played
 * (Pause, Next player) or on nothing moves; focus the player put elsewhere (the speed menu,
 * the log) stays.
 */
function focusAfterTurn() {
  const g = state.game;
  if (!g || state.screen !== "table") return;
  const active = document.activeElement;
  const waiting = active && (active.id === "pause-btn" || active.id === "next-btn" || active.id === "main");
  const lost = !active || active === document.body || active.closest?.("[hidden]") || active.disabled || waiting;
  const { table } = page;
  if (g.phase === "handoff" && (lost || table.contains(active))) $("reveal-btn").focus();
  else if (g.phase === "play" && (lost || table.contains(active))) focusHand(0);
  else if ((g.phase === "round_over" || g.phase === "match_over") && (lost || table.contains(active))) {
    $("end-title")?.focus();
  }
}
