/**
 * The Poker Squares screen: choose table and target, deal, place, hint, undo, pause, the end
 * of the deal, best scores and replay. It renders the server's view and sends moves; the
 * server decides legality and computes hints (docs/api.md).
 */

import "../shell/boot.js";
import { api, hasPlayer } from "../core/api.js";
import { cardFaceSvg, cardName } from "../core/cards.js";
import { announce, errorRouter, onShortcuts, showError } from "../core/feedback.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { playSound } from "../core/sound.js";
import {
  askBeforeAssist,
  countedAttempt,
  dailyName,
  rememberCounted,
  renderCountedLine,
  replacingAsked,
} from "../daily/attempt.js";
import { addDailyButton, addDailyEndLink } from "../daily/links.js";
import { createBoard, formatEstimate, lineName } from "./board.js";
import { bestScoresTable, renderEnd, targetResult } from "./end.js";

const $ = (id) => document.getElementById(id);

const state = {
  game: null, // {id, version, view}
  hint: null,
  estimates: null,
  equalCells: null, // the one estimate, shown as a sentence, when every cell has it
  highlight: null,
  paused: false,
  busy: false,
  scores: null,
  screen: "setup",
};

let board;

// --- drawing -------------------------------------------------------------------------------

function renderStatus(view) {
  const current = $("current-card");
  if (view.card) {
    if (current.dataset.card !== view.card) current.innerHTML = cardFaceSvg(view.card);
    current.dataset.card = view.card;
    current.setAttribute("aria-label", t("ps.current_card_name", { card: cardName(view.card) }));
  } else {
    current.innerHTML = "";
    delete current.dataset.card;
    current.setAttribute("aria-label", t("ps.no_card"));
  }
  current.classList.toggle("none", !view.card);
  // The current card is one of the cards left: the stock beside it holds the ones after it.
  const toCome = view.card ? view.cards_left - 1 : 0;
  $("current-label").textContent = t("ps.card_of", { n: view.placed + 1, total: view.placed + view.cards_left });
  $("cards-left").textContent = String(toCome);
  $("deck").setAttribute("aria-label", t("ps.to_come_name", { n: toCome }));
  $("fact-table").textContent = t(`ps.table.${view.table}`);
  $("fact-target").textContent = t("ps.target_value", {
    level: t(`ps.target.${view.target.level}`),
    points: view.target.points,
  });
  $("fact-total").textContent = String(view.total);
  $("practice-marker").hidden = !view.practice;
  $("replay-marker").hidden = !view.replay;
  $("practice-note").hidden = !view.practice || view.is_over;
}

function renderCaption(view) {
  const caption = $("line-caption");
  const line = state.highlight;
  if (line === null) {
    caption.textContent = "";
    return;
  }
  const points = view.line_scores[line];
  caption.textContent =
    points === null
      ? t("ps.caption_incomplete", { line: lineName(line) })
      : t("ps.caption_line", {
          line: lineName(line),
          hand: t(`hand.${view.line_hands[line]}`),
          n: points,
        });
}

/** The legend of the hint marks, shown while the estimates are: the sample number is the
 * hinted cell's own estimate. */
function renderLegend() {
  const legend = $("hint-legend");
  const hint = state.hint;
  const estimate = hint && state.estimates ? state.estimates.get(`${hint.row},${hint.col}`) : undefined;
  const equal = hint && state.equalCells !== null ? state.equalCells : null;
  legend.hidden = estimate === undefined && equal === null;
  $("legend-est").parentElement.hidden = equal !== null;
  $("legend-equal").hidden = equal === null;
  $("legend-equal").textContent = equal === null ? "" : t("ps.equal_cells", { est: equal });
  $("legend-est").textContent = estimate === undefined ? "" : formatEstimate(estimate);
}

function renderControls(view) {
  const playing = !view.is_over;
  $("hint-btn").disabled = !playing || state.paused;
  $("undo-btn").disabled = !view.can_undo || state.paused;
  $("pause-btn").disabled = !playing;
  $("pause-btn").setAttribute("aria-pressed", String(state.paused));
  $("pause-label").textContent = t(state.paused ? "ps.resume" : "ps.pause");
  $("pause-overlay").hidden = !state.paused;
}

