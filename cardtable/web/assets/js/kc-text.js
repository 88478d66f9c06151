/**
 * Words for the Kings Corner screen: seat names, pile names, what a pile accepts, the rules
 * in force and the sentence for each logged step. Only text: no legality is decided here
 * (legal moves come from the server's view).
 */

import { cardName } from "./cards.js";
import { t } from "./i18n.js";

export const CENTRE = ["N", "E", "S", "W"];
export const CORNERS = ["NE", "SE", "SW", "NW"];
export const PILES = [...CENTRE, ...CORNERS];
const RANKS = "A23456789TJQK";
const RED = "HD";

export function pileName(pile) {
  return t(`kc.pile.${pile}`);
}

export function isCorner(pile) {
  return CORNERS.includes(pile);
}

/** How many people sit at the table (they decide whether seats are called "You"). */
function humanCount(game) {
  return game.seats.filter((s) => s.kind === "human").length;
}

export function seatName(game, seat) {
  const s = game.seats[seat];
  if (s.kind === "human") {
    return humanCount(game) === 1 ? t("kc.you") : t("kc.player_n", { n: seat + 1 });
  }
  return t("kc.computer_n", { n: seat + 1 });
}

export function seatRole(game, seat) {
  const s = game.seats[seat];
  return s.kind === "human" ? t("kc.role.person") : t(`kc.strength.${s.strength}`);
}

/** "accepts a black 8", "takes only a King", ... for the pile's current tail. */
export function acceptText(pile, cards) {
  if (!cards.length) return t(isCorner(pile) ? "kc.accepts_king" : "kc.accepts_any_but_king");
  const tail = cards[cards.length - 1];
  const index = RANKS.indexOf(tail[0]);
  if (index <= 0) return t("kc.accepts_nothing");
  const colour = RED.includes(tail[1]) ? "black" : "red";
  return t("kc.accepts", { colour: t(`kc.colour.${colour}`), rank: t(`rank.${RANKS[index - 1]}`) });
}

/** The short text printed inside an empty slot. */
export function emptySlotText(pile) {
  return t(isCorner(pile) ? "kc.slot_king" : "kc.slot_any");
}

/** The spoken name of a pile: "9 of hearts on North, accepts a black 8". */
export function pileLabel(pile, cards, extra = []) {
  const parts = [];
  if (!cards.length) {
    parts.push(t(isCorner(pile) ? "kc.pile_empty_corner" : "kc.pile_empty_centre", { pile: pileName(pile) }));
  } else {
    const tail = cards[cards.length - 1];
    parts.push(t("kc.pile_tail", { card: cardName(tail), pile: pileName(pile) }));
    if (cards.length > 1) {
      parts.push(t("kc.pile_head", { n: cards.length, card: cardName(cards[0]) }));
    }
  }
  parts.push(acceptText(pile, cards));
  return [...parts, ...extra].join(t("kc.sep"));
}

export function rulesOptions(rules) {
  return [
    t(`kc.opt.draw.${rules.draw}`),
    t(`kc.opt.pile_moves.${rules.pile_moves ? "on" : "off"}`),
    t(`kc.opt.kings.${rules.kings}`),
    t(`kc.opt.dealt_kings.${rules.dealt_kings}`),
  ].join(" · ");
}

export function rulesLine(view) {
  return t("kc.rules_line", { name: t(`kc.rule_set.${view.rule_set}`), options: rulesOptions(view.rules) });
}

/** Parses a move string: {kind: "end"} | {kind: "play", card, pile} | {kind: "shift", from, to}
 * | {kind: "draw-king", pile}. */
export function parseMove(move) {
  if (move === "end") return { kind: "end" };
  if (move.startsWith("draw-king ")) return { kind: "draw-king", pile: move.slice(10) };
  const [a, b] = move.split(">");
  if (PILES.includes(a)) return { kind: "shift", from: a, to: b };
  return { kind: "play", card: a, pile: b };
}

/** One sentence for a logged step: "Computer 2 played the 9 of hearts on North." */
export function stepText(game, seat, move) {
  const who = seatName(game, seat);
  const m = parseMove(move);
  if (m.kind === "end") return t("kc.did.end", { who });
  if (m.kind === "draw-king") return t("kc.did.draw_king", { who, pile: pileName(m.pile) });
  if (m.kind === "shift") return t("kc.did.shift", { who, from: pileName(m.from), to: pileName(m.to) });
  return t("kc.did.play", { who, card: cardName(m.card), pile: pileName(m.pile) });
}

/** Sentences in a row: a space between them in English, none in Japanese. */
export function sentences(parts) {
  return parts.filter(Boolean).map(capitalise).join(t("kc.sentence_sep"));
}

export function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
