/**
 * The end of a Poker Squares deal: total, whether the target was reached, the ten-line
 * breakdown (each line a button that highlights its cards), best scores, replay, new deal.
 * Also draws the best-scores box of the setup screen.
 */

import { el, verifyLink } from "../core/game-end.js";
import { t } from "../core/i18n.js";
import { lineName } from "./board.js";

export function targetResult(view) {
  const points = view.target.points;
  return view.target_reached
    ? t("ps.target_reached", { points })
    : t("ps.target_missed", { points, short: points - view.total });
}

/** A small table of the best scores per point table, or null when there is nothing yet. */
export function bestScoresTable(scores, onlyTable = null) {
  if (!scores) return null;
  const tables = onlyTable ? [onlyTable] : ["american", "british"];
  const table = el("table", { class: "best-table" });
  const head = el("tr");
  head.append(el("th", { scope: "col" }, t("ps.table")));
  head.append(el("th", { scope: "col" }, t("ps.best_unassisted")));
  head.append(el("th", { scope: "col" }, t("ps.best_practice")));
  const thead = el("thead");
  thead.append(head);
  table.append(thead);
  const body = el("tbody");
  for (const name of tables) {
    const s = scores[name] || {};
    const tr = el("tr", { "data-table": name });
    tr.append(el("th", { scope: "row" }, t(`ps.table.${name}`)));
    tr.append(el("td", { class: "best-unassisted" }, s.best ?? t("ps.none")));
    tr.append(el("td", { class: "best-practice" }, s.best_practice ?? t("ps.none")));
    body.append(tr);
  }
  table.append(body);
  return table;
}

export function renderEnd(section, view, scores, { onLine, onReplay, onNewDeal, highlight, reviewHref }) {
  section.replaceChildren();
  section.append(el("h2", { id: "end-title" }, t("ps.end_title")));
  const result = el("p", { class: "end-result" });
  result.append(el("strong", { id: "end-total", "data-total": view.total }, t("ps.end_total", { total: view.total })));
  result.append(
    el("span", { class: view.target_reached ? "reached" : "missed", id: "end-target" }, targetResult(view)),
  );
  section.append(result);
  if (view.practice) section.append(el("p", { class: "note" }, t("ps.practice_result")));

  const table = el("table", { class: "breakdown", id: "breakdown" });
  table.append(el("caption", {}, t("ps.breakdown")));
  const head = el("tr");
  for (const key of ["ps.col_line", "ps.col_hand", "ps.col_points"]) {
    head.append(el("th", { scope: "col" }, t(key)));
  }
  const thead = el("thead");
  thead.append(head);
  table.append(thead);
  const body = el("tbody");
  view.line_scores.forEach((points, line) => {
    const tr = el("tr", { "data-line": line });
    if (highlight === line) tr.className = "active";
    const th = el("th", { scope: "row" });
    const button = el("button", { type: "button", "aria-pressed": String(highlight === line) }, lineName(line));
    button.addEventListener("click", () => onLine(line));
    th.append(button);
    tr.append(th);
    tr.append(el("td", {}, view.line_hands[line] ? t(`hand.${view.line_hands[line]}`) : "–"));
    tr.append(el("td", { class: "num" }, points === null ? "–" : String(points)));
    body.append(tr);
  });
  table.append(body);
  section.append(table);

  const best = bestScoresTable(scores, view.table);
  if (best) {
    section.append(el("h3", {}, t("ps.best_title")));
    section.append(best);
  }

  const actions = el("div", { class: "end-actions" });
  const replay = el("button", { type: "button", id: "replay-btn", class: "primary" }, t("ps.replay_deal"));
  replay.addEventListener("click", onReplay);
  const fresh = el("button", { type: "button", id: "end-new-btn" }, t("ps.new_deal"));
  fresh.addEventListener("click", onNewDeal);
  actions.append(replay, fresh);
  if (reviewHref) actions.append(el("a", { class: "button", id: "review-btn", href: reviewHref }, t("rv.review_btn")));
  const verify = verifyLink(view);
  if (verify) actions.append(verify);
  section.append(actions);
}
