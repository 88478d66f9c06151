/**
 * The private render page of tools/figures (never served by the site): draws one position
 * with the game screens' own modules (kings-corner/table.js, poker-squares/board.js, core/cards.js) and reports where
 * its named parts are, so the generator can place numbered markers and arrows on them.
 */

import { cardFaceSvg } from "./assets/js/core/cards.js";
import { loadLanguage } from "./assets/js/core/i18n.js";
import { createTable } from "./assets/js/kings-corner/table.js";
import { createBoard } from "./assets/js/poker-squares/board.js";

function el(tag, className) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

function addSheet(name) {
  return new Promise((resolve, reject) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = `assets/css/${name}.css`;
    link.onload = resolve;
    link.onerror = reject;
    document.head.append(link);
  });
}

/** What the Kings Corner screen would mark, from the engine's legal moves in the view. */
function kcUi(view, spec) {
  const moves = view.legal_moves || [];
  const playable = new Set();
  const movable = new Set();
  for (const m of moves) {
    if (m === "end") continue;
    const [from] = m.split(">");
    if (/^[A2-9TJQK][SHDC]$/.test(from)) playable.add(from);
    else movable.add(from);
  }
  const sel = spec.selection || null;
  const targets = new Set();
  if (sel) {
    const from = sel.kind === "card" ? sel.card : sel.pile;
    for (const m of moves) if (m.startsWith(`${from}>`)) targets.add(m.split(">")[1]);
  }
  return {
    targets,
    selection: sel,
    movable: spec.showMovable === false ? new Set() : movable,
    lastPiles: new Set(spec.lastPiles || []),
    playable,
    myTurn: !view.is_over && view.to_play === 0,
  };
}

function drawKc(stage, spec) {
  stage.classList.add("kc-stage");
  document.body.classList.add("page-kc");
  const seats = el("ul", "seats");
  const wrap = el("div", "board-wrap");
  const cross = el("div", "cross");
  wrap.append(cross);
  const area = el("section", "hand-area");
  const handTitle = el("h2", "hand-title");
  const hand = el("div", "hand");
  area.append(handTitle, hand);
  const moveLog = el("ul", "move-log");
  moveLog.hidden = true;
  stage.append(seats, wrap, area, moveLog);
  const table = createTable({ cross, seats, hand, handTitle, moveLog }, { onPile() {}, onCard() {} });
  const view = spec.view;
  const game = {
    view,
    viewer: 0,
    seats: view.hand_sizes.map((_, i) => (i === 0 ? { kind: "human" } : { kind: "computer", strength: "normal" })),
    match: { totals: view.hand_sizes.map(() => 0) },
    log: [],
  };
  table.render(game, kcUi(view, spec));
  if (spec.hideSeats) seats.hidden = true;
  if (spec.hideHand) area.hidden = true;
}

function drawPs(stage, spec) {
  stage.classList.add("ps-stage");
  document.body.classList.add("page-ps");
  if (spec.current) {
    const box = el("div", "current");
    const card = el("span", "card current-card");
    card.innerHTML = cardFaceSvg(spec.current);
    box.append(card);
    stage.append(box);
  }
  const wrap = el("div", "board-wrap");
  const board = el("div", "board");
  wrap.append(board);
  stage.append(wrap);
  const b = createBoard(board, { onCell() {}, onLine() {} });
  const estimates = new Map((spec.estimates || []).map((e) => [`${e.row},${e.col}`, e.estimate]));
  b.render(spec.view, { hint: spec.hint || null, estimates, highlight: spec.highlight ?? null, paused: false });
}

function drawStrip(stage, spec) {
  const strip = el("div", "strip");
  spec.cards.forEach((code, i) => {
    const c = el("span", "card");
    c.dataset.i = String(i);
    c.innerHTML = cardFaceSvg(code);
    strip.append(c);
  });
  stage.append(strip);
}

const FIND = {
  pile: (a) => document.querySelector(`[data-pile="${a}"]`)?.closest(".pile-slot"),
  tail: (a) => document.querySelector(`[data-pile="${a}"]`)?.closest(".pile-slot").querySelector(".pile-tail"),
  head: (a) => document.querySelector(`[data-pile="${a}"]`)?.closest(".pile-slot").querySelector(".pile-head"),
  card: (a) => document.querySelector(`.hand-card[data-card="${a}"]`),
  stock: () => document.querySelector(".stock-back"),
  seat: (a) => document.querySelector(`.seat[data-seat="${a}"] .seat-backs`),
  hand: () => document.querySelector(".hand"),
  cell: (a) => {
    const [r, c] = a.split(",");
    return document.querySelector(`.cell[data-row="${r}"][data-col="${c}"]`);
  },
  score: (a) => document.querySelector(`.score[data-line="${a}"]`),
  total: () => document.querySelector(".total-cell"),
  current: () => document.querySelector(".current-card"),
  strip: (a) => document.querySelector(`.strip [data-i="${a}"]`),
};

/** The box of a named part ("pile:N", "card:7H", "stock", "cell:2,3"), relative to the stage. */
function locate(name) {
  const [kind, arg] = name.split(":");
  const node = FIND[kind]?.(arg);
  if (!node) throw new Error(`figure anchor not found: ${name}`);
  const s = document.getElementById("stage").getBoundingClientRect();
  const r = node.getBoundingClientRect();
  return { x: r.left - s.left, y: r.top - s.top, w: r.width, h: r.height };
}

window.drawFigure = async (spec, anchors) => {
  await loadLanguage("en");
  const stage = document.getElementById("stage");
  if (spec.kind === "kc") {
    await addSheet("kings-corner");
    drawKc(stage, spec);
  } else if (spec.kind === "ps") {
    await addSheet("poker-squares");
    drawPs(stage, spec);
  } else {
    drawStrip(stage, spec);
  }
  await document.fonts.ready;
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
  const box = stage.getBoundingClientRect();
  const out = {};
  for (const a of anchors) out[a] = locate(a);
  return { width: box.width, height: box.height, anchors: out };
};

/** PNG bytes (base64) to WebP bytes (base64) at `quality` (0-1) and `scale`, with the
 * browser's own encoder. */
window.toWebp = async (png, quality, scale) => {
  const bytes = Uint8Array.from(atob(png), (ch) => ch.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const w = Math.round(bitmap.width * scale);
  const h = Math.round(bitmap.height * scale);
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, w, h);
  const blob = await canvas.convertToBlob({ type: "image/webp", quality });
  const buf = new Uint8Array(await blob.arrayBuffer());
  let bin = "";
  for (let i = 0; i < buf.length; i += 8192) bin += String.fromCharCode(...buf.subarray(i, i + 8192));
  return btoa(bin);
};

window.renderReady = true;
