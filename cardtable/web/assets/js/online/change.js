/**
 * A table arriving at the online page (main.js), from a POST's answer or the live channel: a
 * newer version replaces `state.game` (state.js) and is drawn; others' moves slide in and are
 * announced, with the seats' news (drops, returns, stand-ins, timers); "while you were away";
 * the title and notification follow the turn; the keyboard follows the game.
 */

import { turnAttention } from "../core/attention.js";
import { noteFairness } from "../core/fairness.js";
import { announce, announceInOrder, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { storageGet, storageSet } from "../core/settings.js";
import { playSound } from "../core/sound.js";
import { focusHand, landing, lastPiles, say, slideFrom } from "../kings-corner/play.js";
import { eventText, parseMove, sentences } from "../kings-corner/text.js";
import { onlineApi } from "./api.js";
import { render, showScreen, summary, turnText } from "./draw.js";
import { mine, myTurn, page, slideMs, state } from "./state.js";
import { awaySummary, entryText, latestText, newNotes, noteText } from "./story.js";

const $ = (id) => document.getElementById(id);
const SEEN_KEY = "cardtable.onlineSeen"; // {token: {v, n, round}}: what this device last saw
const ANNOUNCE_AT_MOST = 3;

/**
 * A table from the server (a POST answer, or a push). An older or equal version changes
 * nothing. Log entries this page has not shown yet, made by someone else (or by a computer
 * standing in for this device), are animated and announced.
 */
export function adopt(next, { own = false } = {}) {
  const prev = state.game;
  if (prev && next.version <= prev.version) return;
  // A live push passes no API call: its commitment is noted here (core/fairness.js), so the
  // verify link can say this browser saw it before the round's seed was revealed.
  noteFairness(next);
  state.offset = next.now - Date.now() / 1000;
  const wasMyTurn = myTurn();
  const prevPhase = prev?.phase;
  // A new round numbers its log from 1 again.
  if (prev && next.match?.round !== prev.match?.round) state.lastLog = 0;
  const fresh = next.log.filter((e) => e.n > state.lastLog);
  const shown = fresh.filter((e) => own === false && (!mine(e.seat) || e.by));
  // Measured before the board changes: where each shown move's card comes from.
  const last = shown[shown.length - 1];
  let from = null;
  if (last && prev && prev.phase !== "lobby" && state.screen === "table") {
    const m = parseMove(last.move);
    const node = m.kind === "shift" ? page.table.pile(m.from) : m.kind === "play" ? page.table.seat(last.seat) : null;
    from = node ? node.getBoundingClientRect() : null;
  }
  if (next.log.length) state.lastLog = Math.max(state.lastLog, next.log[next.log.length - 1].n);
  state.game = next;
  page.chooser.keepSelection();
  render();
  if (last && from) {
    const pile = landing(last.move);
    if (pile && lastPiles(next).has(pile)) slideFrom(page.table, from, pile, slideMs());
  }
  const parts = [];
  if (shown.length && shown.length <= ANNOUNCE_AT_MOST && prevPhase !== "lobby") {
    for (const e of shown) parts.push(entryText(next, e));
    for (const e of next.events || []) if (!mine(e.seat)) parts.push(eventText(next, e));
    playSound(last.move === "end" ? "undo" : "place");
  }
  // Drops, returns, stand-ins, timers and the host's actions are spoken like moves.
  if (prev && prev.phase !== "lobby") for (const note of newNotes(next, prev.version)) parts.push(noteText(next, note));
  parts.push(...changeText(prev, next, wasMyTurn));
  // Queued: changes that arrive together (a stand-in's steps) are each heard, in order.
  if (parts.length && !own) announceInOrder(sentences(parts));
  if (next.phase !== "lobby") say(latestText(next, () => summary(next)));
  showAway(prev, next);
  noteSeen(next);
  attend();
  if (!own) focusAfterChange(prev, next, wasMyTurn);
}

/** The title, the turn sound and the notification follow whether it is this device's turn. */
export function attend() {
  const g = state.game;
  const body = g && g.phase !== "lobby" ? latestText(g, () => summary(g)) : "";
  turnAttention(myTurn(), { title: t("kco.page_title"), body });
}

function seenAll() {
  try {
    return JSON.parse(storageGet(SEEN_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** Remembers the version (and log entry) this device has shown, for "while you were away". */
function noteSeen(game) {
  if (!game.me || game.phase === "lobby") return;
  const all = seenAll();
  const last = game.log[game.log.length - 1];
  all[state.token] = { v: game.version, n: last ? last.n : 0, round: game.match?.round ?? 0 };
  // Only the last few tables are kept.
  const keys = Object.keys(all);
  for (const key of keys.slice(0, Math.max(0, keys.length - 8))) delete all[key];
  storageSet(SEEN_KEY, JSON.stringify(all));
}

/**
 * "While you were away": when the server says this device's seat is back (a note newer than
 * what the page last showed, after a lost connection or a reload), a short summary of what
 * happened since the version it last saw.
 */
function showAway(prev, next) {
  if (!next.me || next.phase === "lobby") return;
  const seen = prev ? null : seenAll()[state.token];
  const since = prev ? state.seenBefore : seen?.v;
  if (since === undefined || since === null) return;
  const back = (next.notes || []).some((n) => n.kind === "back" && n.v > since && next.me.seats.includes(n.seat));
  if (!back) return;
  const last = prev?.log?.[prev.log.length - 1];
  const from = prev ? { v: prev.version, n: last ? last.n : 0, round: prev.match?.round ?? 0 } : seen;
  const lines = awaySummary(next, from);
  if (!lines) return;
  $("away-list").replaceChildren(
    ...lines.map((line) => Object.assign(document.createElement("li"), { textContent: line })),
  );
  $("away-summary").hidden = false;
  announce(sentences([t("kon.away_title"), ...lines]));
}

/** What changed besides moves: someone joined, the match started, my turn came, it ended. */
function changeText(prev, next, wasMyTurn) {
  const out = [];
  if (!prev) return out;
  if (prev.phase === "lobby") {
    next.seats.forEach((s, i) => {
      if (s.kind === "person" && prev.seats[i].kind === "open" && !mine(i)) out.push(t("kco.joined", { who: s.name }));
    });
    if (next.phase !== "lobby") out.push(t("kco.started"));
  }
  const over = next.phase === "round_over" || next.phase === "match_over";
  const wasOver = prev.phase === "round_over" || prev.phase === "match_over";
  if (over && !wasOver) out.push(summary(next));
  else if (!over && next.phase !== "lobby" && (myTurn() !== wasMyTurn || prev.phase !== next.phase)) {
    out.push(turnText(next));
  }
  return out;
}

/** Keyboard focus follows the game when it was nowhere useful (or on a vanished control). */
function focusAfterChange(prev, next, wasMyTurn) {
  const active = document.activeElement;
  const lost = !active || active === document.body || active.closest?.("[hidden]") || active.disabled;
  const onTable = active && page.table.contains(active);
  if (prev?.phase === "lobby" && next.phase !== "lobby") {
    if (myTurn()) focusHand(0);
    else $("table-title").setAttribute("tabindex", "-1");
    if (!myTurn()) $("table-title").focus();
    return;
  }
  const over = next.phase === "round_over" || next.phase === "match_over";
  if (over && (lost || onTable)) $("end-title")?.focus();
  else if (myTurn() && !wasMyTurn && (lost || onTable)) focusHand(0);
  else if (next.phase === "handoff" && mine(next.turn?.seat) && (lost || onTable)) $("reveal-btn").focus();
}

export async function refresh() {
  if (!state.token) return;
  try {
    adopt(await onlineApi.get(state.token), { own: true });
  } catch (err) {
    if (err.code === "not_found") gone();
  }
}

/** The table does not exist (or closed): say so and offer the code form. */
export function gone() {
  if (page.live) page.live.stop();
  page.live = null;
  state.game = null;
  showError("kco.error.not_found");
  showScreen("code");
}