function render() {
  const game = state.game;
  if (!game) return;
  const view = game.view;
  board.render(view, {
    hint: state.hint,
    estimates: state.estimates,
    highlight: state.highlight,
    paused: state.paused,
  });
  renderStatus(view);
  renderCountedLine($("play"), game);
  renderCaption(view);
  renderLegend();
  renderControls(view);
  const end = $("end");
  end.hidden = !view.is_over;
  $("play").classList.toggle("over", view.is_over);
  if (view.is_over) {
    renderEnd(end, view, state.scores, {
      onLine: (line) => {
        toggleHighlight(line);
        $("board").scrollIntoView({ block: "nearest" });
      },
      onReplay: replay,
      onNewDeal: showSetup,
      highlight: state.highlight,
      reviewHref: `ps-review.html?game=${encodeURIComponent(game.id)}`,
    });
    addDailyEndLink(end, game.id);
  }
}

function renderSetup() {
  const box = $("continue-box");
  const game = state.game;
  const unfinished = game && !game.view.is_over;
  box.hidden = !unfinished;
  $("new-note").hidden = !unfinished;
  if (unfinished) {
    $("continue-text").textContent = t("ps.continue_text", {
      placed: game.view.placed,
      table: t(`ps.table.${game.view.table}`),
      total: game.view.total,
    });
  }
  // Today's counted daily attempt says so, and that a new deal asks before replacing it.
  const daily = unfinished ? countedAttempt(game) : null;
  const title = box.querySelector("h2");
  delete title.dataset.i18n;
  title.textContent = daily ? t("daily.continue_title", { name: dailyName(daily) }) : t("ps.continue_title");
  $("new-note").textContent = t(daily ? "daily.continue_note" : "ps.new_note");
  delete $("new-note").dataset.i18n;
  const best = $("best-setup");
  const table = bestScoresTable(state.scores);
  const anyScore =
    state.scores && Object.values(state.scores).some((s) => s && (s.best !== null || s.best_practice !== null));
  best.hidden = !anyScore;
  if (anyScore) {
    const h = document.createElement("h2");
    h.textContent = t("ps.best_title");
    best.replaceChildren(h, table);
  }
}

// --- screens -------------------------------------------------------------------------------

function showSetup() {
  state.screen = "setup";
  $("play").hidden = true;
  $("setup").hidden = false;
  renderSetup();
  const game = state.game;
  if (game) {
    for (const name of ["table", "target"]) {
      const value = name === "table" ? game.view.table : game.view.target.level;
      const input = document.querySelector(`input[name=${name}][value=${value}]`);
      if (input) input.checked = true;
    }
  }
  const first = !$("continue-box").hidden ? $("continue-btn") : $("deal-btn");
  first.focus();
}

function showPlay() {
  state.screen = "play";
  $("setup").hidden = true;
  $("play").hidden = false;
  render();
}

// --- actions -------------------------------------------------------------------------------

function adopt(game) {
  const previous = state.game;
  if (!previous || previous.id !== game.id || previous.version !== game.version) {
    state.hint = null;
    state.estimates = null;
    state.equalCells = null;
  }
  if (!previous || previous.id !== game.id) {
    state.highlight = null;
    state.paused = false;
  }
  state.game = game;
}

const handleError = errorRouter({
  stale_version(err) {
    if (!err.current) return false;
    adopt(err.current);
    render();
    showError("error.stale_version");
  },
  illegal_move() {
    showError("error.illegal_move");
    refresh();
  },
  not_found: lost,
  no_player: lost,
});

/** The deal is gone (or the player is unknown): back to the setup. */
function lost() {
  state.game = null;
  showError("error.not_found");
  showSetup();
}

const run = serialRunner(state, (err) => handleError(err));

