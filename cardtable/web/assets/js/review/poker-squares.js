/**
 * The Poker Squares review page (ps-review.html?game=<id>): asks the server to review a
 * finished deal, shows the progress while it works, then steps through the 25 placements
 * (buttons, ← → Home End, a slider), with the summary (accuracy, score, par, expected points
 * lost, each with a line saying what it means), the evaluation graph and the list of marked
 * placements. Each placement's verdict says in words which line (row or column) the chosen
 * cell and the engine's best cell served and the hand it was building (the server's
 * `chosen_line` / `best_line`); a cell as good as the best says so, never "0.0 lost". Each
 * step is announced.
 */

import "../shell/boot.js";
import { cardFaceSvg, cardName } from "../core/cards.js";
import { announce, errorRouter, showError } from "../core/feedback.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { pageParam, reviewApi, stepKeys } from "./api.js";
import { SLOT, withChips } from "./card-text.js";
import { drawGraph } from "./graph.js";

const POLL_MS = 400;
const $ = (id) => document.getElementById(id);
const state = { id: null, review: null, step: 1 };

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const where = ([row, col]) => ({ row: row + 1, col: col + 1 });
const signed = (n) => (n > 0 ? `+${n}` : String(n));

function noGame() {
  $("review-wait").hidden = true;
  $("review").hidden = true;
  $("error").textContent = t("rv.no_game");
}

const handleError = errorRouter({ not_found: noGame, no_player: noGame, wrong_phase: noGame });

// --- waiting for the server ----------------------------------------------------------------

function showProgress(status) {
  $("review-wait").hidden = false;
  const bar = $("review-progress");
  bar.max = status.total;
  bar.value = status.done;
  const failed = status.state === "failed";
  $("retry-btn").hidden = !failed;
  $("progress-text").textContent = failed
    ? t("rv.failed")
    : status.state === "waiting"
      ? t("rv.waiting")
      : t("rv.progress", { done: status.done, total: status.total });
}

async function load() {
  showError(null);
  let status = await reviewApi.startPokerSquares(state.id);
  for (let i = 0; status.state !== "done"; i++) {
    showProgress(status);
    if (status.state === "failed") return;
    await sleep(POLL_MS);
    status =
      status.state === "waiting" || i % 25 === 24
        ? await reviewApi.startPokerSquares(state.id)
        : await reviewApi.pokerSquares(state.id);
  }
  $("review-wait").hidden = true;
  state.review = status.review;
  $("review").hidden = false;
  renderAll();
  go(1, false);
}

// --- the review ------------------------------------------------------------------------------

function renderSummary() {
  const r = state.review;
  const a = r.accuracy;
  const th = r.thresholds;
  const rows = [
    ["accuracy", `${a.percent}%`, t("rv.accuracy_note", { placements: a.placements, good: a.good, n: a.good_below })],
    ["score", String(r.total), t("rv.score_note")],
    ["par", String(r.par), t("rv.par_note")],
    ["vs_par", signed(r.vs_par), t(r.vs_par >= 0 ? "rv.vs_par_note_up" : "rv.vs_par_note_down")],
    ["expected_loss", r.expected_loss.toFixed(1), t("rv.expected_loss_note")],
    [
      "marks_count",
      `${r.marks.inaccuracy} · ${r.marks.mistake} · ${r.marks.blunder}`,
      t("rv.thresholds", { inaccuracy: th.inaccuracy, mistake: th.mistake, blunder: th.blunder }),
    ],
    ["table", t(`ps.table.${r.table}`), null],
  ];
  const list = $("summary");
  list.replaceChildren();
  for (const [key, value, note] of rows) {
    const div = el("div", { "data-fact": key });
    const dd = el("dd");
    dd.append(el("span", { class: "fact-value" }, value));
    if (note) dd.append(el("span", { class: "fact-note" }, note));
    div.append(el("dt", {}, t(`rv.${key}`)), dd);
    list.append(div);
  }
}

function renderMistakes() {
  const list = $("mistakes");
  list.replaceChildren();
  const marked = state.review.steps.filter((s) => s.mark);
  if (!marked.length) {
    list.append(el("li", { class: "none" }, t("rv.no_mistakes")));
    return;
  }
  for (const s of marked) {
    const li = el("li", { class: `mark-${s.mark}` });
    const text = t("rv.mistake_item", {
      step: s.index + 1,
      card: cardName(s.card),
      mark: t(`rv.mark.${s.mark}`),
      n: s.loss.toFixed(1),
    });
    const button = el("button", { type: "button", "data-step": String(s.index + 1) }, text);
    button.addEventListener("click", () => go(s.index + 1));
    li.append(button);
    list.append(li);
  }
}

function renderAll() {
  renderSummary();
  renderMistakes();
  if (state.review) renderStep();
}

/** The grid before placement n (1-based): the cards placed before it. */
function gridBefore(n) {
  const r = state.review;
  const grid = Array.from({ length: 5 }, () => Array(5).fill(null));
  for (let i = 0; i < n - 1; i++) {
    const [row, col] = r.placements[i];
    grid[row][col] = r.cards[i];
  }
  return grid;
}

