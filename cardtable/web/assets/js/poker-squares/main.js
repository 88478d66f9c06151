/**
 * The Poker Squares screen: choose table and target, deal, place, hint, undo, pause, the end
 * of the deal, best scores and replay. It renders the server's view and sends moves; the
 * server decides legality and computes hints (docs/api.md). The board is board.js, the parts
 * around it draw.js, the end of the deal end.js, the requests api.js.
 */

import "../shell/boot.js";
import { api, hasPlayer } from "../core/api.js";
import { cardName } from "../core/cards.js";
import { announce, errorRouter, onShortcuts, showError } from "../core/feedback.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { playSound } from "../core/sound.js";
import { askBeforeAssist, rememberCounted, renderCountedLine, replacingAsked } from "../daily/attempt.js";
import { addDailyButton, addDailyEndLink } from "../daily/links.js";
import { psApi } from "./api.js";
import { createBoard, formatEstimate, lineName } from "./board.js";
import { renderCaption, renderControls, renderLegend, renderSetup, renderStatus } from "./draw.js";
import { renderEnd, targetResult } from "./end.js";

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

// --- drawing (the parts around the board: draw.js) ------------------------------------------

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
  renderCaption(view, state.highlight);
  renderLegend(state);
  renderControls(view, state.paused);
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

// --- screens -------------------------------------------------------------------------------

function showSetup() {
  state.screen = "setup";
  $("play").hidden = true;
  $("setup").hidden = false;
  renderSetup(state);
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
    adopt(await psApi.get(state.game.id));
    render();
  } catch (err) {
    if (err.code !== "illegal_move") handleError(err);
  }
}

async function loadScores() {
  try {
    state.scores = await psApi.scores();
  } catch {
    state.scores = null;
  }
}

function deal(table, target, replayOf = null) {
  performance.mark("ps-deal-pressed");
  return run(async () => {
    // Today's counted daily attempt is replaced only once the player says so.
    const game = await replacingAsked((replace) => psApi.create(table, target, replayOf, replace));
    if (!game) {
      // "Keep the daily": back to it, where the player left off.
      if (state.game && !state.game.view.is_over) {
        showPlay();
        board.focus();
      }
      return;
    }
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
    const next = await psApi.place(game, row, col);
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
    adopt(await psApi.undo(game));
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
    const answer = await psApi.hint(game);
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
  onLanguageChange(() => (state.screen === "play" ? render() : renderSetup(state)));
}

async function start() {
  addBundle("daily");
  await initPage();
  wire();
  addDailyButton($("deal-btn"));
  if (hasPlayer()) {
    try {
      const [saved, scores] = await Promise.all([api.continueGames(), psApi.scores()]);
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
