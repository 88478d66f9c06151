/**
 * The daily archive on the daily page (docs/daily.md, "The archive"): a month's calendar of
 * past dates at the table shown, each a button (its name, in words, is the date and your
 * best practice score), moved through with the arrow keys (a day, a week), Home and End (the
 * week's ends) and Page Up / Page Down (a month). A date that has ended everywhere and has a
 * deal is played again as practice on the Poker Squares screen (never on its board or in the
 * streak); beside the calendar, the chosen date's own board and where your practice score
 * would have placed. The Poker Squares screen comes back here with `?archive=<date>`.
 */

import { errorRouter } from "../core/feedback.js";
import { addBundle, currentLanguage, t } from "../core/i18n.js";
import { onLanguageChange, serialRunner } from "../core/page.js";
import { storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY, dailyApi, localDay } from "./api.js";
import { replacingAsked } from "./attempt.js";

addBundle("archive");

const BOARD_ROWS = 10;
const state = { table: "american", month: "", data: null, focus: null, chosen: null, board: null, busy: false };
// A month or date not there (yet, on this device's clock): nothing to show, no error line.
const handleError = errorRouter({ not_found() {} });
const run = serialRunner(state, (err) => handleError(err));
let section = null;

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

const utcDate = (day) => new Date(`${day}T00:00:00Z`);
const fmt = (day, options) =>
  new Intl.DateTimeFormat(currentLanguage(), { timeZone: "UTC", ...options }).format(utcDate(day));
const monthOf = (day) => day.slice(0, 7);

