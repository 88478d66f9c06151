/**
 * The lobby of an online Kings Corner table and the words about its seats: the invite (room
 * code, link with a copy button, QR code), the rules in force, the seats with who has joined
 * and their connection, and the host's controls (an open seat becomes a computer; Start).
 * Display names are typed by people: they only ever reach the page as `textContent`.
 * The room code and the countdowns are lobby-parts.js's, shared with the Poker Squares table.
 */

import { t } from "../core/i18n.js";
import { presetOf } from "../kings-corner/setup.js";
import { rulesOptions, seatName } from "../kings-corner/text.js";
import { countdown, showCode } from "./lobby-parts.js";

export { tickCountdowns } from "./lobby-parts.js";

const $ = (id) => document.getElementById(id);

function el(tag, className, text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/** A seat's connection in words (a person's), as a node; null for others. */
export function connectionNode(table, seat, serverNow) {
  const s = table.seats[seat];
  if (s.kind !== "person" || s.local) return null;
  if (s.connection === "reconnecting" && s.deadline) {
    return countdown("conn reconnecting", "kco.conn.reconnecting", s.deadline, serverNow);
  }
  // At a turn-based table away is how people usually are: no computer plays for them.
  const idle = table.settings?.pace === "turn" && s.connection === "away" && !s.stand_in;
  const node = el(
    "span",
    `conn ${s.connection || "online"}`,
    t(idle ? "kct.conn.away" : `kco.conn.${s.connection || "online"}`),
  );
  return node;
}

/** The small words after a seat's name: host, you, on the host's device, ready. */
export function seatTags(table, seat) {
  const s = table.seats[seat];
  const tags = [];
  if (table.me?.seats.includes(seat) && table.me.seats.length > 1) tags.push(t("kco.you_tag"));
  if (seat === table.host) tags.push(t("kco.host_tag"));
  if (s.local) tags.push(t("kco.local_tag"));
  if (s.kind === "computer") tags.push(t(`kc.strength.${s.strength}`));
  if (s.kind === "person" && s.missed) tags.push(t("kct.missed_tag", { n: s.missed }));
  return tags;
}

/** The rules in force, one line each. */
export function rulesLines(table) {
  const st = table.settings;
  const rules = st.rules;
  return [
    t("kc.rules_line", { name: t(`kc.rule_set.${presetOf(rules)}`), options: rulesOptions(rules) }),
    t("kco.rounds_line", { n: st.rounds }),
    st.pace === "turn"
      ? t("kct.pace_line", { time: t(`kct.turn_length.${st.turn_seconds}`) })
      : t("kco.timer_line", { time: st.turn_timer ? t("kco.timer_s", { n: st.turn_timer }) : t("kco.timer.off") }),
    t("kco.stand_in_line", { strength: t(`kc.strength.${st.stand_in}`) }),
    // A turn-based table waits for no one's connection: only the turn's own time counts.
    ...(st.pace === "turn" ? [] : [t("kon.grace_line", { grace: t("kco.timer_s", { n: Math.round(st.grace) }) })]),
  ];
}

/** The words of an open seat's kept tools, in the page's language now. */
function relabelTools(tools, seat) {
  const take = tools.querySelector(".take-seat");
  if (take) take.textContent = t("kco.take_seat", { n: seat + 1 });
  const select = tools.querySelector(".strength-select");
  if (select) {
    select.setAttribute("aria-label", t("kco.strength_for", { n: seat + 1 }));
    for (const o of select.options) o.textContent = t(`kc.strength.${o.value}`);
  }
  const make = tools.querySelector(".make-computer");
  if (make) {
    make.textContent = t("kco.make_computer");
    make.setAttribute("aria-label", t("kco.make_computer_label", { n: seat + 1 }));
  }
}

/** The tools of an open seat: Take seat for a guest, the strength and Computer for the host. */
function openSeatTools(seat, key, { seated, host, join, makeComputer }) {
  const tools = el("span", "lobby-seat-tools");
  tools.dataset.key = key;
  if (!seated) {
    const b = el("button", "primary take-seat", t("kco.take_seat", { n: seat + 1 }));
    b.type = "button";
    b.dataset.seat = String(seat);
    b.addEventListener("click", () => join(seat));
    tools.append(b);
  }
  if (host) {
    const select = el("select", "strength-select");
    select.id = `strength-${seat}`;
    select.setAttribute("aria-label", t("kco.strength_for", { n: seat + 1 }));
    for (const v of ["easy", "normal", "strong"]) {
      const o = el("option", "", t(`kc.strength.${v}`));
      o.value = v;
      o.selected = v === "normal";
      select.append(o);
    }
    const b = el("button", "make-computer", t("kco.make_computer"));
    b.type = "button";
    b.dataset.seat = String(seat);
    b.setAttribute("aria-label", t("kco.make_computer_label", { n: seat + 1 }));
    b.addEventListener("click", () => makeComputer(seat, select.value));
    tools.append(select, b);
  }
  return tools;
}

/** One seat's row in the lobby; an open seat takes its tools from `kept` when they match. */
function seatRow(table, seat, kept, { join, makeComputer, serverNow }) {
  const s = table.seats[seat];
  const seated = Boolean(table.me);
  const host = Boolean(table.me?.host);
  const li = el("li", `lobby-seat ${s.kind}`);
  li.dataset.seat = String(seat);
  const who = el("span", "lobby-seat-who");
  who.append(el("span", "lobby-seat-n", String(seat + 1)), " ", el("strong", "lobby-seat-name", seatName(table, seat)));
  const tags = seatTags(table, seat);
  if (tags.length) who.append(" ", el("span", "lobby-seat-tags", tags.join(t("kc.sep"))));
  li.append(who);
  const conn = connectionNode(table, seat, serverNow);
  if (conn) li.append(conn);
  if (s.kind !== "open") return li;
  li.append(el("span", "conn waiting", t("kco.waiting_friend")));
  const key = `${seat}:${seated}:${host}`;
  const old = kept.get(key);
  if (old) relabelTools(old, seat);
  const tools = old ?? openSeatTools(seat, key, { seated, host, join, makeComputer });
  if (tools.childElementCount) li.append(tools);
  return li;
}

/**
 * Draws the lobby. `actions`: `join(seat)`, `makeComputer(seat, strength)`; `serverNow()`.
 */
export function renderLobby(table, { join, makeComputer, serverNow, inviteUrl }) {
  const me = table.me;
  const host = Boolean(me?.host);
  const open = table.seats.map((s, i) => (s.kind === "open" ? i : -1)).filter((i) => i >= 0);

  // Whose table it is: a friend opening an invite sees the host's name first.
  const title = $("lobby-title");
  delete title.dataset.i18n;
  const hostName = table.seats[table.host]?.name;
  if (host) title.textContent = t("kco.lobby_title_mine");
  else title.textContent = hostName ? t("kco.lobby_title_of", { host: hostName }) : t("kco.lobby_title");

  $("invite-box").hidden = !table.code;
  if (table.code) {
    showCode($("room-code-text"), table.code);
    $("invite-link").value = inviteUrl;
  }

  $("lobby-rules").replaceChildren(...rulesLines(table).map((line) => el("li", "", line)));

  const seated = Boolean(me);
  $("lobby").classList.toggle("guest", !seated);
  $("join-box").hidden = seated || !open.length;
  // An open seat keeps its tools (the same nodes) while they stay the same: a table drawn
  // again (someone connects or joins) must not lose a press half made, the keyboard's focus
  // or the host's choice of strength.
  const focused = document.activeElement;
  const kept = new Map();
  for (const node of $("lobby-seats").querySelectorAll(".lobby-seat-tools")) {
    kept.set(node.dataset.key, node);
  }
  const items = table.seats.map((_, seat) => seatRow(table, seat, kept, { join, makeComputer, serverNow }));
  $("lobby-seats").replaceChildren(...items);
  // A kept control moved into its seat's new row: the focus goes back to it.
  if (focused?.isConnected && focused !== document.activeElement) focused.focus({ preventScroll: true });

  const startBtn = $("start-match-btn");
  startBtn.hidden = !host;
  startBtn.disabled = open.length > 0;
  $("leave-btn").hidden = !seated;
  let status;
  if (host) status = open.length ? t("kco.start_wait") : "";
  else if (seated) status = t("kco.wait_host");
  else status = open.length ? "" : t("kco.no_seat_left");
  $("lobby-status").textContent = status;
}
