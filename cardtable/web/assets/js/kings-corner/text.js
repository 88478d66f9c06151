/**
 * Words for the Kings Corner screen: seat names, pile names, what a pile accepts, why a move
 * is refused, the rules in force and the sentence for each logged step or event. Only text:
 * what a pile accepts (`view.accepts`), why a move is refused (`view.refusals`) and which
 * moves are legal (`view.legal_moves`) all come from the server.
 */

import { cardName } from "../core/cards.js";
import { t } from "../core/i18n.js";

export const CENTRE = ["N", "E", "S", "W"];
export const CORNERS = ["NE", "SE", "SW", "NW"];
export const PILES = [...CENTRE, ...CORNERS];

export function pileName(pile) {
  return t(`kc.pile.${pile}`);
}

/** A pile inside a sentence: "North", "the south-east corner" ("moved the pile onto ..."). */
export function pileRef(pile) {
  return t(`kc.pile_ref.${pile}`);
}

export function isCorner(pile) {
  return CORNERS.includes(pile);
}

/** The seats this device plays at an online table (`game.me`); null at a local game. */
function mySeats(game) {
  if (!("me" in game)) return null;
  return game.me ? game.me.seats : [];
}

/** True when one person plays at this device: that person is called "You". */
export function singlePerson(game) {
  const mine = mySeats(game);
  if (mine) return mine.length === 1;
  return game.seats.filter((s) => s.kind === "human").length === 1;
}

/** True when `seat` is the one person at the table (or at this device online), called "You". */
export function isYou(game, seat) {
  const mine = mySeats(game);
  if (mine) return mine.length === 1 && mine[0] === seat;
  return game.seats[seat]?.kind === "human" && singlePerson(game);
}

/** A seat's name. Online, a person's display name is text typed by a person: callers put it
 * in the page with `textContent` only. */
export function seatName(game, seat) {
  const s = game.seats[seat];
  if (s.kind === "human") return singlePerson(game) ? t("kc.you") : t("kc.player_n", { n: seat + 1 });
  if (s.kind === "person") return isYou(game, seat) ? t("kc.you") : s.name || t("kc.player_n", { n: seat + 1 });
  if (s.kind === "open") return t("kco.open_seat", { n: seat + 1 });
  return t("kc.computer_n", { n: seat + 1 });
}

/** A computer's strength ("normal"); nothing for a person (the name says who it is). */
export function seatRole(game, seat) {
  const s = game.seats[seat];
  return s.kind === "computer" ? t(`kc.strength.${s.strength}`) : "";
}

/** "accepts a black 8", "takes only a King", ... for what a pile accepts (`view.accepts[pile]`). */
export function acceptText(accept) {
  if (accept.what === "build") {
    return t("kc.accepts", { colour: t(`kc.colour.${accept.colour}`), rank: t(`rank.${accept.rank}`) });
  }
  return t(`kc.accepts_${accept.what}`);
}

/** The short text printed inside an empty slot ("K only", "Any card but K"). */
export function emptySlotText(accept) {
  return accept.what === "king" ? t("kc.slot_king") : accept.what === "any_but_king" ? t("kc.slot_any") : "";
}

const BUILD_REFUSALS = new Set(["on_ace", "king_on_card", "not_one_below", "same_colour"]);

/**
 * Why a move onto `target` is refused, from the server's reason (`view.refusals`: a `key` and
 * its `params`: `card`, `tail`, `pile`). `accept` is what the target accepts.
 */
export function refusalText(refusal, target, accept) {
  const p = refusal.params || {};
  const build = accept?.what === "build";
  const words = {
    card: p.card ? cardName(p.card) : "",
    tail: p.tail ? cardName(p.tail) : "",
    pile: p.pile ? pileName(p.pile) : "",
    target: pileRef(target),
    colour: build ? t(`kc.colour.${accept.colour}`) : "",
    rank: build ? t(`rank.${accept.rank}`) : "",
  };
  const why = t(`kc.why.${refusal.key}`, words);
  // A pile move that does not build: its first card is the one that must fit.
  if (BUILD_REFUSALS.has(refusal.key) && p.pile) return sentences([t("kc.why.pile_starts", words), why]);
  return why;
}