/** `day` moved by `n` days ("YYYY-MM-DD"). */
function addDays(day, n) {
  const d = utcDate(day);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The same day of the month `n` months on, kept within that month. */
function addMonths(day, n) {
  const [y, m, d] = day.split("-").map(Number);
  const last = new Date(Date.UTC(y, m - 1 + n + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m - 1 + n, Math.min(d, last))).toISOString().slice(0, 10);
}

/** What a date is in the calendar: its words for a reader and its mark on the button. */
function describe(info) {
  const date = fmt(info.day, { dateStyle: "full" });
  if (info.best !== null) return { label: t("archive.day_best", { day: date, n: info.best }), mark: String(info.best) };
  if (info.playable) return { label: t("archive.day_playable", { day: date }), mark: "·" };
  if (info.open) return { label: t("archive.day_open", { day: date }), mark: "" };
  return { label: t("archive.day_none", { day: date }), mark: "" };
}

function dayButton(info) {
  const { label, mark } = describe(info);
  const button = el("button", { type: "button", className: "archive-date" });
  button.dataset.day = info.day;
  if (!info.playable && info.best === null) button.setAttribute("aria-disabled", "true");
  if (info.best !== null) button.classList.add("done");
  else if (info.playable) button.classList.add("playable");
  else if (info.open) button.classList.add("open");
  if (info.day === state.chosen) button.setAttribute("aria-pressed", "true");
  button.tabIndex = info.day === state.focus ? 0 : -1;
  // Its name is the whole date and the score in words; the number and mark are what is seen.
  const num = el("span", { className: "archive-num", textContent: String(Number(info.day.slice(8))) });
  const marked = el("span", { className: "archive-mark", textContent: mark });
  for (const part of [num, marked]) part.setAttribute("aria-hidden", "true");
  button.append(num, marked, el("span", { className: "visually-hidden archive-name", textContent: label }));
  return button;
}

/** The month's weeks (Monday first), each date a button in its cell. */
function renderGrid() {
  const days = state.data.days;
  const lead = (utcDate(days[0].day).getUTCDay() + 6) % 7;
  const cells = [...Array(lead).fill(null), ...days];
  while (cells.length % 7) cells.push(null);
  const rows = [];
  for (let i = 0; i < cells.length; i += 7) {
    const row = el("tr");
    for (const info of cells.slice(i, i + 7)) row.append(el("td", {}, ...(info ? [dayButton(info)] : [])));
    rows.push(row);
  }
  section.querySelector("tbody").replaceChildren(...rows);
  const heads = [];
  for (let i = 0; i < 7; i++) {
    const day = addDays("2024-01-01", i); // a Monday
    const th = el("th", { scope: "col", textContent: fmt(day, { weekday: "narrow" }) });
    th.setAttribute("abbr", fmt(day, { weekday: "long" }));
    heads.push(th);
  }
  section.querySelector("thead tr").replaceChildren(...heads);
}

function renderMonth() {
  const data = state.data;
  section.querySelector("#archive-month").textContent = fmt(`${state.month}-01`, { year: "numeric", month: "long" });
  const first = data.first_day ? monthOf(data.first_day) : state.month;
  section.querySelector("#archive-prev").disabled = state.month <= first;
  section.querySelector("#archive-next").disabled = state.month >= monthOf(localDay());
  renderGrid();
}

/** The chosen date: its practice score, the play button, and its own board beside it. */
function renderChosen() {
  const box = section.querySelector("#archive-day");
  const info = state.data?.days.find((d) => d.day === state.chosen);
  for (const part of box.children) part.hidden = !info && part.id !== "archive-day-text";
  if (!info) {
    box.querySelector("#archive-day-text").textContent = t("archive.choose");
    return;
  }
  const date = fmt(info.day, { dateStyle: "long" });
  box.querySelector("#archive-day-title").textContent = t("archive.chosen_title", {
    day: date,
    table: t(`ps.table.${state.table}`),
  });
  let text = t("archive.none");
  if (info.best !== null) text = t("archive.best", { n: info.best, plays: info.plays });
  else if (info.playable) text = t("archive.not_played");
  else if (info.open) text = t("archive.open");
  box.querySelector("#archive-day-text").textContent = text;
  const play = box.querySelector("#archive-play");
  play.hidden = !info.playable;
  play.textContent = t(info.best === null ? "archive.play" : "archive.play_again");
  renderBoard(info);
}

/** The date's board: its top rows, and where the practice best would have placed. */
function renderBoard(info) {
  const wrap = section.querySelector("#archive-board-box");
  const board = state.board?.day === info.day ? state.board.board : null;
  wrap.hidden = !board;
  if (!board) return;
  let summary = t("archive.board_players", { n: board.players });
  if (info.best !== null && board.players > 0) {
    const above = board.histogram.filter((b) => b.total > info.best).reduce((n, b) => n + b.players, 0);
    summary = t("archive.would_place", { rank: above + 1, n: board.players });
  }
  wrap.querySelector("#archive-board-summary").textContent = summary;
  wrap.querySelector("caption").textContent = t("archive.board_caption", { day: fmt(info.day, { dateStyle: "long" }) });
  const rows = board.top.slice(0, BOARD_ROWS).map((r) => {
    const who = el("td", { textContent: r.name ?? t("daily.anonymous") });
    if (r.name === null) who.classList.add("anon");
    return el(
      "tr",
      {},
      el("td", { className: "num", textContent: String(r.rank) }),
      who,
      el("td", { className: "num", textContent: String(r.total) }),
    );
  });
  if (!rows.length)
    rows.push(el("tr", {}, el("td", { colSpan: 3, className: "empty", textContent: t("archive.board_empty") })));
  wrap.querySelector("tbody").replaceChildren(...rows);
}

function render() {
  if (!state.data) return;
  section.hidden = false;
  renderMonth();
  renderChosen();
}

/** Loads the month of `focus` (a date) and draws it; focus goes to that date when asked. */
async function showMonth(focus, { moveFocus = false } = {}) {
  const month = monthOf(focus);
  if (month !== state.month || !state.data || state.data.table !== state.table) {
    state.data = await dailyApi.archive(state.table, month);
    state.month = month;
  }
  state.focus = focus;
  render();
  if (moveFocus) section.querySelector(`button[data-day="${focus}"]`)?.focus();
}

async function choose(day) {
  state.chosen = day;
  state.focus = day;
  state.board = null;
  render();
  const info = state.data.days.find((d) => d.day === day);
  if (info && (info.playable || info.best !== null)) {
    state.board = { day, board: (await dailyApi.day(state.table, day)).board };
    if (state.chosen === day) renderChosen();
  }
}

const MOVES = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };

function onKey(ev) {
  const day = ev.target.closest("button[data-day]")?.dataset.day;
  if (!day) return;
  let next = null;
  if (ev.key in MOVES) next = addDays(day, MOVES[ev.key]);
  else if (ev.key === "Home") next = addDays(day, -((utcDate(day).getUTCDay() + 6) % 7));
  else if (ev.key === "End") next = addDays(day, 6 - ((utcDate(day).getUTCDay() + 6) % 7));
  else if (ev.key === "PageUp") next = addMonths(day, -1);
  else if (ev.key === "PageDown") next = addMonths(day, 1);
  if (!next) return;
  ev.preventDefault();
  if (monthOf(next) > monthOf(localDay())) return; // no month after this one yet
  run(() => showMonth(next, { moveFocus: true }));
}

