/**
 * The Kings Corner screen: settings, the table, playing and moving piles, ending the turn,
 * the Next-player step, hand-offs on one device, computer turns shown step by step, pause,
 * undo, the end of a round and of a match. It renders the server's game and sends moves; the
 * legal targets come only from `view.legal_moves` (docs/api.md).
 */

import { api, hasPlayer, kcApi, onlineApi } from "./api.js";
import { cardName } from "./cards.js";
import { announce, errorRouter, onShortcuts, showError } from "./feedback.js";
import { t } from "./i18n.js";
import { createChooser, kingsFirst } from "./kc-choose.js";
import { endSummary, renderEnd } from "./kc-end.js";
import { fillSetup, readSetup, refreshSetup, wireSetup } from "./kc-setup.js";
import { createTable } from "./kc-table.js";
import { capitalise, eventText, parseMove, rulesLine, seatName, sentences, stepText } from "./kc-text.js";
import { ONLINE_PAGE, wireCodeForm } from "./online-code.js";
import { initPage, onLanguageChange, serialRunner } from "./page.js";
import { getSetting, setSetting } from "./settings.js";
import { playSound } from "./sound.js";

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

function say(text) {
  $("message").textContent = text ? capitalise(text) : "";
}

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

function lastPiles(game) {
  const last = game.log[game.log.length - 1];
  const out = new Set();
  if (!last || last.round !== game.match.round) return out;
  const m = parseMove(last.move);
  if (m.kind === "play" || m.kind === "draw-king") out.add(m.pile);
  if (m.kind === "shift") out.add(m.to);
  return out;
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
  const single = game.seats.filter((s) => s.kind === "human").length === 1;
  const parts = [single ? t("kc.turn_yours") : t("kc.turn_of", { who })];
  if (v.last_draw) parts.push(t("kc.you_drew", { card: cardName(v.last_draw) }));
  if (kingsFirst(v)) parts.push(t("kc.kings_first_now"));
  return sentences(parts);
}

function render() {
  const game = state.game;
  if (!game) return;
  const v = game.view;
  const a = chooser.analyse();
  const tableEl = $("table");
  tableEl.dataset.game = game.id;
  tableEl.dataset.phase = game.phase;
  tableEl.dataset.version = String(game.version);
  tableEl.dataset.toPlay = String(v.to_play);
  tableEl.dataset.viewer = game.viewer === null ? "" : String(game.viewer);
  tableEl.classList.toggle("wait-next", state.waitNext);
  table.render(game, {
    selection: state.selection,
    targets: a.targets,
    movable: a.movable,
    playable: a.playable,
    lastPiles: lastPiles(game),
    myTurn: myTurn(),
  });
  $("cross").classList.toggle("selecting", Boolean(state.selection));
  $("round-line").textContent = t("kc.round_line", { round: game.match.round, rounds: game.match.rounds });
  $("rules-line").textContent = rulesLine(v);
  $("turn-line").textContent = capitalise(turnText(game));

  const over = game.phase === "round_over" || game.phase === "match_over";
  const handoff = game.phase === "handoff" && !state.waitNext;
  $("handoff").hidden = !handoff;
  if (handoff) {
    const who = seatName(game, v.to_play);
    $("handoff-title").textContent = t("kc.handoff_title", { who });
    $("handoff-text").textContent = t("kc.handoff_text", { who });
    $("reveal-btn").textContent = t("kc.reveal", { who });
  }
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

/** Slides the pile's top card in from where it came (a hand card, a seat, another pile). */
function slideFrom(fromRect, pile) {
  const ms = speed().slide;
  if (!fromRect || !ms) return;
  const target = table.tail(pile);
  if (target.hidden) return;
  const to = rectOf(target);
  if (!to || !to.width) return;
  const dx = fromRect.left + fromRect.width / 2 - (to.left + to.width / 2);
  const dy = fromRect.top + fromRect.height / 2 - (to.top + to.height / 2);
  target.animate(
    [
      { transform: `translate(${dx}px, ${dy}px)`, zIndex: 5 },
      { transform: "none", zIndex: 5 },
    ],
    { duration: ms, easing: "ease-out" },
  );
}

/** Where a step's card comes from, measured before the board changes. */
function sourceRect(seat, move) {
  const m = parseMove(move);
  if (m.kind === "shift") return rectOf(table.pile(m.from));
  if (m.kind !== "play") return null;
  const card = state.game.viewer === seat ? table.card(m.card) : null;
  return rectOf(card || table.seat(seat));
}

function landing(move) {
  const m = parseMove(move);
  return m.kind === "shift" ? m.to : m.kind === "play" ? m.pile : null;
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

/** Asks the server for one computer move at a time and shows each (SPEC KC-24, C-6). */
async function computerLoop() {
  if (state.looping || !computerMayGo()) return;
  state.looping = true;
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
        if (pile) slideFrom(from, pile);
        playSound(step.move === "end" ? "undo" : "place");
        announce(stepAnnouncement(next, step));
      }
    }
  } catch (err) {
    handleError(err);
  } finally {
    state.looping = false;
  }
  if (state.game && !state.looping && state.game.phase !== "computer") focusAfterTurn();
}

