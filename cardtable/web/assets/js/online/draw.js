/**
 * Drawing the online table (main.js): the screen shown (room code, lobby or table), the table
 * with this device's seats, connection states, the absent seats' line, the open seat's
 * invite, spectators, the turn timer, and the end panel with its way on. It draws `state`
 * (state.js); its buttons run the actions main.js gives as `page.on` (actions.js).
 */

import { verifyLink } from "../core/game-end.js";
import { t } from "../core/i18n.js";
import { endSummary, renderEnd } from "../kings-corner/end.js";
import { ownTurnText, renderBoard, renderHandoff } from "../kings-corner/play.js";
import { seatName, sentences } from "../kings-corner/text.js";
import { renderQuickEnd } from "../quickplay/after-match.js";
import { connectionNode, renderLobby, seatTags, tickCountdowns } from "./lobby.js";
import { showTurnLine, turnBased } from "./pace.js";
import { decorateReaction, drawReactions } from "./reactions.js";
import { closeSeatOptions } from "./seat-options.js";
import { hasOptions, inviteUrl, mine, myTurn, page, serverNow, state } from "./state.js";
import { handsBlock, listOf, nameIn, presenceText, renderStory, standInSummary } from "./story.js";

const $ = (id) => document.getElementById(id);

/** The end of the round or match, a stand-in still playing an away seat named as such. */
export function summary(game) {
  return standInSummary(game, endSummary);
}

export function turnText(game) {
  if (game.phase === "round_over" || game.phase === "match_over") return summary(game);
  const seat = game.turn?.seat;
  if (seat === null || seat === undefined) return "";
  const who = seatName(game, seat);
  const s = game.seats[seat];
  if (game.phase === "handoff") return t("kc.turn_handoff", { who });
  if (s.kind === "computer") return t("kc.turn_computer", { who });
  if (s.kind === "open") return t("kon.presence.open", { n: seat + 1 });
  if (s.stand_in) return t("kco.stand_in_turn", { who });
  if (!myTurn()) return t("kc.turn_of", { who });
  return ownTurnText(game, who);
}

export function decorateSeat(li, seat, game) {
  const s = game.seats[seat];
  li.classList.toggle("mine", mine(seat));
  const tags = seatTags(game, seat).filter((tag) => tag !== t(`kc.strength.${s.strength}`));
  if (tags.length)
    li.querySelector(".seat-title").append(
      " ",
      Object.assign(document.createElement("span"), {
        className: "seat-tags",
        textContent: tags.join(t("kc.sep")),
      }),
    );
  const conn = connectionNode(game, seat, serverNow);
  if (conn) {
    li.classList.add(`conn-${s.connection}`);
    li.append(conn);
  }
  if (s.kind === "person" && game.phase === "match_over" && s.rematch) {
    const ready = document.createElement("span");
    ready.className = "rematch-tag";
    ready.textContent = `✓ ${t("kco.rematch_ready")}`;
    li.append(ready);
  }
  decorateReaction(li, seat);
}

function renderPlay() {
  const game = state.game;
  const v = game.view;
  const tableEl = $("table");
  const { table, chooser } = page;
  const a = renderBoard({ table, chooser, state, myTurn: myTurn(), turnLine: turnText(game) });
  closeSeatOptions(game.seats.map((_, seat) => seat).filter((seat) => hasOptions(game, seat)));
  renderStory($("move-log"), game);
  const presence = presenceText(game);
  $("presence-line").textContent = presence;
  $("presence-line").hidden = !presence;
  renderSeatOpen(game);
  const watching = !game.me;
  $("watch-label").hidden = !watching;
  if (watching) $("hand-title").textContent = t("kco.watching_note");
  $("spectators-line").textContent = game.spectators ? t("kco.spectators_n", { n: game.spectators }) : "";

  const deadline = game.phase === "play" ? game.turn?.deadline : null;
  const timer = $("timer-line");
  timer.hidden = !deadline;
  if (turnBased(game)) {
    // Hours or days a turn: whose turn and until when, in the reader's time (pace.js).
    delete timer.dataset.deadline;
    showTurnLine(timer, game, serverNow);
  } else if (deadline) {
    timer.dataset.deadline = String(deadline);
    timer.dataset.key = "kco.turn_time_left";
  } else {
    delete timer.dataset.deadline;
  }

  const over = game.phase === "round_over" || game.phase === "match_over";
  renderHandoff(game, game.turn?.seat, game.phase === "handoff" && mine(game.turn?.seat));
  const end = $("end-btn");
  end.hidden = over || watching;
  end.disabled = !a.moves.includes("end");
  $("undo-btn").hidden = watching || over;
  $("undo-btn").disabled = !myTurn() || !v.can_undo;
  $("table-leave-btn").hidden = watching;
  drawReactions(game);
  tableEl.classList.toggle("over", over);
  tableEl.classList.toggle("watching", watching);
  const endBox = $("end");
  endBox.hidden = !over;
  if (over) {
    renderEnd(endBox, game, { actions: () => endActions(game) });
    // A stand-in still playing an away seat wins as "Computer for …".
    $("end-summary").textContent = summary(game);
    const hands = handsBlock(game);
    if (hands) endBox.querySelector(".table-scroll").after(hands);
  }
  renderQuickEnd(endBox, game, state.token); // after a quick-play match: "Don't seat me with…"
  tickCountdowns(serverNow);
}