/** What a pile shows in words besides its cards: its tag, then "K only" or its count. */
export function pileShown(pile, cards, accept) {
  const tag = t(`kc.pile_short.${pile}`);
  const shown = !cards.length ? emptySlotText(accept) : cards.length > 1 ? String(cards.length) : "";
  return { tag, shown };
}

/**
 * The spoken name of a pile: "N, 3 cards: 9 of hearts on North, 3 cards from the jack of
 * spades, accepts a black 8". It starts with the words the pile shows ("N", "3", "NW",
 * "K only"), so a person using voice control can say what they see.
 */
export function pileLabel(pile, cards, accept, extra = []) {
  const parts = [];
  if (!cards.length) {
    parts.push(t(isCorner(pile) ? "kc.pile_empty_corner" : "kc.pile_empty_centre", { pile: pileName(pile) }));
  } else {
    const tail = cards[cards.length - 1];
    parts.push(t("kc.pile_tail", { card: cardName(tail), pile: pileRef(pile) }));
    if (cards.length > 1) {
      parts.push(t("kc.pile_head", { n: cards.length, card: cardName(cards[0]) }));
    }
  }
  parts.push(acceptText(accept));
  const { tag } = pileShown(pile, cards, accept);
  const seen = !cards.length ? emptySlotText(accept) : cards.length > 1 ? t("kc.cards_n", { n: cards.length }) : "";
  const name = [...parts, ...extra].join(t("kc.sep"));
  return t(seen ? "kc.pile_label" : "kc.pile_label_tag", { tag, shown: seen, name: capitalise(name) });
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

/** One sentence for an event of a game answer (`events`) that a step's own sentence does not
 * already say: a King drawn and put in a corner. */
export function eventText(game, event) {
  if (event.kind === "king_to_corner") {
    return t("kc.did.draw_king", { who: seatName(game, event.seat), pile: pileRef(event.pile) });
  }
  return "";
}

/** One sentence for a logged step: "Computer 2 played the 9 of hearts on North." */
export function stepText(game, seat, move) {
  const who = seatName(game, seat);
  const m = parseMove(move);
  if (m.kind === "end") return t("kc.did.end", { who });
  if (m.kind === "draw-king") return t("kc.did.draw_king", { who, pile: pileRef(m.pile) });
  if (m.kind === "shift") return t("kc.did.shift", { who, from: pileName(m.from), to: pileRef(m.to) });
  return t("kc.did.play", { who, card: cardName(m.card), pile: pileRef(m.pile) });
}

/** What a step did, as part of a turn's sentence ("played the 9 of hearts on North"); null
 * for the end of the turn. */
export function turnAction(move) {
  const m = parseMove(move);
  if (m.kind === "end") return null;
  if (m.kind === "draw-king") return t("kc.turn_did.draw_king", { pile: pileRef(m.pile) });
  if (m.kind === "shift") return t("kc.turn_did.shift", { from: pileName(m.from), to: pileRef(m.to) });
  return t("kc.turn_did.play", { card: cardName(m.card), pile: pileRef(m.pile) });
}

/** An event as part of the turn of the seat it happened to (a King drawn into a corner). */
export function eventAction(event) {
  return event.kind === "king_to_corner" ? t("kc.turn_did.draw_king", { pile: pileRef(event.pile) }) : "";
}

/**
 * A whole turn of `seat` as one sentence: "Computer 2 played the 3 of spades on South, then
 * ended its turn." `actions` are `turnAction`s; `ended`: the turn ended (else the round did).
 */
export function turnSentence(game, seat, actions, ended) {
  const who = seatName(game, seat);
  if (!actions.length) return t(ended ? "kc.turn_said.none" : "kc.turn_said.nothing", { who });
  const list = actions.join(t("kc.turn_said.sep"));
  return t(ended ? "kc.turn_said.ended" : "kc.turn_said.open", { who, actions: list });
}

/** Sentences in a row: a space between them in English, none in Japanese. */
export function sentences(parts) {
  return parts.filter(Boolean).map(capitalise).join(t("kc.sentence_sep"));
}

export function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
