/**
 * The Poker Squares review page (ps-review.html?game=<id>): asks the server to review a
 * finished deal, shows the progress while it works, then steps through the 25 placements
 * (buttons, ← → Home End, a slider), with the summary (accuracy, score, par, how far behind
 * or ahead of par: each with a line saying what it means), the evaluation graph and the list
 * of marked placements (marks and placements made after a hint). Each placement's verdict
 * names the chosen cell and the engine's best cell by row and column, says in words which
 * line each served and the hand it was building (the server's `chosen_line` / `best_line`)
 * and what the placement lost ("loses an expected 8.6 points"); a cell as good as the best
 * says so, never "0.0 lost". Each step is announced; a placement picked from the list or
 * the graph is brought into view and takes focus.
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
/** Sentences one after another: a space between them in English, none in Japanese. */
const sentences = (...parts) => parts.join(t("rv.sentence_gap"));

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

/** The accuracy's value and its line: placements made after a hint are not counted. */
function accuracyFact(a) {
  if (a.percent === null) return ["–", t("rv.accuracy_all_hinted")];
  const params = { placements: a.placements, good: a.good, n: a.good_below };
  if (!a.hinted) return [`${a.percent}%`, t("rv.accuracy_note", params)];
  return [`${a.percent}%`, sentences(t("rv.accuracy_note_own", params), t("rv.accuracy_hinted", { n: a.hinted }))];
}

/**
 * The one loss figure of the summary: how far the score fell short of par (or went past
 * it), in real points, with the score and par beside it (docs/review.md, "Reading a review").
 */
function parFact(r) {
  if (r.vs_par < 0) return ["rv.behind_par", String(-r.vs_par), t("rv.behind_par_note")];
  if (r.vs_par > 0) return ["rv.ahead_par", String(r.vs_par), t("rv.ahead_par_note")];
  return ["rv.level_par", "0", t("rv.level_par_note")];
}

function renderSummary() {
  const r = state.review;
  const th = r.thresholds;
  const [label, gap, gapNote] = parFact(r);
  const rows = [
    ["accuracy", "rv.accuracy", ...accuracyFact(r.accuracy)],
    ["score", "rv.score", String(r.total), t("rv.score_note")],
    ["par", "rv.par", String(r.par), t("rv.par_note")],
    ["vs_par", label, gap, gapNote],
    [
      "marks_count",
      "rv.marks_count",
      `${r.marks.inaccuracy} · ${r.marks.mistake} · ${r.marks.blunder}`,
      t("rv.thresholds", { inaccuracy: th.inaccuracy, mistake: th.mistake, blunder: th.blunder }),
    ],
    ["table", "rv.table", t(`ps.table.${r.table}`), null],
  ];
  const list = $("summary");
  list.replaceChildren();
  for (const [key, name, value, note] of rows) {
    const div = el("div", { "data-fact": key });
    const dd = el("dd");
    dd.append(el("span", { class: "fact-value" }, value));
    if (note) dd.append(el("span", { class: "fact-note" }, note));
    div.append(el("dt", {}, t(name)), dd);
    list.append(div);
  }
}

/** A marked placement's line in the list: its mark and loss, and whether a hint helped. */
function listItem(s) {
  const params = { step: s.index + 1, card: cardName(s.card) };
  if (!s.mark) return t("rv.hinted_item", params);
  const mark = { ...params, mark: t(`rv.mark.${s.mark}`), n: s.loss.toFixed(1) };
  return t(s.hinted ? "rv.mistake_item_hinted" : "rv.mistake_item", mark);
}

/** The placements worth going back to, in order: the marked ones and those made after a hint. */
function renderMistakes() {
  const list = $("mistakes");
  list.replaceChildren();
  const steps = state.review.steps;
  if (!steps.some((s) => s.mark)) list.append(el("li", { class: "none" }, t("rv.no_mistakes")));
  for (const s of steps.filter((step) => step.mark || step.hinted)) {
    const classes = [s.mark ? `mark-${s.mark}` : "mark-none", s.hinted ? "hinted" : ""];
    const li = el("li", { class: classes.join(" ").trim() });
    const button = el("button", { type: "button", "data-step": String(s.index + 1) }, listItem(s));
    button.addEventListener("click", () => pick(s.index + 1));
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
      td.append(el("span", { class: "visually-hidden" }, spoken.join(t("rv.sep"))), shown);
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

/** "row 2, column 3" for a [row, col] cell (0-based). */
function cellText(cell) {
  return t("rv.cell_at", where(cell));
}

/**
 * What a line is (five cards) or is building with the card, naming the line: "building a
 * flush in row 2", "a pair of 9s in column 3".
 */
function handText(line, made) {
  const params = { line: lineText(line) };
  if (DRAWS.includes(line.hand)) {
    return t(made ? "rv.build.made" : "rv.build.aim", { ...params, hand: t(`rv.hand.${line.hand}`) });
  }
  return t(`rv.build.${line.hand}`, { ...params, rank: line.rank ? t(`rv.ranks.${line.rank}`) : "" });
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

/**
 * The verdict of a step in words, with `card` standing for the card (a chip on screen, the
 * spoken name in announcements): where it went (row and column) and why, where the best
 * cell was and why, what it lost, and whether it was made after a hint.
 */
function verdict(step, n, card) {
  const said = verdictOf(step, n, card);
  return step.hinted ? sentences(said, t("rv.hinted_note")) : said;
}

function verdictOf(step, n, card) {
  const chosen = step.chosen_line;
  const best = step.best_line;
  const params = {
    card,
    cell: cellText(step.chosen),
    hand: handText(chosen, lineSize(n, chosen, step.chosen) === 5),
  };
  if (sameCell(step.chosen, step.best)) return t("rv.reason_best", params);
  params.best = cellText(step.best);
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
  line.dataset.hinted = String(Boolean(step.hinted));
  renderGrid(step, n);
  const slider = $("step-slider");
  slider.value = String(n);
  slider.setAttribute("aria-valuetext", t("rv.step_title", { n }));
  $("first-btn").disabled = n === 1;
  $("prev-btn").disabled = n === 1;
  $("next-btn").disabled = n === 25;
  $("last-btn").disabled = n === 25;
  drawGraph($("graph"), state.review, { current: n, onPick: (i) => pick(i) });
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

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * A placement picked from the list of marked placements or on the graph: shown, and the
 * step's heading and verdict brought into view (they may be a screen away, above the list
 * on a phone) and given focus, so that a keyboard or screen-reader user lands on them too
 * (the heading is read on focus; the verdict is announced after it). Smooth scrolling but
 * under reduced motion.
 */
function pick(n) {
  go(n, false);
  $("step-title").focus({ preventScroll: true });
  $("step-head").scrollIntoView({ block: "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
  const step = state.review.steps[state.step - 1];
  announce(verdict(step, state.step, cardName(step.card)));
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
