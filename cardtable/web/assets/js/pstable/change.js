/**
 * A table arriving at the Poker Squares table page, from a POST's answer or the live channel:
 * a newer version replaces `state.table` and is drawn on the screen of its phase; what
 * changed is said (someone joined, the deal started, the next card, the hint placing a card
 * for someone, the end); the keyboard follows the game.
 */

import { cardName } from "../core/cards.js";
import { noteFairness } from "../core/fairness.js";
import { announceInOrder, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { playSound } from "../core/sound.js";
import { renderLobby } from "./lobby.js";
import { renderOver } from "./over.js";
import { logSpoken, renderPlay } from "./play.js";
import { mayPlace, noteCard, page, state } from "./state.js";

const $ = (id) => document.getElementById(id);
const SCREENS = { create: "create", lobby: "lobby", playing: "play", over: "over" };

/** Shows one screen ("create", "lobby", "playing", "over") and hides the others. */
export function showScreen(phase) {
  state.screen = phase;
  for (const [name, id] of Object.entries(SCREENS)) $(id).hidden = name !== phase;
}

/** Draws the table shown now (again, after a language change). */
export function render() {
  const table = state.table;
  if (!table) return;
  showScreen(table.phase);
  // What the page shows, for tests and styles: the table's version, phase and deal.
  const main = document.querySelector("main");
  Object.assign(main.dataset, { version: table.version, phase: table.phase, deal: table.deal });
  if (table.phase === "lobby") renderLobby(table);
  else if (table.phase === "playing") renderPlay(table);
  else renderOver(table);
}

/** Log entries newer than the ones this page has said (the log is newest last). */
function freshLog(prev, next) {
  if (!prev || prev.deal !== next.deal) return prev ? next.log : [];
  const known = new Set(prev.log.map((e) => `${e.at}|${e.seat}|${e.card}`));
  return next.log.filter((e) => !known.has(`${e.at}|${e.seat}|${e.card}`));
}

/** What changed, in words. */
function changeText(prev, next) {
  const out = [];
  if (!prev) return out;
  if (prev.phase === "lobby" && next.phase === "lobby") {
    const had = new Set(prev.players.map((p) => p.seat));
    for (const p of next.players)
      if (!had.has(p.seat) && p.seat !== next.you?.seat) out.push(t("pst.joined", { who: p.name }));
  }
  for (const entry of freshLog(prev, next)) out.push(logSpoken(next, entry));
  if (next.phase === "playing" && (prev.phase !== "playing" || prev.deal !== next.deal)) out.push(t("pst.started"));
  if (next.phase === "playing" && next.card && next.card.index !== prev.card?.index) {
    out.push(t("pst.next_card", { n: next.card.index + 1, card: cardName(next.card.card) }));
  }
  if (next.phase === "over" && prev.phase !== "over") {
    const first = next.result.ranking[0];
    out.push(t("pst.end_announce", { who: first.name, n: first.total }));
  }
  return out;
}

function focusAfter(prev, next) {
  const active = document.activeElement;
  const lost = !active || active === document.body || active.closest?.("[hidden]") || active.disabled;
  // A page just opened keeps the focus where the browser put it, but for a card to place.
  if (!prev) {
    if (next.phase === "playing" && mayPlace(next)) page.board.focus();
    return;
  }
  if (prev.phase !== next.phase) {
    if (next.phase === "playing" && mayPlace(next)) page.board.focus();
    else if (next.phase === "over") $("over-title").focus();
    else if (lost && next.phase === "lobby") $("lobby-title").focus();
    return;
  }
  if (next.phase === "playing" && lost && mayPlace(next)) page.board.focus();
}

/**
 * A table from the server. An older or equal version changes nothing (a push may arrive after
 * the POST's answer that carried the same change).
 */
export function adopt(next, { own = false } = {}) {
  const prev = state.table;
  if (prev && next.version <= prev.version) return;
  if (typeof next.now === "number") state.offset = next.now - Date.now() / 1000;
  // The card on show is noted for the verify page before the deal's seed is revealed.
  noteFairness({ view: { game: "poker-squares", fairness: next.fairness, card: next.card?.card ?? null } });
  noteCard(next);
  state.table = next;
  render();
  const parts = changeText(prev, next);
  if (parts.length) announceInOrder(parts.join(" "));
  if (prev && next.card && next.card.index !== prev.card?.index) playSound("place");
  if (prev && next.phase === "over" && prev.phase !== "over") playSound("end");
  if (!own || prev?.phase !== next.phase) focusAfter(prev, next);
}

/** The table does not exist (or closed): say so and offer a new table and the code form. */
export function gone() {
  if (page.live) page.live.stop();
  page.live = null;
  state.table = null;
  showError("kco.error.not_found");
  showScreen("create");
}
