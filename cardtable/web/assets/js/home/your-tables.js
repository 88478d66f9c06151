/**
 * "Your tables" on the home page (docs/online.md): the online Kings Corner tables this
 * browser's player sits at, from GET /api/kings-corner/online/mine, the ones waiting for their
 * move first. Each row is one link to the table (its invite link, kings-corner-online.html#token)
 * with the other players' names, the round, whose turn it is and the time left on it (the
 * stored deadline, shown in this device's local time). At most three rows show until "All your
 * tables (n)" opens the rest, so the games' buttons stay on a phone's first screen. Nothing
 * shows when the player sits at no table (or the server does not answer).
 */

import { call, hasPlayer } from "../core/api.js";
import { currentLanguage, t } from "../core/i18n.js";

const SHOWN = 3;
let answer = null;
let open = false;

/** The seat's display name as the list shows it. */
function seatName(seat) {
  if (seat.kind === "computer") return t("mine.computer");
  if (seat.kind === "open") return t("mine.open_seat");
  return seat.name;
}

/** "3 h left" / "12 min left" / "2 d left", counted from the server's clock. */
function timeLeft(deadline, skew) {
  const ms = Date.parse(deadline) - (Date.now() + skew);
  if (ms <= 0) return t("mine.time_up");
  const minutes = Math.ceil(ms / 60000);
  if (minutes < 60) return t("mine.left_min", { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return t("mine.left_h", { n: hours });
  return t("mine.left_d", { n: Math.floor(hours / 24) });
}

function localTime(deadline) {
  return new Intl.DateTimeFormat(currentLanguage(), {
    weekday: "short",
    hour: "numeric",
    minute: "2-digit",
  }).format(new Date(deadline));
}

/** What the table waits for: "Your turn", "Bob's turn", "Waiting to start", "Finished". */
function status(table) {
  if (table.finished) return t("mine.finished");
  if (table.phase === "lobby") return t("mine.waiting_start");
  if (table.phase === "round_over") return t("mine.round_over");
  if (table.your_turn) return t("mine.your_turn");
  const seat = table.seats[table.turn_seat];
  return seat ? t("mine.their_turn", { name: seatName(seat) }) : "";
}

function row(table, skew) {
  const li = document.createElement("li");
  const link = document.createElement("a");
  link.className = "your-table";
  if (table.your_turn) link.classList.add("your-move");
  if (table.finished) link.classList.add("finished");
  link.href = `kings-corner-online.html#${encodeURIComponent(table.token)}`;
  link.dataset.token = table.token;
  const others = table.seats.filter((s) => !s.you).map(seatName);
  const top = document.createElement("span");
  top.className = "your-table-top";
  const state = document.createElement("strong");
  state.textContent = status(table);
  const names = document.createElement("span");
  names.className = "your-table-names";
  names.textContent = t("mine.with", { names: others.join(t("mine.name_sep")) });
  top.append(state, " ", names);
  const bits = [];
  if (table.round !== null && !table.finished) {
    bits.push(t("mine.round", { round: table.round, rounds: table.rounds }));
  }
  if (table.deadline && !table.finished) {
    bits.push(`${timeLeft(table.deadline, skew)} (${t("mine.until", { time: localTime(table.deadline) })})`);
  }
  bits.push(t(table.pace === "turn" ? "mine.pace_turn" : "mine.pace_live"));
  const detail = document.createElement("span");
  detail.className = "your-table-detail";
  detail.textContent = bits.join(" · ");
  link.append(top, detail);
  li.append(link);
  return li;
}

function render() {
  const box = document.getElementById("your-tables");
  if (!box) return;
  const tables = answer?.tables ?? [];
  box.hidden = tables.length === 0;
  document.body.classList.toggle("has-tables", !box.hidden);
  if (box.hidden) return;
  const skew = Date.parse(answer.now) - Date.now();
  const list = document.getElementById("your-tables-list");
  list.replaceChildren(
    ...tables.map((table, i) => {
      const li = row(table, skew);
      li.hidden = !open && i >= SHOWN;
      return li;
    }),
  );
  const more = document.getElementById("your-tables-all");
  more.hidden = tables.length <= SHOWN;
  more.setAttribute("aria-expanded", String(open));
  more.textContent = open ? t("mine.fewer") : t("mine.all", { n: tables.length });
}

/** Fills the section once this browser has a player (a first visit asks nothing). */
export async function loadYourTables() {
  if (!hasPlayer()) return;
  document.getElementById("your-tables-all")?.addEventListener("click", () => {
    open = !open;
    render();
  });
  try {
    answer = await call("GET", "/api/kings-corner/online/mine");
  } catch {
    answer = null; // the home page works without it
  }
  render();
  const box = document.getElementById("your-tables");
  if (box) box.dataset.loaded = "true"; // for tests: the answer is shown (or nothing is)
}

export const renderYourTables = render;
