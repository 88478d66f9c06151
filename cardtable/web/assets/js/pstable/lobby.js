/**
 * The lobby of a Poker Squares table: the invite (room code, link with a copy button, QR code:
 * online/lobby-parts.js), the rules in force, who has joined and how they are connected, Join
 * for a device without a seat, and Start for the host once two are in. Names are typed by
 * people: they only ever reach the page as `textContent`.
 */

import { t } from "../core/i18n.js";
import { showCode } from "../online/lobby-parts.js";
import { inviteUrl, seated } from "./state.js";

const $ = (id) => document.getElementById(id);

export function el(tag, className, text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/** The rules in force, one line each. */
export function rulesLines(table) {
  const st = table.settings;
  const time = st.card_seconds ? t(`pst.timer.${st.card_seconds}`) : t("pst.timer.off");
  return [
    t("pst.rules_table", { table: t(`ps.table.${st.table}`) }),
    t("pst.rules_timer", { time }),
    t("pst.rules_same"),
    t("pst.rules_away"),
  ];
}

/** A player's presence in words, as a node (the same marks as a Kings Corner seat's). */
export function presenceNode(player) {
  const kind = { here: "online", reconnecting: "reconnecting", away: "away" }[player.presence] || "online";
  return el("span", `conn ${kind}`, t(`pst.presence.${player.presence || "here"}`));
}

/** The small words after a player's name: you, host. */
export function playerTags(table, player) {
  const tags = [];
  if (player.seat === table.you?.seat) tags.push(t("kco.you_tag"));
  if (player.host) tags.push(t("kco.host_tag"));
  return tags;
}

function playerRow(table, player) {
  const li = el("li", "lobby-seat person");
  li.dataset.seat = String(player.seat);
  const who = el("span", "lobby-seat-who");
  who.append(el("span", "lobby-seat-n", String(player.seat + 1)), " ", el("strong", "lobby-seat-name", player.name));
  const tags = playerTags(table, player);
  if (tags.length) who.append(" ", el("span", "lobby-seat-tags", tags.join(t("kc.sep"))));
  li.append(who, presenceNode(player));
  return li;
}

function title(table) {
  const node = $("lobby-title");
  const host = table.players.find((p) => p.host)?.name;
  if (table.you?.host) node.textContent = t("pst.lobby_title_mine");
  else node.textContent = host ? t("pst.lobby_title_of", { host }) : t("pst.lobby_title");
}

/** Draws the lobby of `table`. */
export function renderLobby(table) {
  title(table);
  $("invite-box").hidden = !table.code;
  if (table.code) {
    showCode($("room-code-text"), table.code);
    $("invite-link").value = inviteUrl();
  }
  $("lobby-rules").replaceChildren(...rulesLines(table).map((line) => el("li", "", line)));
  const mine = seated(table);
  const full = table.players.length >= table.settings.max_players;
  $("lobby").classList.toggle("guest", !mine);
  $("join-box").hidden = mine || full;
  $("lobby-players").replaceChildren(...table.players.map((p) => playerRow(table, p)));
  const host = Boolean(table.you?.host);
  $("start-btn").hidden = !host;
  $("start-btn").disabled = table.players.length < 2;
  $("leave-btn").hidden = !mine;
  $("lobby-count").textContent = t("pst.players_n", { n: table.players.length, max: table.settings.max_players });
  let status;
  if (host) status = table.players.length < 2 ? t("pst.start_wait") : "";
  else if (mine) status = t("pst.wait_host");
  else status = full ? t("pst.full") : t("pst.join_note");
  $("lobby-status").textContent = status;
  $("lobby-status").hidden = !status;
}