async function refresh() {
  if (!state.game) return;
  try {
    adopt(await api.getPokerSquares(state.game.id));
    render();
  } catch (err) {
    if (err.code !== "illegal_move") handleError(err);
  }
}

async function loadScores() {
  try {
    state.scores = await api.pokerSquaresScores();
  } catch {
    state.scores = null;
  }
}

function deal(table, target, replayOf = null) {
  performance.mark("ps-deal-pressed");
  return run(async () => {
    // Today's counted daily attempt is replaced only once the player says so.
    const game = await replacingAsked((replace) => api.newPokerSquares(table, target, replayOf, replace));
    if (!game) return;
    showError(null);
    adopt(game);
    showPlay();
    board.setCursor(0, 0, true);
    announce(t("ps.next", { card: cardName(game.view.card) }));
    performance.mark("ps-grid-interactive");
  });
}

function replay() {
  const game = state.game;
  if (game) deal(game.view.table, game.view.target.level, game.id);
}

function place(row, col) {
  const game = state.game;
  if (!game || state.screen !== "play" || game.view.is_over) return;
  if (state.paused) {
    announce(t("ps.paused_announce"));
    return;
  }
  if (game.view.grid[row][col]) {
    announce(t("ps.occupied"));
    return;
  }
  const card = game.view.card;
  run(async () => {
    const next = await api.place(game, row, col);
    showError(null);
    adopt(next);
    if (next.view.is_over) await loadScores();
    render();
    playSound(next.view.is_over ? "end" : "place");
    let text = `${t("ps.placed", { card: cardName(card), row: row + 1, col: col + 1 })} ${lineNews(next.view, row, col)}`;
    if (next.view.is_over) {
      const result = targetResult(next.view);
      text += ` ${t("ps.end_announce", { total: next.view.total, result })}`;
    } else {
      text += ` ${t("ps.next", { card: cardName(next.view.card) })}`;
    }
    announce(text);
  });
}

/** What the placement at (row, col) made of its row and its column: the hand and points of a
 * line it completed, else how many of its five cards are in. */
function lineNews(view, row, col) {
  const said = [row, 5 + col].map((line) => {
    const points = view.line_scores[line];
    if (points !== null) {
      return t("ps.line_complete", { line: lineName(line), hand: t(`hand.${view.line_hands[line]}`), n: points });
    }
    const cells = line < 5 ? view.grid[line] : view.grid.map((r) => r[line - 5]);
    return t("ps.line_so_far", { line: lineName(line), k: cells.filter(Boolean).length });
  });
  return said.join(" ");
}

/** Z or the Undo button (`byKey`: the key, which asks first on a deal still unassisted). */
async function undo(byKey = false) {
  const game = state.game;
  if (!game || state.paused || state.busy) return;
  if (!game.view.can_undo) {
    if (!game.view.is_over) announce(t("ps.nothing_to_undo"));
    return;
  }
  // The daily's counted attempt asks first, and Z on any unassisted deal: it makes it practice.
  if (!(await askBeforeAssist(game, "undo", byKey)) || state.game !== game) return;
  const [row, col] = game.view.last_placed;
  const card = game.view.grid[row][col];
  run(async () => {
    adopt(await api.undo(game));
    showError(null);
    render();
    board.setCursor(row, col, board.contains(document.activeElement));
    playSound("undo");
    announce(t("ps.undone", { card: cardName(card), row: row + 1, col: col + 1 }));
  });
}

