/**
 * The Kings Corner round replay (kc-replay.html?game=<id>&round=<n>, or for a round of an
 * online table kc-replay.html?round=<n>#table=<token>: the token stays in the fragment, as in
 * the invite link, and the seats are called by the table's names): once a round is over
 * the server sends every turn with every hand (it refuses a round in progress). The page
 * steps through the moves (buttons, ← → Home End, a slider), animates the card each move
 * lands, draws the piles as the cross people play on (the four centre piles around the stock,
 * the corners diagonal: the table's own classes from kings-corner.css, cards from
 * core/cards.js), and shows for the turn on show what the strong computer would have played
 * in that seat's place, compared like with like: the penalty each line led to when the round
 * was played on to its end the same way (the server's `outcome`), then the cards each way kept
 * and left open for the next player.
 */

import "../shell/boot.js";
import { cardBackImg, cardFaceSvg, cardName } from "../core/cards.js";
import { announce, errorRouter } from "../core/feedback.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { isCorner, isYou, parseMove, pileName, seatName, sentences, stepText } from "../kings-corner/text.js";
import { pageParam, reviewApi, stepKeys } from "./api.js";

const $ = (id) => document.getElementById(id);
/** The cross as the table lays it out: NW N NE / W stock E / SW S SE. */
const BUSY_RETRIES = 8;

/** The round's replay. A round not worked out yet waits for the server's hints to go first
 * (429 while another of the player's replays is worked out, 503 when no search slot is spare):
 * it is asked for again after the Retry-After the server gives, a few times, before the error
 * shows. */
async function fetchReplay() {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return state.table
        ? await reviewApi.onlineRound(state.table, state.round)
        : await reviewApi.kingsCornerRound(state.id, state.round);
    } catch (err) {
      const busy = err.status === 429 || err.status === 503;
      if (!busy || attempt >= BUSY_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (err.retryAfter || 1)));
    }
  }
}

const LAYOUT = ["NW", "N", "NE", "W", "STOCK", "E", "SW", "S", "SE"];
const state = { id: null, table: null, round: 1, replay: null, steps: [], step: 0 };

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function noRound() {
  $("replay").hidden = true;
  $("replay-wait").hidden = true;
  $("replay-title").textContent = t("kr.page_title").split(" · ")[0];
  $("error").textContent = t("kr.no_game");
}

const handleError = errorRouter({ not_found: noRound, no_player: noRound, wrong_phase: noRound });

/** The game as kings-corner/text.js names seats: {seats: [{kind}]}; an online table's seats
 * are its people by name and its computers, and `me` the seats of this device ("You"). */
function seatsOf(replay) {
  if (!replay.names) return { seats: replay.seats.map((kind) => ({ kind })) };
  const seats = replay.seats.map((kind, i) =>
    kind === "computer" ? { kind: "computer" } : { kind: "person", name: replay.names[i] },
  );
  return { seats, me: { seats: replay.me } };
}

/** The online table's token, from the address's fragment (#table=<token>), or null. */
function tableParam() {
  return new URLSearchParams(window.location.hash.slice(1)).get("table");
}

/** The address of round `n`'s replay of this game or table. */
function roundHref(n) {
  if (state.table) return `kc-replay.html?round=${n}#table=${encodeURIComponent(state.table)}`;
  return `kc-replay.html?game=${encodeURIComponent(state.id)}&round=${n}`;
}

/** Every step: the deal, then each move of each turn, with its frame. */
function flatten(replay) {
  const steps = [{ frame: replay.turns[0].start, turn: 0, move: null, seat: replay.turns[0].seat }];
  replay.turns.forEach((turn, k) => {
    for (const m of turn.moves) steps.push({ frame: m.frame, turn: k, move: m.move, seat: turn.seat });
  });
  return steps;
}

function stepSentence(step) {
  const game = seatsOf(state.replay);
  if (step.move === null) return t("kr.start", { who: seatName(game, step.seat) });
  return stepText(game, step.seat, step.move);
}

function cardSpan(code, moved) {
  const span = el("span", { class: moved ? "card kr-card moved" : "card kr-card", "data-card": code });
  span.innerHTML = cardFaceSvg(code);
  return span;
}

