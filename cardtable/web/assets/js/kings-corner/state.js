/**
 * What the modules of the Kings Corner screen (main.js) share, kept here only: `state`, the
 * server's game and what the page made of it; `page`, the parts made once; and what they say
 * (whose turn, the legal moves, the speed the computers play at).
 */

import { getSetting } from "../core/settings.js";

const SPEEDS = {
  slow: { delay: 1600, slide: 250 },
  normal: { delay: 900, slide: 220 },
  fast: { delay: 350, slide: 150 },
  instant: { delay: 0, slide: 0 },
};

export const state = {
  game: null, // KCGame from the server
  selection: null, // {kind: "card", card} | {kind: "pile", pile}
  paused: false,
  busy: false,
  looping: false,
  waitNext: false, // a turn just ended: the board is on show until "Next player"
  screen: "setup",
};

/**
 * The page's parts: the table and the chooser (play.js `wireTable`, made by main.js), and
 * `on`, the actions the end panel's buttons run (actions.js, given by main.js: draw.js
 * imports nothing that imports it).
 */
export const page = { table: null, chooser: null, on: null };

export const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export function speed() {
  if (reducedMotion.matches) return SPEEDS.instant;
  return SPEEDS[getSetting("kcSpeed")] || SPEEDS.normal;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function view() {
  return state.game.view;
}

export function myTurn() {
  const g = state.game;
  return Boolean(g && g.phase === "play" && g.viewer === g.view.to_play && !g.view.is_over);
}

export function legal() {
  return myTurn() && !state.paused ? view().legal_moves : [];
}

/** A game from the server becomes the page's (a new match starts unpaused). */
export function adopt(game) {
  const previous = state.game;
  if (!previous || previous.id !== game.id) {
    state.paused = false;
    state.waitNext = false;
  }
  state.game = game;
  page.chooser.keepSelection();
  if (game.phase !== "computer" && game.phase !== "handoff") state.waitNext = false;
}