/** H or the Hint button (`byKey`: the key, which asks first on a deal still unassisted). */
async function hint(byKey = false) {
  const game = state.game;
  if (!game || state.paused || state.busy || game.view.is_over) return;
  // The daily's counted attempt asks first, and H on any unassisted deal: it makes it practice.
  if (!(await askBeforeAssist(game, "hint", byKey)) || state.game !== game) return;
  run(async () => {
    const answer = await api.hint(game);
    showError(null);
    adopt(answer.game);
    state.hint = answer.hint;
    // Every cell the same (the first card: the grid is symmetric): one sentence, not 25
    // equal numbers.
    const shown = new Set(answer.estimates.map((e) => formatEstimate(e.estimate)));
    state.equalCells = shown.size === 1 ? [...shown][0] : null;
    state.estimates =
      state.equalCells === null ? new Map(answer.estimates.map((e) => [`${e.row},${e.col}`, e.estimate])) : null;
    render();
    const focusBoard = board.contains(document.activeElement) || document.activeElement === document.body;
    board.setCursor(answer.hint.row, answer.hint.col, focusBoard);
    playSound("hint");
    const said = t("ps.hint_announce", { row: answer.hint.row + 1, col: answer.hint.col + 1 });
    announce(state.equalCells === null ? said : `${said} ${t("ps.equal_cells", { est: state.equalCells })}`);
  });
}

function togglePause() {
  const game = state.game;
  if (!game || game.view.is_over || state.screen !== "play") return;
  state.paused = !state.paused;
  render();
  announce(t(state.paused ? "ps.paused_announce" : "ps.resumed_announce"));
}

function toggleHighlight(line) {
  state.highlight = state.highlight === line ? null : line;
  render();
  if (state.highlight !== null) announce($("line-caption").textContent);
}

function clearSelection() {
  if (state.highlight !== null) state.highlight = null;
  else {
    state.hint = null;
    state.estimates = null;
    state.equalCells = null;
  }
  render();
}

// --- wiring --------------------------------------------------------------------------------

/** 1-5: that column in the cursor's row. */
function jumpToColumn(col) {
  const [row] = board.cursor();
  board.setCursor(Math.min(row, 4), col, true);
}

function wire() {
  board = createBoard($("board"), { onCell: place, onLine: toggleHighlight });
  $("setup-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = new FormData(ev.target);
    deal(form.get("table"), form.get("target"));
  });
  $("continue-btn").addEventListener("click", () => {
    showPlay();
    board.focus();
  });
  $("hint-btn").addEventListener("click", () => hint());
  $("undo-btn").addEventListener("click", () => undo());
  $("pause-btn").addEventListener("click", togglePause);
  $("new-deal-btn").addEventListener("click", showSetup);
  // A click anywhere outside the grid and the line buttons clears a line highlight (SPEC PS-11).
  document.addEventListener("click", (ev) => {
    if (state.highlight === null || state.screen !== "play") return;
    if (ev.target instanceof Element && ev.target.closest("#board, #breakdown button")) return;
    toggleHighlight(state.highlight);
  });
  const keys = { h: () => hint(true), z: () => undo(true), p: togglePause, escape: clearSelection };
  for (let col = 0; col < 5; col++) keys[String(col + 1)] = () => jumpToColumn(col);
  // No game keys while a dialog (settings, the daily's question) is open.
  onShortcuts(() => state.screen === "play" && !document.querySelector("dialog[open]"), keys);
  onLanguageChange(() => (state.screen === "play" ? render() : renderSetup()));
}

async function start() {
  addBundle("daily");
  await initPage();
  wire();
  addDailyButton($("deal-btn"));
  if (hasPlayer()) {
    try {
      const [saved, scores] = await Promise.all([api.continueGames(), api.pokerSquaresScores()]);
      state.scores = scores;
      if (saved.poker_squares) adopt(saved.poker_squares);
      rememberCounted(saved.poker_squares_counted);
    } catch (err) {
      if (err.code !== "no_player") handleError(err);
    }
  }
  // A deal in progress comes straight back after a reload; otherwise the setup.
  if (state.game && !state.game.view.is_over) {
    showPlay();
    const [row, col] = firstEmpty(state.game.view);
    board.setCursor(row, col, true);
  } else {
    showSetup();
  }
  performance.mark("ps-screen-ready");
}

/** The first empty cell, row by row: where the cursor starts on a deal that comes back. */
function firstEmpty(view) {
  for (let r = 0; r < view.grid.length; r++) {
    const c = view.grid[r].indexOf(null);
    if (c >= 0) return [r, c];
  }
  return [0, 0];
}

start();