/** The sentence for a step, plus what follows it (a drawn King, the next turn, the end). */
function stepAnnouncement(next, step) {
  const parts = [stepText(next, step.seat, step.move), ...(next.events || []).map((e) => eventText(next, e))];
  parts.push(...afterText(next));
  return sentences(parts);
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

function focusHand(index) {
  const cards = $("hand").querySelectorAll(".hand-card");
  if (cards.length) cards[Math.max(0, Math.min(index, cards.length - 1))].focus();
  else if (!$("end-btn").hidden) $("end-btn").focus();
}

// --- choosing and playing ----------------------------------------------------------------

function blocked() {
  if (state.paused) {
    announce(t("kc.paused_announce"));
    say(t("kc.paused_announce"));
    return true;
  }
  if (!myTurn()) {
    say(state.game && state.game.phase === "computer" ? t("kc.wait_computer") : "");
    return true;
  }
  return false;
}

function play(move, keyboard) {
  const game = state.game;
  const m = parseMove(move);
  const from = m.kind === "play" ? rectOf(table.card(m.card)) : rectOf(table.pile(m.from));
  const handIndex = m.kind === "play" ? game.view.hand.indexOf(m.card) : -1;
  run(async () => {
    const next = await kcApi.move(game, move);
    showError(null);
    state.selection = null;
    adopt(next);
    render();
    slideFrom(from, m.kind === "play" ? m.pile : m.to);
    const parts = [stepText(next, game.view.to_play, move), ...(next.view.is_over ? [endSummary(next)] : [])];
    playSound(next.view.is_over ? "end" : "place");
    say(parts[0]);
    announce(sentences(parts));
    if (next.view.is_over) $("end-title")?.focus?.();
    else if (keyboard) focusHand(handIndex >= 0 ? handIndex : 0);
  });
}

function endTurn() {
  if (blocked()) return;
  const game = state.game;
  if (!view().legal_moves.includes("end")) {
    if (kingsFirst(view())) say(t("kc.kings_first_now"));
    return;
  }
  const seat = game.view.to_play;
  run(async () => {
    const next = await kcApi.move(game, "end");
    showError(null);
    state.selection = null;
    adopt(next);
    state.waitNext = next.phase === "computer" || next.phase === "handoff";
    render();
    playSound("undo");
    const parts = [t("kc.did.end", { who: seatName(next, seat) })];
    if (next.view.rules.draw === "last" && next.viewer === seat && next.view.last_draw) {
      parts.push(t("kc.you_drew", { card: cardName(next.view.last_draw) }));
    }
    for (const e of next.events || []) if (e.seat === seat) parts.push(eventText(next, e));
    if (state.waitNext) parts.push(t("kc.press_next"));
    else parts.push(...afterText(next));
    say(sentences(parts));
    announce(sentences(parts));
    if (state.waitNext) $("next-btn").focus();
    else if (next.view.is_over) $("end-title")?.focus?.();
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
    state.selection = null;
    adopt(next);
    render();
    playSound("undo");
    say(t("kc.undone"));
    announce(t("kc.undone"));
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
    const round = t("kc.round_line", { round: next.match.round, rounds: next.match.rounds });
    announce(sentences([round + t("kc.full_stop"), turnText(next)]));
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
  (!$("continue-box").hidden ? $("continue-btn") : $("start-btn")).focus();
}

function showTable() {
  state.screen = "table";
  $("setup").hidden = true;
  $("table").hidden = false;
  render();
}

function continueMatch() {
  showTable();
  focusAfterDeal();
}

// --- wiring --------------------------------------------------------------------------------

function wire() {
  table = createTable(
    { cross: $("cross"), seats: $("seats"), hand: $("hand"), handTitle: $("hand-title"), moveLog: $("move-log") },
    { onPile: (pile, ev) => chooser.choosePile(pile, ev), onCard: (code, ev) => chooser.chooseCard(code, ev) },
  );
  chooser = createChooser({
    state,
    focusPile: (name) => table.pile(name).focus(),
    legal,
    blocked,
    render,
    say,
    play,
  });
  wireSetup(startMatch);
  wireCodeForm($("code-form"), $("room-code"));
  $("continue-btn").addEventListener("click", continueMatch);
  $("end-btn").addEventListener("click", endTurn);
  $("next-btn").addEventListener("click", nextPlayer);
  $("reveal-btn").addEventListener("click", reveal);
  $("undo-btn").addEventListener("click", undo);
  $("pause-btn").addEventListener("click", togglePause);
  $("speed").addEventListener("change", (ev) => setSpeed(ev.target.value));
  $("menu-btn").addEventListener("click", showSetup);
  // An empty area of the table cancels a selection (SPEC KC-25).
  $("table").addEventListener("click", (ev) => {
    if (state.selection && !ev.target.closest("button, select, a, input, label, dialog")) chooser.cancel();
  });
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
  if (state.game && state.game.phase !== "match_over") continueMatch();
  else showSetup();
  document.body.dataset.ready = "kc";
}

start();
