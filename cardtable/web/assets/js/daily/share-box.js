/**
 * The daily page's share box (docs/daily.md, "Sharing"): the player's finished result on the
 * day shown as a spoiler-free text (a mark per row and column, the legend, the total and the
 * page's link), the same in words only, and as an accessible table beside them. "Share" and
 * "Share as words" go through the system share sheet where there is one, else copy the text
 * (poker-squares/share.js writes the texts and the table).
 */

import { t } from "../core/i18n.js";
import { resultTable, shareText, shareWords } from "../poker-squares/share.js";

const $ = (id) => document.getElementById(id);
let shown = null; // the day's answer the box shows

/** The daily page's link for the table shown (what a share carries). */
export function pageLink(data) {
  return new URL(`daily.html?table=${encodeURIComponent(data.table)}`, window.location.href).href;
}

/** The system share sheet, where the browser has one that takes text. */
function canShare() {
  return typeof navigator.share === "function";
}

function options(data) {
  const me = data.me;
  return {
    title: t("daily.share_title", { day: data.day, table: t(`ps.table.${data.table}`) }),
    total: t(me.status === "practice" ? "daily.share_total_practice" : "daily.share_total", { n: me.total }),
    link: pageLink(data),
  };
}

/** Draws the box for the day's answer: hidden unless the player's entry has a total and
 * each line's hand to share. */
export function renderShareBox(data) {
  const me = data.me;
  const sharable =
    Boolean(me) && (me.status === "counted" || me.status === "practice") && me.total !== null && Boolean(me.lines);
  shown = sharable ? data : null;
  $("share-box").hidden = !sharable;
  $("share-btn").textContent = t(canShare() ? "daily.share_sheet" : "daily.share");
  $("share-words-btn").textContent = t(canShare() ? "daily.share_words" : "daily.copy_words");
  if (!sharable) return;
  $("share-text").textContent = shareText(me.lines, options(data));
  $("share-words").textContent = shareWords(me.lines, options(data));
  $("share-table").replaceChildren(resultTable(me.lines, me.line_scores ?? null));
}

/** Shares `full` (its last line the page's link): the system share sheet (the text and the
 * link) where there is one, else a copy of it; the status line says which happened. When
 * neither works, `source`'s text is selected for the player to copy. */
async function share(full, source) {
  const status = $("share-status");
  status.textContent = "";
  if (canShare()) {
    const url = pageLink(shown);
    const text = full.endsWith(`\n${url}`) ? full.slice(0, -url.length - 1) : full;
    try {
      await navigator.share({ text, url });
      status.textContent = t("daily.shared");
      return;
    } catch (err) {
      if (err?.name === "AbortError") return; // the player closed the sheet
      // No sheet after all (not allowed here): copy instead.
    }
  }
  try {
    await navigator.clipboard.writeText(full);
    status.textContent = t("daily.copied");
  } catch {
    // No clipboard access: select the text so the player can copy it themselves.
    source.closest("details")?.setAttribute("open", "");
    const range = document.createRange();
    range.selectNodeContents(source);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    status.textContent = t("daily.copy_yourself");
  }
}

/** Wires the two buttons (once). */
export function wireShareBox() {
  $("share-btn").addEventListener("click", () => {
    if (shown) share($("share-text").textContent, $("share-text"));
  });
  $("share-words-btn").addEventListener("click", () => {
    if (shown) share($("share-words").textContent, $("share-words"));
  });
}
