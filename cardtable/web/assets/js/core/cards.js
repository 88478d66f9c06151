/**
 * Card faces and the card back, drawn as SVG by the project; shared by both games.
 *
 * A card code is the engine's two letters: rank A 2-9 T J Q K, suit S H D C ("TH").
 * Faces carry a large rank and suit in the top-left corner (legible at 60 px wide) and a big
 * suit at the bottom right. Colours come from CSS custom properties (--suit-s, --suit-h, ...),
 * so the four-colour option is a class on <html>. The SVG is decorative (aria-hidden): the
 * element holding it carries the spoken name from `cardName`.
 */

import { t } from "./i18n.js";

const SUIT_SHAPES = {
  H: '<path d="M50 92C24 70 4 53 4 31 4 15 16 4 30 4c9 0 16 5 20 13 4-8 11-13 20-13 14 0 26 11 26 27 0 22-20 39-46 61z"/>',
  D: '<path d="M50 2 90 50 50 98 10 50z"/>',
  S: '<path d="M50 3C64 24 96 38 96 62c0 14-11 23-23 23-9 0-16-4-20-11 1 10 5 17 13 22H34c8-5 12-12 13-22-4 7-11 11-20 11C15 85 4 76 4 62 4 38 36 24 50 3z"/>',
  C: '<circle cx="50" cy="27" r="22"/><circle cx="26" cy="60" r="22"/><circle cx="74" cy="60" r="22"/><path d="M45 55h10c0 20 4 31 13 41H32c9-10 13-21 13-41z"/>',
};

const RANK_TEXT = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };

export function rankText(rank) {
  return RANK_TEXT[rank] || rank;
}

export function isCardCode(code) {
  return typeof code === "string" && /^[A2-9TJQK][SHDC]$/.test(code);
}

/** The spoken name in the current language: "7 of hearts" / "ハートの7". */
export function cardName(code) {
  return t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${code[1]}`) });
}

function suitAt(suit, x, y, size) {
  const s = size / 100;
  return `<g transform="translate(${x} ${y}) scale(${s})">${SUIT_SHAPES[suit]}</g>`;
}

/** SVG markup of a card face. */
export function cardFaceSvg(code) {
  const rank = code[0];
  const suit = code[1];
  const text = rankText(rank);
  // One character is centred over the suit below it; "10" is squeezed into the same corner.
  const placement =
    text.length > 1 ? 'x="5" textLength="56" lengthAdjust="spacingAndGlyphs"' : 'x="25" text-anchor="middle"';
  const court = "JQK".includes(rank) ? '<rect class="card-court" x="45" y="8" width="47" height="124" rx="6"/>' : "";
  return (
    `<svg class="card-svg suit-${suit}" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    '<rect class="card-bg" x="1.5" y="1.5" width="97" height="137" rx="9"/>' +
    court +
    `<text class="card-rank ink" ${placement} y="49">${text}</text>` +
    `<g class="ink">${suitAt(suit, 9, 57, 32)}${suitAt(suit, 42, 78, 52)}</g>` +
    "</svg>"
  );
}

/** Markup of the card back (a static SVG file). */
export function cardBackImg() {
  const src = import.meta.resolve("../../img/card-back.svg");
  return `<img class="card-back" src="${src}" alt="" draggable="false">`;
}
