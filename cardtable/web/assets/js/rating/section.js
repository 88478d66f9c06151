/**
 * The statistics page's rating (docs/rating.md): the player's rating, marked "?" while it is
 * provisional (said in words for screen readers), its history as a chart, and the public
 * board of the top settled ratings of the last 30 days (names only).
 */

import { currentLanguage, t } from "../core/i18n.js";
import { onLanguageChange } from "../core/page.js";
import { ratingApi } from "./api.js";
import { drawRatingLine } from "./chart.js";

const $ = (id) => document.getElementById(id);
const state = { me: null, board: null, failed: false };

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

const number = (v) => new Intl.NumberFormat(currentLanguage(), { useGrouping: false }).format(v);

/** The rating as shown ("1500?" while provisional) and as said to a screen reader. */
function ratingNodes(rating, provisional) {
  const shown = el("span", { class: "rating-number", "aria-hidden": "true" }, number(rating));
  if (provisional) shown.append(el("span", { class: "rating-mark" }, "?"));
  const key = provisional ? "rating.said_provisional" : "rating.said";
  const said = el("span", { class: "visually-hidden" }, t(key, { rating: number(rating) }));
  return [shown, said];
}

function renderMine(me) {
  $("rating-value").replaceChildren(...ratingNodes(me.rating, me.provisional));
  $("rating-note").textContent = me.provisional
    ? t("rating.provisional_note", { n: me.matches })
    : t("rating.settled_note", { n: me.matches });
  $("rating-empty").hidden = me.history.length > 0;
  const chart = $("rating-chart");
  chart.hidden = me.history.length === 0;
  if (me.history.length) {
    const first = me.history[0].rating;
    const last = me.history[me.history.length - 1].rating;
    const label = t("rating.chart_label", { n: me.history.length, first: number(first), last: number(last) });
    drawRatingLine(chart, me.history, { label });
  }
}

function renderBoard(board) {
  $("rating-board-empty").hidden = board.rows.length > 0;
  const list = $("rating-board");
  list.hidden = board.rows.length === 0;
  list.replaceChildren(
    ...board.rows.map((row) => {
      const li = el("li", { class: row.mine ? "mine" : "" });
      li.append(el("span", { class: "rank" }, t("rating.rank", { n: row.rank })));
      li.append(el("span", { class: "name" }, row.name ?? t("rating.no_name")));
      if (row.mine) li.append(el("span", { class: "tag" }, t("rating.you")));
      li.append(el("span", { class: "points" }, number(row.rating)));
      return li;
    }),
  );
}

function render() {
  $("rating-error").hidden = !state.failed;
  if (state.me) renderMine(state.me);
  if (state.board) renderBoard(state.board);
}

/** Reads the rating and the board and shows them (a failure is said in the section). */
export async function loadRatings() {
  onLanguageChange(render);
  try {
    [state.me, state.board] = await Promise.all([ratingApi.me(), ratingApi.board()]);
    state.failed = false;
  } catch {
    state.failed = true;
  }
  render();
  $("rating-box").dataset.ready = "true";
}
