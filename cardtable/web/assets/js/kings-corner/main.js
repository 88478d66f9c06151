/**
 * The Kings Corner screen: settings, the table, playing and moving piles, ending the turn,
 * the Next-player step, hand-offs on one device, computer turns shown step by step, pause,
 * undo, the end of a round and of a match. It renders the server's game and sends moves; the
 * legal targets come only from `view.legal_moves` (docs/api.md).
 */

import "../shell/boot.js";
import { api, hasPlayer, kcApi, onlineApi } from "../core/api.js";
import { announce, announceInOrder, errorRouter, onShortcuts, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { getSetting, setSetting } from "../core/settings.js";
import { playSound } from "../core/sound.js";
import { ONLINE_PAGE, wireCodeForm } from "../online/code.js";
import { endSummary, renderEnd } from "./end.js";
import {
  afterMove,
  announceRound,
  endTurnParts,
  focusHand,
  landing,
  mayEndTurn,
  moveStart,
  ownTurnText,
  renderBoard,
  renderHandoff,
  say,
  slideFrom,
  undone,
  wireTable,
} from "./play.js";
import { fillSetup, inviteFriends, readSetup, refreshSetup, wireSetup } from "./setup.js";
import {
  eventAction,
  eventText,
  parseMove,
  rulesLine,
  seatName,
  sentences,
  singlePerson,
  stepText,
  turnAction,
  turnSentence,
} from "./text.js";

const $ = (id) => document.getElementById(id);

const SPEEDS = {
  slow: { delay: 1600, slide: 250 },
  normal: { delay: 900, slide: 220 },
  fast: { delay: 350, slide: 150 },
  instant: { delay: 0, slide: 0 },
};

const state = {
  game: null, // KCGame from the server
  selection: null, // {kind: "card", card} | {kind: "pile", pile}
  paused: false,
  busy: false,
  looping: false,
  waitNext: false, // a turn just ended: the board is on show until "Next player"
  screen: "setup",
};

let table;
let chooser;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

// --- small helpers -----------------------------------------------------------------------

function speed() {
  if (reducedMotion.matches) return SPEEDS.instant;
  return SPEEDS[getSetting("kcSpeed")] || SPEEDS.normal;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function view() {
  return state.game.view;
}

function myTurn() {
  const g = state.game;
  return Boolean(g && g.phase === "play" && g.viewer === g.view.to_play && !g.view.is_over);
}

function legal() {
  return myTurn() && !state.paused ? view().legal_moves : [];
}

// --- drawing -------------------------------------------------------------------------------

function turnText(game) {
  const v = game.view;
  if (game.phase === "round_over" || game.phase === "match_over") return endSummary(game);
  const who = seatName(game, v.to_play);
  if (state.waitNext) return t("kc.turn_over");
  if (game.phase === "computer") return t(state.paused ? "kc.turn_computer_paused" : "kc.turn_computer", { who });
  if (game.phase === "handoff") return t("kc.turn_handoff", { who });
  if (!myTurn()) return t("kc.turn_of", { who });
  return ownTurnText(game, who);
}

function render() {
  const game = state.game;
  if (!game) return;
  const v = game.view;
  const tableEl = $("table");
  tableEl.dataset.game = game.id;
  tableEl.dataset.phase = game.phase;
  tableEl.dataset.version = String(game.version);
  tableEl.classList.toggle("wait-next", state.waitNext);
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
    renderEnd(endBox, game, { onNextRound: nextRound, onNewMatch: showSetup, onRematch: rematch });
  }
}

// --- motion ------------------------------------------------------------------------------

function rectOf(node) {
  return node ? node.getBoundingClientRect() : null;
}

/** Where a step's card comes from, measured before the board changes. */
function sourceRect(seat, move) {
  const m = parseMove(move);
  if (m.kind === "shift") return rectOf(table.pile(m.from));
  if (m.kind !== "play") return null;
  const card = state.game.viewer === seat ? table.card(m.card) : null;
  return rectOf(card || table.seat(seat));
}

// --- server answers ------------------------------------------------------------------------

function adopt(game) {
  const previous = state.game;
  if (!previous || previous.id !== game.id) {
    state.paused = false;
    state.waitNext = false;
  }
  state.game = game;
  chooser.keepSelection();
  if (game.phase !== "computer" && game.phase !== "handoff") state.waitNext = false;
}

const handleError = errorRouter({
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

const run = serialRunner(state, (err) => handleError(err));

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
async function computerLoop() {
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
        if (pile) slideFrom(table, from, pile, speed().slide);
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

function afterText(game) {
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
  if (g.phase === "handoff" && (lost || table.contains(active))) $("reveal-btn").focus();
  else if (g.phase === "play" && (lost || table.contains(active))) focusHand(0);
  else if ((g.phase === "round_over" || g.phase === "match_over") && (lost || table.contains(active))) {
    $("end-title")?.focus();
  }
}

// --- choosing and playing ----------------------------------------------------------------

function blocked() {
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

function play(move, keyboard) {
  const game = state.game;
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

function endTurn() {
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
    else if (next.phase === "computer") parts.push(turnText(next));
    else parts.push(...afterText(next));
    say(sentences(parts));
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

function nextPlayer() {
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

function reveal() {
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

function undo() {
  const game = state.game;
  if (!game || state.paused || !myTurn() || !game.view.can_undo) return;
  run(async () => {
    const next = await kcApi.undo(game);
    showError(null);
    adopt(next);
    undone(state, render);
  });
}

function togglePause() {
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

function setSpeed(value) {
  setSetting("kcSpeed", value);
  render();
}

function nextRound() {
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

function startMatch(body) {
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

function rematch() {
  fillSetup(state.game);
  startMatch(readSetup());
}

// --- screens -------------------------------------------------------------------------------

function renderSetup() {
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

function showSetup() {
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

function showTable() {
  state.screen = "table";
  $("setup").hidden = true;
  $("table").hidden = false;
  render();
}

/** "Play with friends" (here or ?friends from the home page): the settings with invite seats,
 * the keyboard on the host's name. */
function playWithFriends() {
  if (state.screen !== "setup") showSetup();
  inviteFriends();
  $("host-name").focus();
}

function continueMatch() {
  showTable();
  focusAfterDeal();
}

// --- wiring --------------------------------------------------------------------------------

function wire() {
  ({ table, chooser } = wireTable({ state, legal, blocked, render, play }));
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
  onShortcuts(() => state.screen === "table", { escape: () => chooser.cancel(), z: undo, p: togglePause });
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
