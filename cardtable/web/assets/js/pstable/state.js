/**
 * What the modules of the Poker Squares table page (main.js) share, kept here only: `state`,
 * the table as this device may see it and what the page made of it, and `page`, the parts
 * made once. The page holds no rules: the server decides every placement.
 */

/** The cards this page has seen on show, by their index in the deal (0-24), so the log can
 * name a card the hint placed after it left the show. */
const seen = new Map();

export const state = {
  token: null,
  table: null, // the PSTable as this device may see it (docs/ps-tables.md)
  screen: null, // "create", "lobby", "play", "over"
  busy: false,
  lastLog: null, // the newest log entry this page has announced (its `at` and place)
  offset: 0, // server clock minus this clock, in seconds (0 when the table says no time)
};

/** The board (poker-squares/board.js) and the live channel while one is open. */
export const page = { board: null, live: null };

export function serverNow() {
  return Date.now() / 1000 + state.offset;
}

export function inviteUrl() {
  return `${location.origin}${location.pathname}#${state.token}`;
}

/** True when this device has a seat at the table. */
export function seated(table = state.table) {
  return Boolean(table && table.you?.seat !== null && table.you?.seat !== undefined);
}

/** True when this device may place the card on show now. */
export function mayPlace(table = state.table) {
  if (!table || table.phase !== "playing" || !seated(table) || !table.card || !table.game) return false;
  const me = table.players.find((p) => p.seat === table.you.seat);
  return Boolean(me && !me.placed);
}

/** Notes the card on show (and, at the end, every card of the deal) by its index. */
export function noteCard(table) {
  if (table.card) seen.set(table.card.index, table.card.card);
  for (const [k, code] of (table.result?.cards || []).entries()) seen.set(k, code);
}

/** The card of deal index `index`, when this page has seen it. */
export function cardAt(index) {
  return seen.get(index) ?? null;
}

/** A seat's name ("" when the seat has gone). */
export function nameOf(table, seat) {
  return table.players.find((p) => p.seat === seat)?.name ?? "";
}