function landed(step) {
  if (!step.move) return { card: null, pile: null };
  const m = parseMove(step.move);
  if (m.kind === "play") return { card: m.card, pile: m.pile };
  if (m.kind === "shift") return { card: null, pile: m.to };
  return { card: null, pile: null };
}

function face(code, className) {
  const span = el("span", { class: `card ${className}`, "data-card": code });
  span.innerHTML = cardFaceSvg(code);
  return span;
}

/** One pile of the cross: its tag, its first and top cards (the table's look), its count. */
function pileSlot(pile, cards, moved) {
  const n = cards.length;
  const box = el("div", { class: "pile-slot kr-slot", "data-pile": pile, "data-cards": cards.join(" ") });
  const size = n === 0 ? "empty" : n === 1 ? "single" : "many";
  const label = n
    ? t("kr.pile", { pile: pileName(pile), cards: cards.map(cardName).join(t("rv.sep")) })
    : t("kr.pile_empty", { pile: pileName(pile) });
  const shown = el("div", {
    class: `pile ${isCorner(pile) ? "corner" : "centre"} ${size}`,
    role: "img",
    "aria-label": label,
  });
  if (moved.pile === pile) shown.classList.add("last", "landed");
  const tag = el("span", { class: "pile-tag", "aria-hidden": "true" }, t(`kc.pile_short.${pile}`));
  const empty = el("span", { class: "pile-empty", "aria-hidden": "true" }, n ? "" : isCorner(pile) ? "K" : "");
  const count = el("span", { class: "pile-count", "aria-hidden": "true" }, n > 1 ? String(n) : "");
  shown.append(tag, empty, count);
  const faces = el("span", { class: "pile-cards", "aria-hidden": "true" });
  if (n >= 2) faces.append(face(cards[0], "pile-head"));
  if (n >= 1) {
    const top = face(cards[n - 1], "pile-tail");
    if (cards[n - 1] === moved.card) top.classList.add("moved");
    faces.append(top);
  }
  box.append(shown, faces);
  return box;
}

function stockSlot(count) {
  const stock = el("div", {
    class: count ? "stock" : "stock none",
    role: "img",
    "aria-label": t("kc.stock_name", { n: count }),
  });
  const back = el("span", { class: "stock-back", "aria-hidden": "true" });
  back.innerHTML = cardBackImg();
  stock.append(back, el("span", { class: "stock-count", "aria-hidden": "true" }, String(count)));
  return stock;
}

function renderFrame(step, animate) {
  const frame = step.frame;
  const game = seatsOf(state.replay);
  const moved = animate ? landed(step) : { card: null, pile: null };
  $("piles").replaceChildren(
    ...LAYOUT.map((slot) =>
      slot === "STOCK" ? stockSlot(frame.stock_count) : pileSlot(slot, frame.piles[slot] || [], moved),
    ),
  );
  const hands = $("hands");
  hands.replaceChildren();
  frame.hands.forEach((hand, seat) => {
    const li = el("li", { class: "kr-hand", "data-seat": String(seat) });
    if (seat === step.seat) li.classList.add("to-play");
    const who = seatName(game, seat);
    li.append(el("h3", {}, t("kr.hand_of", { who, n: hand.length })));
    const row = el("p", { class: "kr-cards" });
    row.append(el("span", { class: "visually-hidden" }, hand.map(cardName).join(t("rv.sep"))));
    const faces = el("span", { "aria-hidden": "true" });
    for (const code of hand) faces.append(cardSpan(code, false));
    row.append(faces);
    li.append(row);
    hands.append(li);
  });
}

/** "Penalty 4 (won)" for one line's end of round; a dash when its play-out did not end. */
function roundEnd(end) {
  if (!end) return t("kr.none");
  return end.won ? t("kr.round_end_won", { n: end.penalty }) : String(end.penalty);
}

