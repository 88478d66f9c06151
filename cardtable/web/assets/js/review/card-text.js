/**
 * Cards written as people read them in running text: "J♠", "10♥" (the rank as on the card
 * face and the suit as its symbol), each an image whose accessible name is the card's spoken
 * name ("jack of spades"), so a screen reader says the name once and never "J black spade
 * suit". Used by the reviews and the verify page.
 */

import { cardName, rankText } from "../core/cards.js";

const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** "J♠" for "JS". */
export function cardShort(code) {
  return `${rankText(code[0])}${SUIT_SYMBOL[code[1]]}`;
}

/** <span class="card-chip suit-S" role="img" aria-label="jack of spades">J♠</span> */
export function cardChip(code) {
  const span = document.createElement("span");
  span.className = `card-chip suit-${code[1]}`;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardName(code));
  span.textContent = cardShort(code);
  return span;
}

/** A line of chips with a space between them (the whole list stays readable as one text). */
export function cardChips(codes) {
  const out = [];
  codes.forEach((code, i) => {
    if (i) out.push(document.createTextNode(" "));
    out.push(cardChip(code));
  });
  return out;
}

const SLOT = "\u0000";

/**
 * Fills `node` with the translated `text` (made with `{card: SLOT}`-style params) where each
 * SLOT stands for the next of `codes`, drawn as a chip.
 */
export function withChips(node, text, codes) {
  const parts = text.split(SLOT);
  const kids = [];
  parts.forEach((part, i) => {
    if (part) kids.push(document.createTextNode(part));
    if (i < parts.length - 1 && codes[i]) kids.push(cardChip(codes[i]));
  });
  node.replaceChildren(...kids);
}

export { SLOT };
