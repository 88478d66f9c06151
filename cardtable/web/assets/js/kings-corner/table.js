/**
 * The Kings Corner table: the cross of eight piles around the stock, the seats along the top,
 * the hand along the bottom and the short move log. It draws what it is given (the server's
 * game and the page's selection) and reports what the player chose; it holds no rules.
 *
 * Piles and hand cards are buttons, so Tab reaches every one and Enter or Space chooses it;
 * each carries its spoken name ("9 of hearts on North, accepts a black 8").
 */

import { cardBackImg, cardFaceSvg, cardName } from "../core/cards.js";
import { t } from "../core/i18n.js";
import {
  capitalise,
  emptySlotText,
  isCorner,
  pileLabel,
  pileName,
  seatName,
  seatRole,
  singlePerson,
  stepText,
} from "./text.js";

const LAYOUT = ["NW", "N", "NE", "W", "STOCK", "E", "SW", "S", "SE"];
const MAX_BACKS = 6;
const LOG_LINES = 8;

function el(tag, className, text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/** A card face in a span, redrawn only when the code changes. */
function setFace(span, code) {
  if (span.dataset.card === code) return;
  span.dataset.card = code;
  span.innerHTML = cardFaceSvg(code);
}

/**
 * `decorateSeat(li, seat, game)`, when given, adds to each seat what the page knows besides
 * the game (an online table's connection states).
 */
export function createTable(parts, { onPile, onCard, decorateSeat = null }) {
  const { cross, seats, hand, handTitle, moveLog } = parts;
  const { piles, stock, stockCount } = buildCross(cross, onPile);
  const handCards = new Map(); // code -> button

  return {
    render(game, ui) {
      renderPiles(piles, game.view, ui);
      renderStock(stock, stockCount, game.view);
      renderSeats(seats, game, decorateSeat);
      renderHand({ hand, handTitle, handCards, onCard }, game, ui);
      renderLog(moveLog, game);
    },
    pile: (name) => piles.get(name).b,
    tail: (name) => piles.get(name).tail,
    card: (code) => handCards.get(code) || null,
    seat: (n) => seats.querySelector(`[data-seat="${n}"]`),
    contains: (node) => cross.contains(node) || hand.contains(node),
    pileName,
  };
}

// --- the piles ---------------------------------------------------------------------------

/** The cross: the stock in the middle, a pile's slot in each other place of `LAYOUT`. */
function buildCross(cross, onPile) {
  const piles = new Map();
  let stock;
  let stockCount;
  for (const slot of LAYOUT) {
    if (slot === "STOCK") {
      stock = el("div", "stock");
      stock.setAttribute("role", "img");
      const back = el("span", "stock-back");
      back.innerHTML = cardBackImg();
      stockCount = el("span", "stock-count");
      stockCount.setAttribute("aria-hidden", "true");
      stock.append(back, stockCount);
      cross.append(stock);
      continue;
    }
    const { box, pile } = buildPile(slot, onPile);
    piles.set(slot, pile);
    cross.append(box);
  }
  return { piles, stock, stockCount };
}

function buildPile(slot, onPile) {
  // A slot holds the pile's button and, over it, its cards (which let clicks through): the
  // button shows only the words its spoken name starts with (tag, "K only", the count).
  const box = el("div", "pile-slot");
  const b = el("button", `pile ${isCorner(slot) ? "corner" : "centre"}`);
  b.type = "button";
  b.dataset.pile = slot;
  const cards = el("span", "pile-cards");
  cards.setAttribute("aria-hidden", "true");
  const head = el("span", "card pile-head");
  const tail = el("span", "card pile-tail");
  cards.append(head, tail);
  const empty = el("span", "pile-empty");
  const tag = el("span", "pile-tag");
  const count = el("span", "pile-count");
  // The marks are drawn by CSS; the pile's name says them in words.
  const mark = el("span", "pile-mark");
  const target = el("span", "target-mark");
  for (const n of [empty, tag, count, mark, target]) n.setAttribute("aria-hidden", "true");
  // What a pile shows in words, in reading order (tag, "K only" or the count), each word
  // apart: its spoken name starts with the same words (pileLabel).
  b.append(tag, " ", empty, " ", count, mark, target);
  b.addEventListener("click", (ev) => onPile(slot, ev));
  box.append(b, cards);
  return { box, pile: { b, head, tail, empty, tag, count } };
}

function renderPiles(piles, view, ui) {
  for (const [name, p] of piles) {
    const cards = view.piles[name];
    const n = cards.length;
    p.b.classList.toggle("empty", n === 0);
    p.b.classList.toggle("single", n === 1);
    p.b.classList.toggle("many", n > 1);
    p.head.hidden = n < 2;
    p.tail.hidden = n < 1;
    if (n >= 2) setFace(p.head, cards[0]);
    if (n >= 1) setFace(p.tail, cards[n - 1]);
    p.empty.textContent = n === 0 ? emptySlotText(view.accepts[name]) : "";
    p.tag.textContent = t(`kc.pile_short.${name}`);
    p.count.textContent = n > 1 ? String(n) : "";
    const target = ui.targets.has(name);
    const selected = ui.selection?.kind === "pile" && ui.selection.pile === name;
    const movable = ui.movable.has(name);
    p.b.classList.toggle("target", target);
    p.b.classList.toggle("selected", selected);
    p.b.classList.toggle("movable", movable);
    p.b.classList.toggle("last", ui.lastPiles.has(name));
    p.b.dataset.count = String(n);
    if (n) p.b.dataset.tail = cards[n - 1];
    else delete p.b.dataset.tail;
    const extra = [];
    if (selected) extra.push(t("kc.pile_selected"));
    else if (movable) extra.push(t("kc.pile_movable"));
    if (target) extra.push(t("kc.pile_target"));
    p.b.setAttribute("aria-label", capitalise(pileLabel(name, cards, view.accepts[name], extra)));
    if (selected || movable) p.b.setAttribute("aria-pressed", String(selected));
    else p.b.removeAttribute("aria-pressed");
  }
}

function renderStock(stock, stockCount, view) {
  stockCount.textContent = String(view.stock_count);
  stock.classList.toggle("none", view.stock_count === 0);
  stock.setAttribute("aria-label", t("kc.stock_name", { n: view.stock_count }));
}

// --- the seats ---------------------------------------------------------------------------

function renderSeats(seats, game, decorateSeat) {
  const items = game.seats.map((_, seat) => {
    const li = seatItem(game, seat);
    if (decorateSeat) decorateSeat(li, seat, game);
    return li;
  });
  seats.replaceChildren(...items);
}

function seatItem(game, seat) {
  const view = game.view;
  const li = el("li", "seat");
  li.dataset.seat = String(seat);
  const toPlay = !view.is_over && view.to_play === seat;
  li.classList.toggle("to-play", toPlay);
  li.classList.toggle("viewer", game.viewer === seat);
  li.classList.toggle("computer", game.seats[seat].kind === "computer");
  const title = el("span", "seat-title");
  const turn = el("span", "seat-turn", "▶");
  turn.setAttribute("aria-hidden", "true");
  const name = el("strong", "seat-name", seatName(game, seat));
  title.append(turn, name);
  const role = seatRole(game, seat);
  if (role) title.append(el("span", "seat-role", role));
  const backs = el("span", "seat-backs");
  backs.setAttribute("aria-hidden", "true");
  const size = view.hand_sizes[seat];
  for (let i = 0; i < Math.min(size, MAX_BACKS); i++) {
    const b = el("span", "mini-back");
    backs.append(b);
  }
  const count = el("span", "seat-count", t("kc.cards_n", { n: size }));
  count.dataset.count = String(size);
  const total = el("span", "seat-total", t("kc.points_n", { n: game.match.totals[seat] }));
  total.dataset.total = String(game.match.totals[seat]);
  const extra = el("span", "visually-hidden", toPlay ? t("kc.seat_to_play") : "");
  li.append(title, backs, count, total, extra);
  return li;
}

// --- the hand ----------------------------------------------------------------------------

/** `parts`: the hand's list and title, its card buttons by code (kept between draws), `onCard`. */
function renderHand({ hand, handTitle, handCards, onCard }, game, ui) {
  const view = game.view;
  if (game.viewer === null) {
    handTitle.textContent = t("kc.hand_hidden");
  } else {
    const key = singlePerson(game) ? "kc.hand_yours" : "kc.hand_of";
    handTitle.textContent = t(key, { who: seatName(game, game.viewer), n: view.hand.length });
  }
  const wanted = game.viewer === null ? [] : view.hand;
  const nodes = wanted.map((code) => {
    let b = handCards.get(code);
    if (!b) {
      b = handCard(code, onCard);
      handCards.set(code, b);
    }
    renderHandCard(b, code, view, ui);
    return b;
  });
  for (const code of [...handCards.keys()]) if (!wanted.includes(code)) handCards.delete(code);
  hand.replaceChildren(...nodes);
  hand.classList.toggle("my-turn", ui.myTurn);
}

function handCard(code, onCard) {
  const b = el("button", "hand-card card");
  b.type = "button";
  b.dataset.card = code;
  const face = el("span", "face");
  face.innerHTML = cardFaceSvg(code);
  const mark = el("span", "play-mark");
  const drawn = el("span", "drawn-mark"); // its word is drawn by CSS (data-tag)
  mark.setAttribute("aria-hidden", "true");
  drawn.setAttribute("aria-hidden", "true");
  b.append(face, mark, drawn);
  b.addEventListener("click", (ev) => onCard(code, ev));
  return b;
}

function renderHandCard(b, code, view, ui) {
  const playable = ui.playable.has(code);
  const selected = ui.selection?.kind === "card" && ui.selection.card === code;
  const drawn = view.last_draw === code && ui.myTurn;
  b.classList.toggle("playable", playable);
  b.classList.toggle("selected", selected);
  b.classList.toggle("drawn", drawn);
  b.setAttribute("aria-pressed", String(selected));
  b.querySelector(".drawn-mark").dataset.tag = drawn ? t("kc.drawn_tag") : "";
  // One name per card ("King of diamonds"): the face's index is not said again.
  const bits = [cardName(code)];
  if (ui.myTurn) bits.push(t(playable ? "kc.card_playable" : "kc.card_stuck"));
  if (drawn) bits.push(t("kc.card_drawn"));
  b.setAttribute("aria-label", capitalise(bits.join(t("kc.sep"))));
}

// --- the log -----------------------------------------------------------------------------

function renderLog(moveLog, game) {
  const recent = game.log.slice(-LOG_LINES).reverse();
  moveLog.replaceChildren(
    ...recent.map((e) => {
      const li = el("li", `log-${e.move === "end" ? "end" : "move"}`, capitalise(stepText(game, e.seat, e.move)));
      li.dataset.move = e.move;
      return li;
    }),
  );
}