function renderGrid(step, n) {
  const grid = gridBefore(n);
  const est = new Map(step.estimates.map((e) => [`${e.row},${e.col}`, e.estimate]));
  const body = $("rv-grid").querySelector("tbody");
  body.replaceChildren();
  $("grid-caption").textContent = t("rv.grid_caption", { n });
  for (let r = 0; r < 5; r++) {
    const tr = el("tr");
    for (let c = 0; c < 5; c++) {
      const td = el("td", { class: "rv-cell", "data-row": String(r), "data-col": String(c) });
      const code = grid[r][c];
      const isChosen = step.chosen[0] === r && step.chosen[1] === c;
      const isBest = step.best[0] === r && step.best[1] === c;
      td.classList.toggle("chosen", isChosen);
      td.classList.toggle("best", isBest);
      const spoken = [];
      const shown = el("span", { class: "cell-face", "aria-hidden": "true" });
      if (code) {
        td.classList.add("filled");
        td.dataset.card = code;
        shown.innerHTML = cardFaceSvg(code);
        spoken.push(t("rv.cell_card", { row: r + 1, col: c + 1, card: cardName(code) }));
      } else {
        const value = est.get(`${r},${c}`);
        const text = value === undefined ? "" : value.toFixed(1);
        shown.textContent = text;
        if (isBest) shown.append(el("span", { class: "star" }, "★"));
        spoken.push(t("rv.cell_empty", { row: r + 1, col: c + 1, value: text }));
      }
      if (isChosen) spoken.push(t("rv.cell_chosen"));
      if (isBest) spoken.push(t("rv.cell_best"));
      td.append(el("span", { class: "visually-hidden" }, spoken.join(", ")), shown);
      tr.append(td);
    }
    body.append(tr);
  }
}

/** Hands a line builds towards card by card (said "building a flush" until made). */
const DRAWS = ["straight", "flush", "straight_flush", "royal_flush"];

/** "row 2" / "column 3" for a line the server named. */
function lineText(line) {
  return t(`rv.line_${line.line}`, { n: line.index + 1 });
}

/** What a line is (five cards) or is building with the card: "building a flush", "a pair of 9s". */
function handText(line, made) {
  if (DRAWS.includes(line.hand)) {
    return t(made ? "rv.build.made" : "rv.build.aim", { hand: t(`rv.hand.${line.hand}`) });
  }
  return t(`rv.build.${line.hand}`, { rank: line.rank ? t(`rv.ranks.${line.rank}`) : "" });
}

/** Cards in `line` once placement n (1-based) is made at `cell` (for "made" vs "building"). */
function lineSize(n, line, cell) {
  const grid = gridBefore(n);
  let count = 1;
  for (let k = 0; k < 5; k++) {
    const [r, c] = line.line === "row" ? [line.index, k] : [k, line.index];
    if (grid[r][c] && !(r === cell[0] && c === cell[1])) count += 1;
  }
  return count;
}

const sameCell = (a, b) => a[0] === b[0] && a[1] === b[1];
const sameLine = (a, b) => a.line === b.line && a.index === b.index;

/**
 * The verdict of a step in words, with `card` standing for the card (a chip on screen, the
 * spoken name in announcements): where it went and why, where the best cell was and why,
 * and what it cost.
 */
function verdict(step, n, card) {
  const chosen = step.chosen_line;
  const best = step.best_line;
  const params = {
    card,
    line: lineText(chosen),
    hand: handText(chosen, lineSize(n, chosen, step.chosen) === 5),
  };
  if (sameCell(step.chosen, step.best)) return t("rv.reason_best", params);
  params.best = sameLine(chosen, best) ? t("rv.cell_at", where(step.best)) : lineText(best);
  params.best_hand = handText(best, lineSize(n, best, step.best) === 5);
  if (step.loss < 0.05) return t("rv.reason_equal", params);
  params.n = step.loss.toFixed(1);
  return step.mark ? t("rv.reason_loss", { ...params, mark: t(`rv.mark.${step.mark}`) }) : t("rv.reason_small", params);
}

function renderStep() {
  const n = state.step;
  const step = state.review.steps[n - 1];
  $("step-title").textContent = t("rv.step_title", { n });
  const card = $("step-card");
  card.innerHTML = cardFaceSvg(step.card);
  card.dataset.card = step.card;
  card.setAttribute("aria-label", cardName(step.card));
  const line = $("step-verdict");
  withChips(line, verdict(step, n, SLOT), [step.card]);
  line.className = `verdict ${step.mark ? `mark-${step.mark}` : "mark-none"}`;
  line.dataset.mark = step.mark || "none";
  renderGrid(step, n);
  const slider = $("step-slider");
  slider.value = String(n);
  slider.setAttribute("aria-valuetext", t("rv.step_title", { n }));
  $("first-btn").disabled = n === 1;
  $("prev-btn").disabled = n === 1;
  $("next-btn").disabled = n === 25;
  $("last-btn").disabled = n === 25;
  drawGraph($("graph"), state.review, { current: n, onPick: (i) => go(i) });
  for (const b of $("mistakes").querySelectorAll("button")) {
    b.setAttribute("aria-current", String(Number(b.dataset.step) === n));
  }
}

function go(n, speak = true) {
  if (!state.review) return;
  state.step = Math.max(1, Math.min(25, n));
  renderStep();
  if (speak) {
    const step = state.review.steps[state.step - 1];
    announce(t("rv.announce", { n: state.step, verdict: verdict(step, state.step, cardName(step.card)) }));
  }
}

function wire() {
  $("first-btn").addEventListener("click", () => go(1));
  $("prev-btn").addEventListener("click", () => go(state.step - 1));
  $("next-btn").addEventListener("click", () => go(state.step + 1));
  $("last-btn").addEventListener("click", () => go(25));
  $("retry-btn").addEventListener("click", () => load().catch(handleError));
  stepKeys($("step-slider"), (n) => go(n));
  onLanguageChange(() => {
    if (state.review) renderAll();
  });
}

async function main() {
  addBundle("review");
  await initPage();
  wire();
  state.id = pageParam("game");
  if (!state.id) {
    noGame();
    return;
  }
  try {
    await load();
  } catch (err) {
    handleError(err);
  }
}

main();
