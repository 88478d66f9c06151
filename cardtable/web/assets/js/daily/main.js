/**
 * The daily deal page (docs/daily.md): today's deal per point table with the countdown to
 * the next one, the player's result (rank, percentile, or for a player who joined that day
 * the provisional rank the server computed; its share box is daily/share-box.js), streaks,
 * the display name, and the board of any recent day (top 100, an SVG histogram, the day's
 * sealed shuffle). The deal itself is played on the Poker Squares screen: "Play" deals it
 * there (daily/attempt.js marks the counted attempt).
 */

import "../shell/boot.js";
import { drawHistogram } from "../core/charts.js";
import { recordOf } from "../core/fairness.js";
import { announce, errorRouter, showError } from "../core/feedback.js";
import { addBundle, currentLanguage, t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { storageGet, storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY, dailyApi, formatCountdown, msToNextDay } from "./api.js";
import { initArchive, setArchiveTable } from "./archive.js";
import { replacingAsked } from "./attempt.js";
import { renderShareBox, wireShareBox } from "./share-box.js";

const $ = (id) => document.getElementById(id);
const TABLE_KEY = "cardtable.daily.table";
const TABLES = ["american", "british"];

const state = { table: "american", day: null, data: null, busy: false, today: null };
const run = serialRunner(state, (err) => handleError(err));
const handleError = errorRouter({
  not_found() {
    state.day = null;
    load();
  },
});

function formatDay(day) {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeZone: "UTC" }).format(
    new Date(Date.UTC(y, m - 1, d)),
  );
}

// --- drawing --------------------------------------------------------------------------------

function renderCountdown() {
  $("countdown").textContent = formatCountdown(msToNextDay());
}

function renderToday(data) {
  const today = state.today;
  const btn = $("play-btn");
  const note = $("play-note");
  btn.disabled = false; // off until the day's data is in (it decides what the button does)
  if (!today?.me) {
    btn.textContent = t("daily.play");
    note.textContent = t("daily.first_counts");
  } else if (today.me.status === "open") {
    btn.textContent = t("daily.continue");
    note.textContent = t("daily.in_progress");
  } else {
    btn.textContent = t("daily.play_practice");
    note.textContent = t("daily.done_note");
  }
  $("today-title").textContent = t("daily.today_title", { day: formatDay(today?.day || data.day) });
}

function resultText(me) {
  if (me.status === "open") return t("daily.result_open");
  if (me.status === "lost") return t("daily.result_lost");
  if (me.status === "practice") return t("daily.result_practice", { n: me.total });
  if (me.status === "review") return t("daily.result_review", { n: me.total });
  if (me.ranked) {
    return t("daily.result_ranked", { n: me.total, rank: me.rank, percentile: me.percentile });
  }
  const p = me.provisional;
  if (p && p.players === 0) return t("daily.result_provisional_first", { n: me.total });
  if (p) return t("daily.result_provisional", { n: me.total, rank: p.rank, percentile: p.percentile });
  return t("daily.result_counted", { n: me.total });
}

function renderResult(data) {
  const me = data.me;
  const box = $("result");
  box.hidden = !me;
  if (!me) return;
  $("result-title").textContent = isToday(data)
    ? t("daily.your_result")
    : t("daily.your_result_on", { day: formatDay(data.day) });
  $("result-text").textContent = resultText(me);
  $("result-badge").hidden = !me.provisional;
  let note = "";
  // With nobody on the board there is no provisional rank to explain, only why it is off.
  if (me.status === "counted" && !me.eligible) {
    note = t(me.provisional?.players === 0 ? "daily.new_id_note_first" : "daily.new_id_note");
  } else if (me.status === "practice") note = t("daily.practice_note");
  else if (me.status === "review") note = t("daily.review_note");
  $("result-note").textContent = note;
  renderShareBox(data);
}

function renderStreak(data) {
  const s = data.streak;
  $("streak-text").textContent =
    `${t("daily.streak_current", { n: s.current })} · ${t("daily.streak_best", { n: s.best })}`;
}