/**
 * An open seat during the match (the host invited someone new): the host sees the link and
 * the room code to send; a device without a seat sees the name field and "Take seat".
 */
function renderSeatOpen(game) {
  const open = game.seats.map((s, i) => (s.kind === "open" ? i : -1)).filter((i) => i >= 0);
  const box = $("seat-open");
  const playing = game.phase !== "match_over";
  const host = Boolean(game.me?.host);
  const guest = !game.me;
  box.hidden = !open.length || !playing || !(host || guest);
  if (box.hidden) return;
  $("seat-open-title").textContent = t(host ? "kon.invite_seat_title" : "kon.take_seat_title");
  const code = game.code ? `${game.code.slice(0, 3)} ${game.code.slice(3)}` : "";
  $("seat-open-text").textContent = host ? t("kon.invite_seat_text", { code }) : t("kon.take_seat_text");
  $("seat-open-link").hidden = !host;
  $("seat-invite-link").value = inviteUrl();
  $("seat-open-join").hidden = !guest;
  if (guest) {
    // The buttons stay the same nodes while the same seats are open: a table that changes
    // (a computer's step) must not take a press half made, nor the keyboard's focus, away.
    const seats = $("seat-open-seats");
    const have = [...seats.children].map((b) => Number(b.dataset.seat));
    if (have.join() !== open.join()) {
      seats.replaceChildren(
        ...open.map((seat) => {
          const b = button(`take-seat-${seat}`, "primary take-seat", "", () => page.on.join(seat, "seat-join-name"));
          b.dataset.seat = String(seat);
          return b;
        }),
      );
    }
    for (const b of seats.children) b.textContent = t("kco.take_seat", { n: Number(b.dataset.seat) + 1 });
  }
}

/**
 * The end panel's way on: next round (any seated person) or the rematch (one press each), and
 * for everyone, spectators too, the replay of the round that ended (kc-replay.html, every hand
 * shown now) and the link to check the round's shuffle (verify.html).
 */
function endActions(game) {
  const out = wayOn(game);
  out.push(replayLink(game));
  const verify = verifyLink(game.view);
  if (verify) out.push(verify);
  return out;
}

/** The replay of the round just over. The table's token goes in the address's fragment, as
 * in the invite link: it never reaches the server's request line or another site. */
function replayLink(game) {
  const a = document.createElement("a");
  a.className = "button";
  a.id = "replay-round-btn";
  a.href = `kc-replay.html?round=${game.match.round}#table=${encodeURIComponent(state.token)}`;
  a.textContent = t("kr.replay_btn");
  return a;
}

function wayOn(game) {
  const out = [];
  if (!game.me) return out;
  if (game.phase === "round_over") {
    const b = button("next-round-btn", "primary", t("kc.next_round", { n: game.match.round + 1 }), page.on.nextRound);
    out.push(b);
    return out;
  }
  const people = game.seats.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === "person" && !s.local);
  const meReady = game.me.seats.every((i) => game.seats[i].local || game.seats[i].rematch);
  const rematch = button("rematch-btn", "primary", t("kc.rematch"), page.on.rematch);
  rematch.disabled = meReady;
  rematch.setAttribute("aria-pressed", String(meReady));
  out.push(rematch);
  // The rematch starts without a person who is away: they are not waited for.
  const notReady = people.filter(({ s }) => !s.rematch);
  const waiting = notReady.filter(({ s }) => s.connection !== "away").map(({ i }) => nameIn(game, i));
  const away = notReady.filter(({ s }) => s.connection === "away").map(({ i }) => nameIn(game, i));
  const line = document.createElement("span");
  line.id = "rematch-status";
  line.className = "rematch-status";
  const parts = [];
  if (meReady) parts.push(t("kco.rematch_you_ready"));
  if (waiting.length) parts.push(t("kco.rematch_waiting", { who: listOf(waiting) }));
  if (away.length) parts.push(t("kon.rematch_without", { who: listOf(away) }));
  line.textContent = sentences(parts);
  out.push(line);
  return out;
}

function button(id, className, text, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.id = id;
  if (className) b.className = className;
  b.textContent = text;
  b.addEventListener("click", onClick);
  return b;
}

export function showScreen(name) {
  state.screen = name;
  $("code-entry").hidden = name !== "code";
  $("lobby").hidden = name !== "lobby";
  $("table").hidden = name !== "table";
}

export function render() {
  const game = state.game;
  if (!game) return;
  $("table").dataset.token = state.token;
  $("table").dataset.phase = game.phase;
  $("table").dataset.version = String(game.version);
  document.body.dataset.phase = game.phase;
  if (game.phase === "lobby") {
    showScreen("lobby");
    renderLobby(game, { join: page.on.join, makeComputer: page.on.makeComputer, serverNow, inviteUrl: inviteUrl() });
    tickCountdowns(serverNow);
  } else {
    showScreen("table");
    renderPlay();
  }
}
