/**
 * A Poker Squares result worth sharing, without the deal (docs/daily.md, "Sharing"): which
 * hand each row and column made, never which cards came.
 *
 * - `shareText(lineHands, {title, total, link})`: the title, the five rows' and the five
 *   columns' marks (one circled digit per hand class, ⓪ nothing to ⑨ royal flush: told apart
 *   by shape, read aloud by a screen reader and kept by a plain-text paste), a one-line
 *   legend, the total and the link.
 * - `shareWords(lineHands, {title, total, link})`: the same in words only, each row's and
 *   column's hand named in order, in the page's language.
 * - `resultTable(lineHands, lineScores)`: the same result as an accessible table (caption,
 *   row and column headers, hand and points per line, the total).
 *
 * `lineHands` is the Poker Squares view's `line_hands` (rows 1-5, then columns 1-5; a hand
 * key such as "full_house", or null for a line not complete). `total` is a number (written
 * "Total 87") or a text written as given; `title` and `link` may be left out. Import this
 * module statically, before the page's `initPage`: it adds its own words (`share` bundle).
 * The table's look is assets/css/share.css (list "share" in the page's stylesheets).
 */

import { addBundle, t } from "../core/i18n.js";

addBundle("share"); // assets/i18n/share.<lang>.json

const N = 5;

/** The ten hand classes, weakest first; a class's mark is the circled digit of its place. */
const HANDS = [
  "nothing",
  "one_pair",
  "two_pair",
  "three_of_a_kind",
  "straight",
  "flush",
  "full_house",
  "four_of_a_kind",
  "straight_flush",
  "royal_flush",
];
const MARKS = ["⓪", "①", "②", "③", "④", "⑤", "⑥", "⑦", "⑧", "⑨"];
const NO_MARK = "－"; // a line not complete (never in a finished deal)

/** The mark of a hand class ("full_house" -> "⑥"). */
function markOf(hand) {
  const i = HANDS.indexOf(hand);
  return i < 0 ? NO_MARK : MARKS[i];
}

function lineName(line) {
  return line < N ? t("ps.line_row", { n: line + 1 }) : t("ps.line_col", { n: line - N + 1 });
}

function handName(hand) {
  return HANDS.includes(hand) ? t(`hand.${hand}`) : t("share.incomplete");
}

function totalLine(total) {
  if (total === undefined || total === null) return null;
  return typeof total === "number" ? t("share.total", { n: total }) : String(total);
}

/** The one-line legend: every mark with its hand's short name. */
function legend() {
  return HANDS.map((hand, i) => `${MARKS[i]}${t("share.mark_gap")}${t(`share.short.${hand}`)}`).join(
    t("share.legend_sep"),
  );
}

function finish(lines, { title, total, link } = {}) {
  return [title, ...lines, totalLine(total), link].filter((s) => s !== undefined && s !== null && s !== "").join("\n");
}

/** The share text: title, the rows' marks, the columns' marks, the legend, total and link. */
export function shareText(lineHands, options = {}) {
  const marks = (from) =>
    lineHands
      .slice(from, from + N)
      .map(markOf)
      .join("\u00a0"); // one line's marks never wrap apart
  const lines = [t("share.rows", { marks: marks(0) }), t("share.cols", { marks: marks(N) }), legend()];
  return finish(lines, options);
}

/** The words-only text: each row's hand in order on one line, each column's on the next. */
export function shareWords(lineHands, options = {}) {
  const said = (from) =>
    lineHands
      .slice(from, from + N)
      .map((hand, i) => t("share.word_line", { line: lineName(from + i), hand: handName(hand) }))
      .join(t("share.words_sep"));
  return finish([said(0), said(N)], options);
}

function cell(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.textContent = text;
  return node;
}

function headRow(withPoints) {
  const tr = document.createElement("tr");
  tr.append(cell("th", t("share.col_line"), { scope: "col" }), cell("th", t("share.col_hand"), { scope: "col" }));
  if (withPoints) tr.append(cell("th", t("share.col_points"), { scope: "col", class: "num" }));
  return tr;
}

function lineRow(line, hand, points) {
  const tr = document.createElement("tr");
  tr.dataset.line = String(line);
  tr.dataset.hand = hand ?? "";
  const handCell = document.createElement("td");
  // The mark ties the row to the share text; a screen reader hears the hand's name only.
  handCell.append(cell("span", markOf(hand), { class: "share-mark", "aria-hidden": "true" }), ` ${handName(hand)}`);
  tr.append(cell("th", lineName(line), { scope: "row" }), handCell);
  if (points !== undefined) tr.append(cell("td", points === null ? "–" : String(points), { class: "num" }));
  return tr;
}

/** The result as a table: caption, a header per column and per line, each line's hand and
 * points (rows 1-5, then columns 1-5) and the total; without `lineScores`, hands only. */
export function resultTable(lineHands, lineScores = null) {
  const withPoints = Array.isArray(lineScores);
  const table = document.createElement("table");
  table.className = "share-table";
  table.append(cell("caption", t("share.table_caption")));
  const thead = document.createElement("thead");
  thead.append(headRow(withPoints));
  const body = document.createElement("tbody");
  lineHands.forEach((hand, line) => {
    body.append(lineRow(line, hand, withPoints ? (lineScores[line] ?? null) : undefined));
  });
  table.append(thead, body);
  if (withPoints) {
    const foot = document.createElement("tfoot");
    const tr = document.createElement("tr");
    const sum = lineScores.reduce((a, b) => a + (b ?? 0), 0);
    tr.append(
      cell("th", t("share.col_total"), { scope: "row", colspan: "2" }),
      cell("td", String(sum), { class: "num" }),
    );
    foot.append(tr);
    table.append(foot);
  }
  return table;
}
