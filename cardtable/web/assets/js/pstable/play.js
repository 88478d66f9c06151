/**
 * A Poker Squares table while a deal is being played: the card on show (big), this device's
 * grid (poker-squares/board.js, placed by tap, click or keyboard as on the solitaire page),
 * how many have placed the card and who is still thinking (names only: never their grids),
 * the card's countdown from the stored deadline, and the table's log (the hint placing a
 * card for someone whose time ran out or who is away).
 */

import { cardFaceSvg, cardName } from "../core/cards.js";
import { t } from "../core/i18n.js";
import { countdown } from "../online/lobby-parts.js";
import { cardShort, SLOT, withChips } from "../review/card-text.js";
import { el } from "./lobby.js";
import { cardAt, mayPlace, nameOf, page, seated, serverNow } from "./state.js";

const $ = (id) => document.getElementById(id);
const CARDS = 25;
const COLUMNS = "abcde";

/** "c4" for row 3, column 2 (the Poker Squares move notation), and back. */
export const cellName = (row, col) => `${COLUMNS[col]}${row + 1}`;
export const cellAt = (cell) => [Number(cell.slice(1)) - 1, COLUMNS.indexOf(cell[0])];

/** The card a log entry names: seen on show, or on this device's own grid at its cell. */
function entryCard(table, entry) {
  const known = cardAt(entry.card);
  if (known) return known;
  if (entry.seat === table.you?.seat && table.game) {
    const [row, col] = cellAt(entry.cell);
    return table.game.grid[row]?.[col] ?? null;
  }
  return null;
}

function entryKey(table, entry) {
  const you = entry.seat === table.you?.seat;
  if (entry.reason === "away") return you ? "pst.log.you_away" : "pst.log.away";
  return you ? "pst.log.you_timer" : "pst.log.timer";
}

/** A log entry in words: `chips` true gives the card as a slot for a chip (withChips). */
export function logText(table, entry, chips = false) {
  const code = entryCard(table, entry);
  let card = t("pst.card_n", { n: entry.card + 1 });
  if (code) card = chips ? SLOT : cardShort(code);
  return { text: t(entryKey(table, entry), { card, who: nameOf(table, entry.seat) }), code };
}

/** The spoken form of a log entry (the card by its name). */
export function logSpoken(table, entry) {
  const code = entryCard(table, entry);
  const card = code ? cardName(code) : t("pst.card_n", { n: entry.card + 1 });
  return t(entryKey(table, entry), { card, who: nameOf(table, entry.seat) });
}

export function renderLog(table) {
  const items = table.log.map((entry) => {
    const li = el("li", `pst-log-entry ${entry.reason}`);
    const { text, code } = logText(table, entry, true);
    withChips(li, text, code ? [code] : []);
    return li;
  });
  $("table-log").replaceChildren(...items.reverse());
  $("table-log-empty").hidden = items.length > 0;
}

function renderCard(table) {
  const current = $("current-card");
  const card = table.card;
  if (card) {
    if (current.dataset.card !== card.card) current.innerHTML = cardFaceSvg(card.card);
    current.dataset.card = card.card;
    current.dataset.index = String(card.index);
    current.setAttribute("aria-label", t("ps.current_card_name", { card: cardName(card.card) }));
    $("current-label").textContent = t("ps.card_of", { n: card.index + 1, total: CARDS });
  } else {
    current.innerHTML = "";
    delete current.dataset.card;
    delete current.dataset.index;
    current.setAttribute("aria-label", t("ps.no_card"));
    $("current-label").textContent = "";
  }
  current.classList.toggle("none", !card);
}

function renderTimer(table) {
  const line = $("timer-line");
  const deadline = table.deadline ? Date.parse(table.deadline) / 1000 : null;
  line.hidden = deadline === null;
  if (deadline === null) line.replaceChildren();
  else line.replaceChildren(countdown("card-timer", "pst.time_left", deadline, serverNow));
}

function renderProgress(table) {
  const total = table.players.length;
  $("placed-line").textContent = t("pst.placed_n", { placed: table.placed, total });
  const you = table.you?.seat;
  const thinking = table.players.filter((p) => !p.placed && p.seat !== you).map((p) => p.name);
  $("thinking-line").textContent = thinking.length ? t("pst.thinking", { who: thinking.join(t("kc.sep")) }) : "";
  $("thinking-line").hidden = !thinking.length;
  const mine = seated(table);
  $("watch-label").hidden = mine;
  let line = t("pst.watching_note");
  if (mine) line = mayPlace(table) ? t("pst.your_move") : t("pst.you_placed");
  $("you-line").textContent = line;
  $("you-line").classList.toggle("your-move", mayPlace(table));
}

/** Draws the table while a deal is played. */
export function renderPlay(table) {
  renderCard(table);
  renderProgress(table);
  renderTimer(table);
  const mine = seated(table) && table.game;
  $("board-wrap").hidden = !mine;
  $("keys-help").hidden = !mine;
  if (mine) page.board.render(table.game, { hint: null, estimates: null, highlight: null, paused: !mayPlace(table) });
  $("play").classList.toggle("waiting", Boolean(mine) && !mayPlace(table));
  $("play").classList.toggle("watching", !mine);
  $("play-leave-btn").hidden = !mine;
  renderLog(table);
}
