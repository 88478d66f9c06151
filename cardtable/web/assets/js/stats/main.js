/**
 * The statistics page: Poker Squares per point table (unassisted and practice apart: deals,
 * mean, best, target hit rate, an SVG histogram of the scores, the hands made), Kings Corner
 * (overall, by opponent strength, by rule set), and the history of finished games: a Poker
 * Squares deal can be reviewed (ps-review.html) or replayed as practice, a Kings Corner match's
 * rounds replayed (kc-replay.html), and a game dealt from a fair shuffle checked (verify.html:
 * the game's own answer gives the values once its seed is revealed).
 */

import "../shell/boot.js";
import { drawHistogram } from "../core/charts.js";
import { verifyHref } from "../core/fairness.js";
import { announce, errorRouter, showError } from "../core/feedback.js";
import { addBundle, currentLanguage, t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { dailyApi } from "../daily/api.js";
import { replacingAsked } from "../daily/attempt.js";
import { kcApi } from "../kings-corner/api.js";
import { psApi } from "../poker-squares/api.js";
import { loadRatings } from "../rating/section.js";

const $ = (id) => document.getElementById(id);
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
const state = { stats: null, history: null, busy: false };
const handleError = errorRouter({});
const run = serialRunner(state, (err) => handleError(err));

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

const number = (v, digits = 0) =>
  v === null || v === undefined
    ? "–"
    : new Intl.NumberFormat(currentLanguage(), { maximumFractionDigits: digits }).format(v);

const rate = (part, whole) => (whole ? `${number((100 * part) / whole, 1)}%` : "–");

/** A table: `head` the column labels (the first one heads the row labels), `rows` [label, ...cells]. */
function table(caption, head, rows, id) {
  const tbl = el("table", { class: "stats-table", ...(id ? { id } : {}) });
  tbl.append(el("caption", {}, caption));
  const thead = el("thead");
  const tr = el("tr");
  head.forEach((h, i) => {
    tr.append(el("th", { scope: "col", ...(i ? { class: "num" } : {}) }, h));
  });
  thead.append(tr);
  const tbody = el("tbody");
  for (const [label, ...cells] of rows) {
    const row = el("tr");
    row.append(el("th", { scope: "row" }, label));
    for (const c of cells) row.append(el("td", { class: "num" }, c));
    tbody.append(row);
  }
  tbl.append(thead, tbody);
  return tbl;
}

function renderPokerSquares(stats) {
  const box = $("ps-tables");
  // The table played most first; one never played is a line, not a panel of zeros.
  const dealt = (name) => stats.poker_squares[name].unassisted.deals + stats.poker_squares[name].practice.deals;
  const names = ["american", "british"].sort((a, b) => dealt(b) - dealt(a));
  box.replaceChildren(
    ...names.map((name) => {
      const s = stats.poker_squares[name];
      const u = s.unassisted;
      const p = s.practice;
      const panel = el("div", { class: "panel", id: `ps-${name}` });
      panel.append(el("h3", {}, t(`ps.table.${name}`)));
      if (!dealt(name)) {
        panel.classList.add("stats-none");
        panel.append(el("p", { class: "note" }, t("stats.no_table_deals")));
        return panel;
      }
      const cols = [t("stats.measure"), t("stats.unassisted"), t("stats.practice")];
      panel.append(
        table(
          t("stats.ps_summary"),
          cols,
          [
            [t("stats.deals"), number(u.deals), number(p.deals)],
            [t("stats.mean"), number(u.mean, 1), number(p.mean, 1)],
            [t("stats.best"), number(u.best), number(p.best)],
            [t("stats.target_rate"), rate(u.target_hits, u.deals), rate(p.target_hits, p.deals)],
          ],
          `ps-summary-${name}`,
        ),
      );
      panel.append(el("h4", { class: "chart-title" }, t("stats.distribution")));
      if (u.deals) {
        const chart = el("div", { class: "chart", id: `ps-chart-${name}` });
        panel.append(chart);
        drawHistogram(
          chart,
          u.distribution.map((b) => ({ total: b.total, count: b.deals })),
          { label: t("stats.distribution_label", { n: u.deals, table: t(`ps.table.${name}`) }) },
        );
      } else {
        panel.append(el("p", { class: "note" }, t("stats.no_deals")));
      }
      panel.append(
        table(
          t("stats.hands_caption"),
          [t("stats.hand"), t("stats.unassisted"), t("stats.practice")],
          HANDS.map((h) => [t(`hand.${h}`), number(u.hands[h] ?? 0), number(p.hands[h] ?? 0)]),
          `ps-hands-${name}`,
        ),
      );
      return panel;
    }),
  );
}

function kcRow(label, g) {
  return [
    label,
    t("stats.won_of", { won: number(g.matches_won), played: number(g.matches) }),
    t("stats.won_of", { won: number(g.rounds_won), played: number(g.rounds) }),
    number(g.mean_penalty, 2),
  ];
}

function renderKingsCorner(stats) {
  const kc = stats.kings_corner;
  const opponent = (k) => (k === "people" ? t("stats.opponent_people") : t(`kc.seat_opt.${k}`));
  const rule = (k) => (k === "unknown" ? t("stats.rules_unknown") : t(`kc.rule_set.${k}`));
  const head = [t("stats.group"), t("stats.matches_won_of"), t("stats.rounds_won_of"), t("stats.mean_penalty")];
  const rows = [kcRow(t("stats.all"), kc.all)];
  for (const [k, g] of Object.entries(kc.by_opponent)) {
    rows.push(kcRow(t("stats.by_opponent", { name: opponent(k) }), g));
  }
  for (const [k, g] of Object.entries(kc.by_rule_set)) {
    rows.push(kcRow(t("stats.by_rules", { name: rule(k) }), g));
  }
  const wrap = el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": t("stats.kc_caption") });
  wrap.append(table(t("stats.kc_caption"), head, rows, "kc-table"));
  // Never played: one line, not a table of zeros.
  if (!kc.all.matches) $("kc-stats").replaceChildren(el("p", { class: "note" }, t("stats.no_matches")));
  else $("kc-stats").replaceChildren(wrap);
}

function when(iso) {
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

function replay(item) {
  run(async () => {
    // A replay replaces an unfinished deal: today's counted daily is asked about first.
    const game = await replacingAsked((replace) =>
      psApi.create(item.variant, item.target || "normal", item.id, replace),
    );
    if (!game) return;
    window.location.href = "poker-squares.html";
  });
}

/** Opens the verify page with the game's revealed values, or says why it cannot yet. */
function verify(item, button) {
  run(async () => {
    const game = item.game === "poker-squares" ? await psApi.get(item.id) : await kcApi.get(item.id);
    const href = verifyHref({ game: item.game, ...game.view });
    if (href) {
      window.location.href = href;
      return;
    }
    const note = button.parentElement.querySelector(".verify-note") || el("span", { class: "verify-note note" });
    note.textContent = t("stats.verify_later");
    button.after(note);
    announce(note.textContent);
  });
}

function link(href, key, cls) {
  return el("a", { class: `button ${cls}`, href }, t(key));
}

function renderHistory(items) {
  $("history-empty").hidden = items.length > 0;
  $("history").replaceChildren(
    ...items.map((item) => {
      const li = el("li", { "data-game": item.game, "data-id": item.id });
      li.append(el("span", { class: "when" }, when(item.finished_at)));
      let what;
      if (item.game === "poker-squares") {
        what = t("stats.history_ps", { table: t(`ps.table.${item.variant}`), n: item.total });
      } else {
        const result = item.won ? t("stats.won") : t("stats.lost");
        what = t("stats.history_kc", { result, n: item.penalty ?? 0 });
      }
      li.append(el("span", { class: "what" }, what));
      if (item.daily) li.append(el("span", { class: "tag" }, t("stats.daily_tag")));
      if (item.practice) li.append(el("span", { class: "tag" }, t("stats.practice_tag")));
      const actions = el("span", { class: "actions" });
      const id = encodeURIComponent(item.id);
      if (item.reviewable) actions.append(link(`ps-review.html?game=${id}`, "stats.review", "review"));
      if (item.replay_rounds)
        actions.append(link(`kc-replay.html?game=${id}&round=1`, "stats.replay_round", "round-replay"));
      if (item.checkable) {
        const v = el("button", { type: "button", class: "verify" }, t("stats.verify"));
        v.addEventListener("click", () => verify(item, v));
        actions.append(v);
      }
      if (item.replayable) {
        const b = el("button", { type: "button", class: "replay" }, t("stats.replay"));
        b.addEventListener("click", () => replay(item));
        actions.append(b);
      }
      if (actions.childElementCount) li.append(actions);
      return li;
    }),
  );
}

function render() {
  if (state.stats) {
    renderPokerSquares(state.stats);
    renderKingsCorner(state.stats);
  }
  if (state.history) renderHistory(state.history.items);
}

addBundle("stats");
addBundle("daily"); // the question before a replay replaces today's counted daily
addBundle("rating");
await initPage();
onLanguageChange(render);
await run(async () => {
  const [stats, history] = await Promise.all([dailyApi.stats(), dailyApi.history()]);
  state.stats = stats;
  state.history = history;
  showError(null);
  render();
});
await loadRatings();
performance.mark("stats-ready");
