/**
 * The Poker Squares board: a 6x6 ARIA grid (5x5 cells, each row's score at its right, each
 * column's score below, the total in the corner) with one Tab stop and arrow keys inside.
 *
 * It draws what it is given and reports what the player chose (`onCell`, `onLine`); it knows
 * nothing about the server and holds no rules.
 */

import { cardFaceSvg, cardName } from "../core/cards.js";
import { t } from "../core/i18n.js";

const N = 5;

/** Cell indices [row, col] of line 0-9 (rows 0-4, then columns 0-4), as in the engine. */
export function lineCells(line) {
  const out = [];
  for (let k = 0; k < N; k++) out.push(line < N ? [line, k] : [k, line - N]);
  return out;
}

export function lineName(line) {
  return line < N ? t("ps.line_row", { n: line + 1 }) : t("ps.line_col", { n: line - N + 1 });
}

export function formatEstimate(value) {
  return Number(value).toFixed(1);
}

export function createBoard(root, { onCell, onLine }) {
  // cells[r][c] for r, c in 0..5; the cursor is the one cell in the Tab order.
  const board = { root, cells: buildGrid(root), cursor: [0, 0], onCell, onLine };
  const setCursor = (r, c, focus = false) => moveCursor(board, r, c, focus);
  setCursor(0, 0);
  root.addEventListener("keydown", (ev) => onKey(board, ev));
  root.addEventListener("click", (ev) => {
    const el = ev.target.closest("[role=gridcell]");
    if (!el) return;
    const r = Number(el.dataset.r);
    const c = Number(el.dataset.c);
    setCursor(r, c);
    activate(board, r, c);
  });

  return {
    render: (view, extra) => render(board, view, extra),
    setCursor,
    cursor: () => [...board.cursor],
    focus: () => board.cells[board.cursor[0]][board.cursor[1]].focus(),
    contains: (node) => root.contains(node),
  };
}

function buildGrid(root) {
  const cells = [];
  for (let r = 0; r <= N; r++) {
    const row = document.createElement("div");
    row.className = r < N ? "board-row" : "board-row score-row";
    row.setAttribute("role", "row");
    const line = [];
    for (let c = 0; c <= N; c++) {
      const el = document.createElement("div");
      el.setAttribute("role", "gridcell");
      el.tabIndex = -1;
      el.dataset.r = r;
      el.dataset.c = c;
      if (r < N && c < N) {
        el.className = "cell empty";
        el.dataset.row = r;
        el.dataset.col = c;
        el.innerHTML =
          '<span class="face"></span><span class="est"></span><span class="hint-badge" aria-hidden="true">★</span>';
      } else if (r < N || c < N) {
        el.className = `score ${r < N ? "score-right" : "score-below"}`;
        el.dataset.line = r < N ? r : N + c;
      } else {
        el.className = "score total-cell";
      }
      row.append(el);
      line.push(el);
    }
    root.append(row);
    cells.push(line);
  }
  return cells;
}

function moveCursor(board, r, c, focus) {
  const [pr, pc] = board.cursor;
  board.cells[pr][pc].tabIndex = -1;
  board.cursor = [Math.max(0, Math.min(N, r)), Math.max(0, Math.min(N, c))];
  const el = board.cells[board.cursor[0]][board.cursor[1]];
  el.tabIndex = 0;
  if (focus) el.focus();
}

function activate(board, r, c) {
  if (r < N && c < N) board.onCell(r, c);
  else if (r < N || c < N) board.onLine(r < N ? r : N + c);
}

function onKey(board, ev) {
  if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
  const [r, c] = board.cursor;
  const moves = {
    ArrowUp: [r - 1, c],
    ArrowDown: [r + 1, c],
    ArrowLeft: [r, c - 1],
    ArrowRight: [r, c + 1],
    Home: [r, 0],
    End: [r, N],
    PageUp: [0, c],
    PageDown: [N, c],
  };
  if (ev.key in moves) {
    moveCursor(board, ...moves[ev.key], true);
  } else if (ev.key === "Enter" || ev.key === " ") {
    activate(board, r, c);
  } else {
    return;
  }
  ev.preventDefault();
  ev.stopPropagation();
}

/** Draw `view`; `extra` = {hint: {row, col} | null, estimates: Map("r,c" -> number),
 * highlight: line index | null, paused: bool}. */
function render(board, view, extra) {
  const est = extra.estimates || new Map();
  const inLine = new Set(extra.highlight === null ? [] : lineCells(extra.highlight).map(([r, c]) => `${r},${c}`));
  const last = view.last_placed ? `${view.last_placed[0]},${view.last_placed[1]}` : null;
  for (let r = 0; r < N; r++) {
    for (let c = 0; c < N; c++) renderCell(board.cells[r][c], r, c, view, { extra, est, inLine, last });
  }
  for (let line = 0; line < 2 * N; line++) {
    const [r, c] = line < N ? [line, N] : [N, line - N];
    renderLineScore(board.cells[r][c], line, view, extra.highlight);
  }
  const total = board.cells[N][N];
  total.textContent = String(view.total);
  total.setAttribute("aria-label", t("ps.total_cell", { total: view.total }));
  board.root.classList.toggle("highlighting", extra.highlight !== null);
  board.root.classList.toggle("paused", Boolean(extra.paused));
}

function renderCell(el, r, c, view, { extra, est, inLine, last }) {
  const code = view.grid[r][c];
  const key = `${r},${c}`;
  if ((el.dataset.card || null) !== code) {
    el.querySelector(".face").innerHTML = code ? cardFaceSvg(code) : "";
    if (code) el.dataset.card = code;
    else delete el.dataset.card;
  }
  const hinted = Boolean(extra.hint && extra.hint.row === r && extra.hint.col === c);
  const estimate = !code && est.has(key) ? formatEstimate(est.get(key)) : "";
  el.classList.toggle("empty", !code);
  el.classList.toggle("filled", Boolean(code));
  el.classList.toggle("last", key === last);
  el.classList.toggle("hinted", hinted);
  el.classList.toggle("in-line", inLine.has(key));
  const estEl = el.querySelector(".est");
  estEl.textContent = estimate;
  estEl.title = estimate ? t("ps.estimate_title") : "";
  const where = { row: r + 1, col: c + 1 };
  const parts = [code ? t("ps.cell_card", { card: cardName(code), ...where }) : t("ps.cell_empty", where)];
  if (hinted) parts.push(t("ps.cell_hint"));
  if (estimate) parts.push(t("ps.cell_estimate", { value: estimate }));
  el.setAttribute("aria-label", parts.join(t("kc.sep")));
  if (extra.paused || view.is_over || code) el.setAttribute("aria-disabled", "true");
  else el.removeAttribute("aria-disabled");
}

function renderLineScore(el, line, view, highlight) {
  const points = view.line_scores[line];
  const hand = view.line_hands[line];
  el.textContent = points === null ? "–" : String(points);
  el.classList.toggle("complete", points !== null);
  el.classList.toggle("active", highlight === line);
  el.setAttribute(
    "aria-label",
    points === null
      ? t("ps.line_score_incomplete", { line: lineName(line) })
      : t("ps.line_score", { line: lineName(line), points, hand: t(`hand.${hand}`) }),
  );
}