function onClick(ev) {
  const button = ev.target.closest("button[data-day]");
  if (!button) return;
  state.focus = button.dataset.day;
  if (button.getAttribute("aria-disabled") === "true") {
    render(); // no deal to play: the date only takes the focus
    section.querySelector(`button[data-day="${state.focus}"]`)?.focus();
    return;
  }
  run(async () => {
    await choose(button.dataset.day);
    section.querySelector(`button[data-day="${state.chosen}"]`)?.focus();
  });
}

/** Deals the chosen date as practice and opens it on the Poker Squares screen. */
function play() {
  const day = state.chosen;
  run(async () => {
    const answer = await replacingAsked((replace) => dailyApi.archivePlay(state.table, day, replace));
    if (!answer) return;
    const record = { id: answer.game.id, table: state.table, day, counted: false, eligible: false, archive: true };
    storageSet(DAILY_GAME_KEY, JSON.stringify(record));
    window.location.href = "poker-squares.html";
  });
}

function build() {
  const nav = el(
    "div",
    { className: "archive-nav" },
    el("button", { type: "button", id: "archive-prev", textContent: "‹" }),
    el("h3", { id: "archive-month" }),
    el("button", { type: "button", id: "archive-next", textContent: "›" }),
  );
  const grid = el("table", { id: "archive-grid", className: "archive-grid" }, el("thead", {}, el("tr")), el("tbody"));
  grid.setAttribute("role", "grid");
  grid.setAttribute("aria-labelledby", "archive-month");
  const boardTable = el(
    "table",
    { className: "board-table archive-board" },
    el("caption", { className: "visually-hidden" }),
  );
  boardTable.append(el("thead"), el("tbody"));
  const board = el("div", { id: "archive-board-box", hidden: true }, el("h4", { id: "archive-board-title" }));
  board.append(el("p", { id: "archive-board-summary" }), boardTable);
  const day = el("div", { id: "archive-day", className: "archive-day" });
  day.append(el("h3", { id: "archive-day-title", tabIndex: -1 }), el("p", { id: "archive-day-text" }));
  day.append(el("button", { type: "button", id: "archive-play", className: "primary" }), board);
  const s = el("section", { id: "archive", className: "panel daily-archive", hidden: true });
  s.setAttribute("aria-labelledby", "archive-title");
  s.append(el("h2", { id: "archive-title" }), el("p", { id: "archive-note", className: "note" }));
  s.append(el("div", { className: "archive-layout" }, el("div", { className: "archive-cal" }, nav, grid), day));
  return s;
}

/** The words of the parts that do not depend on the data. */
function renderWords() {
  section.querySelector("#archive-title").textContent = t("archive.title");
  section.querySelector("#archive-note").textContent = t("archive.note");
  section.querySelector("#archive-prev").setAttribute("aria-label", t("archive.prev"));
  section.querySelector("#archive-next").setAttribute("aria-label", t("archive.next"));
  section.querySelector("#archive-board-title").textContent = t("archive.board_title");
  const head = el(
    "tr",
    {},
    el("th", { scope: "col", className: "num", textContent: t("daily.rank") }),
    el("th", { scope: "col", textContent: t("daily.player") }),
    el("th", { scope: "col", className: "num", textContent: t("daily.score") }),
  );
  section.querySelector(".archive-board thead").replaceChildren(head);
  render();
}

/** Puts the archive after `anchor` for the table `table` (and `setTable` when it changes);
 * opens the date of the page's `?archive=` when there is one. */
export async function initArchive(anchor, table) {
  section = build();
  anchor.after(section);
  state.table = table;
  section.querySelector("tbody").addEventListener("keydown", onKey);
  section.querySelector("tbody").addEventListener("click", onClick);
  section.querySelector("#archive-play").addEventListener("click", play);
  section
    .querySelector("#archive-prev")
    .addEventListener("click", () => run(() => showMonth(addMonths(state.focus, -1))));
  section
    .querySelector("#archive-next")
    .addEventListener("click", () => run(() => showMonth(addMonths(state.focus, 1))));
  onLanguageChange(renderWords);
  const asked = new URLSearchParams(window.location.search).get("archive");
  const wanted = /^\d{4}-\d{2}-\d{2}$/.test(asked || "") ? asked : null;
  renderWords();
  await run(async () => {
    await showMonth(wanted || addDays(localDay(), -1));
    if (wanted) {
      await choose(wanted);
      section.scrollIntoView();
      section.querySelector("#archive-day-title").focus();
    }
  });
}

/** The table shown changed: the calendar follows it. */
export function setArchiveTable(table) {
  if (!section || table === state.table) return;
  state.table = table;
  state.board = null;
  run(async () => {
    await showMonth(state.focus || addDays(localDay(), -1));
    if (state.chosen) await choose(state.chosen);
  });
}