function renderBoard(data) {
  const select = $("day-select");
  const days = [state.today?.day || data.day, ...(state.today?.previous_days || data.previous_days)];
  select.replaceChildren(
    ...days.map((day, i) => {
      const o = document.createElement("option");
      o.value = i === 0 ? "" : day;
      o.textContent = i === 0 ? t("daily.today_option", { day: formatDay(day) }) : formatDay(day);
      return o;
    }),
  );
  select.value = isToday(data) ? "" : data.day;
  const board = data.board;
  $("board-summary").textContent = t("daily.players_n", { n: board.players });
  const mine = data.me?.ranked ? data.me.total : null;
  // An empty board says so in its table: no empty chart above it.
  $("histogram").hidden = board.players === 0;
  drawHistogram(
    $("histogram"),
    board.histogram.map((b) => ({ total: b.total, count: b.players })),
    { mark: mine, label: t("daily.histogram_label", { n: board.players }) },
  );
  $("board-caption").textContent = t("daily.board_caption", {
    day: formatDay(data.day),
    table: t(`ps.table.${data.table}`),
  });
  const body = $("board-table").tBodies[0];
  const rows = board.top.map((r) => {
    const tr = document.createElement("tr");
    if (r.mine) tr.className = "mine";
    const rank = document.createElement("td");
    rank.className = "num";
    rank.textContent = String(r.rank);
    const who = document.createElement("td");
    // A display name is the player's own text: only ever set as text, never as markup.
    who.textContent = r.name ?? t("daily.anonymous");
    if (r.name === null) who.classList.add("anon");
    if (r.mine) who.textContent += ` ${t("daily.you")}`;
    const score = document.createElement("td");
    score.className = "num";
    score.textContent = String(r.total);
    tr.append(rank, who, score);
    return tr;
  });
  if (!rows.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 3;
    td.className = "empty";
    td.textContent = t("daily.board_empty");
    tr.append(td);
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

/** The day's provably fair shuffle in words: the deal was sealed (its commitment shown
 * before the first card), the start of the commitment with the whole value under "Full
 * commitment", and a link to the verify page: with the commitment while the day runs (how to
 * check it), with the published seed and salt (and the cards this browser saw) after. */
function renderFairness(data) {
  const box = $("board-fair");
  const fair = data.fairness;
  if (!fair) {
    box.replaceChildren();
    return;
  }
  const p = new URLSearchParams({ commitment: fair.commitment, game: "ps" });
  if (fair.seed) {
    p.set("seed", fair.seed);
    p.set("salt", fair.salt);
    const rec = recordOf(fair.commitment);
    if (rec) {
      p.set("before", fair.commitment);
      if (rec.cards?.length) p.set("cards", rec.cards.join(" "));
    }
  }
  const short = document.createElement("code");
  short.className = "hex";
  short.textContent = `${fair.commitment.slice(0, 8)}…`;
  short.title = fair.commitment;
  const a = document.createElement("a");
  a.href = `verify.html#${p}`;
  a.id = fair.seed ? "verify-day" : "check-day";
  a.textContent = t(fair.seed ? "daily.verify_day" : "daily.sealed_check");
  const line = document.createElement("p");
  line.className = "sealed";
  line.append(t(fair.seed ? "daily.sealed_past" : "daily.sealed"), " ", short, " ", a);
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = t("daily.sealed_full");
  const full = document.createElement("code");
  full.className = "hex full";
  full.id = "commitment-full";
  full.textContent = fair.commitment;
  details.append(summary, full);
  box.replaceChildren(line, details);
}

/** The introduction: a new deal at the player's own midnight. */
function renderIntro() {
  $("daily-intro").textContent = t("daily.intro");
}

/** The answer is for this device's own date (the page's "today"; the server's `today` says
 * only that some time zone is still on the date). */
const isToday = (data) => data.day === state.today?.day;

function render() {
  renderIntro();
  const data = state.data;
  if (!data) return;
  for (const section of document.querySelectorAll(".daily-streak, .daily-name, .daily-board")) section.hidden = false;
  for (const input of document.querySelectorAll("input[name=daily-table]")) input.checked = input.value === state.table;
  renderToday(data);
  renderResult(data);
  renderStreak(data);
  renderBoard(data);
  renderFairness(data);
  const name = $("name-input");
  if (document.activeElement !== name) name.value = data.display_name ?? "";
}

// --- actions --------------------------------------------------------------------------------

let loads = 0;

/** Fetches the table and day chosen and draws them. The latest choice wins: an answer to an
 * earlier choice that arrives later is dropped, and Play stays off until the answer for the
 * table shown is in (a click on it meanwhile would play the table the page still shows). */
async function load() {
  const seq = ++loads;
  const { table, day } = state;
  $("play-btn").disabled = true;
  try {
    const data = await dailyApi.day(table, day);
    const today = day === null ? data : state.today || (await dailyApi.day(table));
    if (seq !== loads) return;
    state.today = today;
    state.data = data;
    showError(null);
    render();
  } catch (err) {
    if (seq === loads) handleError(err);
  }
}

function play() {
  run(async () => {
    // The other table's counted attempt, unfinished, is replaced only once the player says so.
    const answer = await replacingAsked((replace) => dailyApi.play(state.table, replace, state.today?.day));
    if (!answer) return;
    // What the Poker Squares screen needs to mark the counted attempt (daily/attempt.js).
    storageSet(
      DAILY_GAME_KEY,
      JSON.stringify({
        id: answer.game.id,
        table: state.table,
        day: answer.day,
        counted: answer.counted,
        eligible: answer.eligible,
      }),
    );
    window.location.href = "poker-squares.html";
  });
}

function saveName(ev) {
  ev.preventDefault();
  const value = $("name-input").value.trim();
  run(async () => {
    try {
      const answer = await dailyApi.setName(value || null);
      $("name-input").removeAttribute("aria-invalid");
      $("name-input").value = answer.name ?? "";
      $("name-status").textContent = answer.name ? t("daily.name_saved") : t("daily.name_cleared");
      announce($("name-status").textContent);
      const data = await dailyApi.day(state.table, state.day);
      state.data = data;
      if (state.day === null) state.today = data;
      render();
    } catch (err) {
      if (err.code !== "invalid_request" && err.code !== "invalid_name") throw err;
      // The server says why it refused (a word no one should read, or nothing readable).
      const why = { not_polite: "daily.name_not_polite", not_seen: "daily.name_not_seen" }[err.body?.reason];
      $("name-status").textContent = t(why || "daily.name_invalid");
      $("name-input").setAttribute("aria-invalid", "true");
    }
  });
}

function wire() {
  for (const input of document.querySelectorAll("input[name=daily-table]")) {
    input.addEventListener("change", () => {
      state.table = input.value;
      storageSet(TABLE_KEY, state.table);
      state.today = null;
      load();
      setArchiveTable(state.table);
    });
  }
  $("play-btn").addEventListener("click", play);
  wireShareBox();
  $("name-form").addEventListener("submit", saveName);
  $("day-select").addEventListener("change", (ev) => {
    state.day = ev.target.value || null;
    load();
  });
  onLanguageChange(render);
  renderIntro();
  let last = msToNextDay();
  setInterval(() => {
    const left = msToNextDay();
    renderCountdown();
    if (left > last) {
      // This device's midnight passed: its new date, a new deal.
      state.day = null;
      state.today = null;
      load();
    }
    last = left;
  }, 1000);
}

addBundle("daily");
await initPage();
const wanted = new URLSearchParams(window.location.search).get("table") || storageGet(TABLE_KEY);
state.table = TABLES.includes(wanted) ? wanted : "american";
wire();
renderCountdown();
await load();
performance.mark("daily-ready");
await initArchive(document.querySelector(".daily-layout"), state.table);
