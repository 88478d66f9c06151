/**
 * What the modules of the online page (main.js) share, kept here only: `state`, the table as
 * this device may see it and what the page made of it; `page`, the parts made once; and what
 * they say about this device (its seats, whether it is its turn, the server's clock).
 */

import { getSetting } from "../core/settings.js";

/** Where this device keeps the name it joins tables with. */
export const NAME_KEY = "cardtable.onlineName";
const SLIDE_MS = 220;
/** Turns in a row a turn-based seat's person missed before the host may give the seat away
 * (the server's `MISSES_FOR_GOOD`, room.py). */
const MISSES_FOR_GOOD = 3;

export const state = {
  token: null,
  game: null, // the OnlineTable as this device may see it (kc-choose calls it `game`)
  selection: null,
  busy: false,
  lastLog: 0, // the highest log entry this page has shown
  offset: 0, // server clock minus this clock, in seconds
  screen: null,
  seenBefore: null, // the version shown when the live connection was lost
};

/**
 * The page's parts: the table and the chooser (kings-corner/play.js `wireTable`, made by
 * main.js), the live channel while one is open (connection.js), and `on`, the actions that
 * drawn buttons run (actions.js, given by main.js: draw.js imports nothing that imports it).
 */
export const page = { table: null, chooser: null, live: null, on: null };

export const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export function serverNow() {
  return Date.now() / 1000 + state.offset;
}

export function inviteUrl() {
  return `${location.origin}${location.pathname}#${state.token}`;
}

export function mine(seat) {
  return Boolean(state.game?.me?.seats.includes(seat));
}

export function myTurn() {
  const g = state.game;
  if (!g || g.phase !== "play" || !g.view || g.view.is_over || g.viewer === null) return false;
  const seat = g.turn?.seat;
  return seat === g.viewer && g.view.to_play === seat && !g.seats[seat].stand_in;
}

export function legal() {
  return myTurn() ? state.game.view.legal_moves : [];
}

/** True when the host may act on `seat`: a person, not here, gone from their device (at a
 * turn-based table: one who missed three turns in a row, or left). */
export function hasOptions(game, seat) {
  const s = game.seats[seat];
  const other = s.kind === "person" && !s.local && !mine(seat);
  // Turn-based: not the connection but three missed turns in a row (docs/online.md).
  const absent =
    other &&
    (game.settings?.pace === "turn"
      ? s.missed >= MISSES_FOR_GOOD || (s.stand_in && s.connection === "away")
      : s.connection !== "online");
  return Boolean(game.me?.host && absent && game.phase !== "match_over");
}

/** How long a card slides (none when motion is reduced or the speed is "instant"). */
export function slideMs() {
  const still = reducedMotion.matches || getSetting("kcSpeed") === "instant";
  return still ? 0 : SLIDE_MS;
}
