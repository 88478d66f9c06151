/**
 * The end of a Poker Squares table's deal: the ranking, every player's grid with its ten hands
 * and points (poker-squares/board.js, read-only), the deal revealed in the order it came with
 * the link that verifies it, this device's result to share without the cards (S's
 * poker-squares/share.js: the marks, the words, the accessible table) and Rematch with who is
 * ready.
 */

import { verifyHref } from "../core/fairness.js";
import { announce } from "../core/feedback.js";
import { el } from "../core/game-end.js";
import { currentLanguage, t } from "../core/i18n.js";
import { createBoard } from "../poker-squares/board.js";
import { resultTable, shareText, shareWords } from "../poker-squares/share.js";
import { cardChip } from "../review/card-text.js";
import { TABLE_PAGE } from "./api.js";
import { seated } from "./state.js";

const $ = (id) => document.getElementById(id);

function rankingItem(table, entry) {
  const li = el("li", { class: "pst-rank", "data-seat": String(entry.seat), "data-place": String(entry.place) });
  if (entry.seat === table.you?.seat) li.classList.add("mine");
  li.append(el("span", { class: "pst-place" }, t("pst.place_n", { n: entry.place })));
  const who = el("span", { class: "pst-rank-name" }, entry.name);
  if (entry.seat === table.you?.seat) who.append(el("span", { class: "lobby-seat-tags" }, ` ${t("kco.you_tag")}`));
  li.append(who, el("strong", { class: "pst-rank-total" }, t("pst.points_n", { n: entry.total })));
  const player = table.players.find((p) => p.seat === entry.seat);
  if (player?.ready) li.append(el("span", { class: "rematch-tag" }, t("pst.rematch_ready")));
  return li;
}

/** One player's finished grid: the board drawn read-only, and its lines as a table. */
function gridItem(table, entry) {
  const li = el("li", { class: "pst-grid-item", "data-seat": String(entry.seat) });
  const name = entry.seat === table.you?.seat ? t("pst.your_grid") : t("pst.grid_of", { name: entry.name });
  const head = el("h3", {}, `${t("pst.place_n", { n: entry.place })} ${name}`);
  head.append(" ", el("span", { class: "pst-grid-total" }, t("pst.points_n", { n: entry.total })));
  const root = el("div", { class: "board pst-mini", role: "grid", "aria-label": name });
  li.append(head, root);
  let highlight = null;
  const view = { ...entry.game, is_over: true };
  const board = createBoard(root, {
    onCell: () => {},
    onLine: (line) => {
      highlight = highlight === line ? null : line;
      board.render(view, { hint: null, estimates: null, highlight, paused: false });
    },
  });
  board.render(view, { hint: null, estimates: null, highlight, paused: false });
  const lines = resultTable(entry.game.line_hands, entry.game.line_scores);
  lines.querySelector("caption").textContent = t("pst.grid_of", { name: entry.name });
  const more = el("details", { class: "pst-lines" });
  more.append(el("summary", {}, t("ps.breakdown")), lines);
  li.append(more);
  return li;
}

function dealItem(code) {
  const li = el("li");
  li.append(cardChip(code));
  return li;
}

function renderRematch(table) {
  const mine = seated(table);
  $("rematch-btn").hidden = !mine;
  const me = table.players.find((p) => p.seat === table.you?.seat);
  $("rematch-btn").disabled = Boolean(me?.ready);
  const anyReady = table.players.some((p) => p.ready);
  const waiting = table.players.filter((p) => !p.ready && p.presence !== "away").map((p) => p.name);
  let status = "";
  if (me?.ready) status = t("pst.rematch_you_ready");
  if (anyReady && waiting.length) status = `${status} ${t("pst.rematch_waiting", { who: waiting.join(t("kc.sep")) })}`;
  $("rematch-status").textContent = status.trim();
}

function shareOptions(table, me) {
  return {
    title: t("pst.share_heading", { table: t(`ps.table.${table.settings.table}`) }),
    total: me.game.total,
    link: new URL(TABLE_PAGE, location.href).href,
  };
}

/** Shares `text` through the system share sheet where there is one, else copies it; the
 * preview under the buttons shows it either way. */
export async function shareResult(text) {
  const preview = $("share-preview");
  preview.textContent = text;
  preview.hidden = false;
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ text });
      return;
    } catch (err) {
      if (err?.name === "AbortError") return;
    }
  }
  try {
    await navigator.clipboard.writeText(text);
    announce(t("pst.shared"));
  } catch {
    // The preview stays for the player to select and copy.
  }
}

/** The texts to share of this device's result, or null for a spectator. */
export function shareTexts(table) {
  const me = table.result?.ranking.find((r) => r.seat === table.you?.seat);
  if (!me) return null;
  const options = shareOptions(table, me);
  return { marks: shareText(me.game.line_hands, options), words: shareWords(me.game.line_hands, options) };
}

function renderShare(table) {
  const me = table.result.ranking.find((r) => r.seat === table.you?.seat);
  $("share-box").hidden = !me;
  $("share-preview").hidden = true;
  if (!me) return;
  $("share-table").replaceChildren(resultTable(me.game.line_hands, me.game.line_scores));
}

/** Draws the end of the deal. The grids, the deal and the share table are drawn once per deal
 * and language: a later change (someone ready for a rematch) keeps an opened breakdown, a
 * highlighted line and the keyboard's place in a grid. */
export function renderOver(table) {
  const result = table.result;
  $("ranking").replaceChildren(...result.ranking.map((entry) => rankingItem(table, entry)));
  renderRematch(table);
  const drawn = `${table.token}:${table.deal}:${currentLanguage()}`;
  if ($("grids").dataset.drawn === drawn) return;
  $("grids").dataset.drawn = drawn;
  $("grids").replaceChildren(...result.ranking.map((entry) => gridItem(table, entry)));
  $("deal-cards").replaceChildren(...result.cards.map(dealItem));
  const href = verifyHref({ game: "poker-squares", fairness: table.fairness, grid: [result.cards] });
  $("verify-link").hidden = !href;
  if (href) $("verify-link").href = href;
  renderShare(table);
}