function renderAdvice(turn) {
  const game = seatsOf(state.replay);
  const who = seatName(game, turn.seat);
  const you = isYou(game, turn.seat);
  $("advice-title").textContent = you ? t("kr.advice_you") : t("kr.advice_other", { who });
  const said = sentences(turn.suggested.moves.map((m) => stepText(game, turn.seat, m)));
  $("advice-moves").textContent = turn.same ? t("kr.same") : t("kr.advice_moves", { moves: said });
  const table = $("advice");
  table.replaceChildren();
  table.hidden = turn.same;
  $("advice-notes").hidden = turn.same;
  if (turn.same) return;
  const head = el("tr");
  for (const key of ["kr.col_what", "kr.col_played", "kr.col_strong"]) head.append(el("th", { scope: "col" }, t(key)));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  const shown = (v) => (v === null || v === undefined ? t("kr.none") : String(v));
  const rows = [];
  const o = turn.outcome;
  if (o) {
    rows.push([
      "round_end",
      t("kr.round_end"),
      roundEnd(o.played),
      roundEnd(o.suggested),
      o.played?.penalty,
      o.suggested?.penalty,
    ]);
  }
  for (const [key, field] of [
    ["kr.kept", "kept"],
    ["kr.open_next", "open_next"],
  ]) {
    const mine = turn.actual[field];
    const strong = turn.suggested[field];
    rows.push([field, t(key), shown(mine), shown(strong), mine, strong]);
  }
  for (const [field, label, mine, strong, a, b] of rows) {
    const tr = el("tr", { "data-row": field });
    tr.append(el("th", { scope: "row" }, label));
    tr.append(el("td", { class: "num" }, mine), el("td", { class: "num" }, strong));
    if (a !== b) tr.classList.add("differs");
    body.append(tr);
  }
  table.append(thead, body);
  $("advice-round-note").hidden = !o;
}

function render(animate = false) {
  const r = state.replay;
  $("replay-title").textContent = t("kr.title", { round: r.round });
  const step = state.steps[state.step];
  const turn = r.turns[step.turn];
  const line = step.move === null ? stepSentence(step) : `${t("kr.turn", { turn: turn.turn })} · ${stepSentence(step)}`;
  $("step-text").textContent = line;
  renderFrame(step, animate);
  renderAdvice(turn);
  const last = state.steps.length - 1;
  const slider = $("step-slider");
  slider.max = String(last);
  slider.value = String(state.step);
  slider.setAttribute("aria-valuetext", line);
  $("first-btn").disabled = state.step === 0;
  $("prev-btn").disabled = state.step === 0;
  $("next-btn").disabled = state.step === last;
  $("last-btn").disabled = state.step === last;
  return line;
}

function go(n) {
  if (!state.replay) return;
  const target = Math.max(0, Math.min(state.steps.length - 1, n));
  const forward = target === state.step + 1;
  state.step = target;
  announce(render(forward));
}

function renderRounds() {
  const nav = $("round-nav");
  nav.replaceChildren();
  const r = state.replay;
  nav.hidden = r.finished_rounds < 2;
  for (let n = 1; n <= r.finished_rounds; n++) {
    const a = el("a", { href: roundHref(n), class: "button" }, t("kr.round_n", { n }));
    if (n === r.round) a.setAttribute("aria-current", "page");
    nav.append(a);
  }
}

async function main() {
  addBundle("review");
  await initPage();
  state.id = pageParam("game");
  state.table = tableParam();
  state.round = Number(pageParam("round") || "1");
  $("first-btn").addEventListener("click", () => go(0));
  $("prev-btn").addEventListener("click", () => go(state.step - 1));
  $("next-btn").addEventListener("click", () => go(state.step + 1));
  $("last-btn").addEventListener("click", () => go(state.steps.length - 1));
  stepKeys($("step-slider"), (n) => go(n));
  onLanguageChange(() => {
    if (state.replay) {
      renderRounds();
      render();
    } else if ($("error").textContent) noRound();
  });
  if (!(state.id || state.table) || !Number.isInteger(state.round) || state.round < 1) {
    noRound();
    return;
  }
  if (state.table) {
    // The header's link leads back to the table.
    const back = document.querySelector(".site-nav a");
    if (back) {
      back.href = `kings-corner-online.html#${encodeURIComponent(state.table)}`;
      back.dataset.i18n = "kr.back_table";
      back.textContent = t("kr.back_table");
    }
  }
  try {
    state.replay = await fetchReplay();
  } catch (err) {
    $("replay-wait").hidden = true;
    handleError(err);
    return;
  }
  state.steps = flatten(state.replay);
  state.step = 0;
  $("replay-wait").hidden = true;
  $("replay").hidden = false;
  renderRounds();
  render();
}

main();
