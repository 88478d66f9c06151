/**
 * The Kings Corner online page (docs/online.md): the invite link is this page with the
 * table's token as the fragment. Without one it asks for a room code; with one it opens the
 * live channel and shows the lobby, then the table (kings-corner/table.js, as in the local
 * game: only this device's hand), others' moves animated and announced, connection states and
 * countdowns, the end of a round and the rematch. What a device does goes by POST with the
 * table's version; what the server pushes replaces the table when it is newer.
 */

import "../shell/boot.js";
import { call, onlineApi } from "../core/api.js";
import { notifyControl, turnAttention } from "../core/attention.js";
import { noteFairness } from "../core/fairness.js";
import { announce, announceInOrder, errorRouter, onShortcuts, showError } from "../core/feedback.js";
import { verifyLink } from "../core/game-end.js";
import { t } from "../core/i18n.js";
import { initPage, onLanguageChange, serialRunner } from "../core/page.js";
import { getSetting, storageGet, storageSet } from "../core/settings.js";
import { playSound } from "../core/sound.js";
import { endSummary, renderEnd } from "../kings-corner/end.js";
import {
  afterMove,
  announceRound,
  endTurnParts,
  focusHand,
  landing,
  lastPiles,
  mayEndTurn,
  moveStart,
  ownTurnText,
  renderBoard,
  renderHandoff,
  say,
  slideFrom,
  undone,
  wireTable,
} from "../kings-corner/play.js";
import { eventText, parseMove, seatName, sentences } from "../kings-corner/text.js";
import { wireCodeForm } from "./code.js";
import { openLive } from "./live.js";
import { connectionNode, renderLobby, seatTags, tickCountdowns } from "./lobby.js";
import { addSeatOptions, closeSeatOptions } from "./seat-options.js";
import {
  awaySummary,
  entryText,
  handsBlock,
  latestText,
  listOf,
  nameIn,
  newNotes,
  noteText,
  presenceText,
  renderStory,
  standInSummary,
} from "./story.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "cardtable.onlineName";
const SEEN_KEY = "cardtable.onlineSeen"; // {token: {v, n, round}}: what this device last saw
const SLIDE_MS = 220;
const ANNOUNCE_AT_MOST = 3;

const state = {
  token: null,
  game: null, // the OnlineTable as this device may see it (kc-choose calls it `game`)
  selection: null,
  busy: false,
  lastLog: 0, // the highest log entry this page has shown
  offset: 0, // server clock minus this clock, in seconds
  screen: null,
  seenBefore: null, // the version shown when the live connection was lost
};

let table;
let chooser;
let live = null;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

function serverNow() {
  return Date.now() / 1000 + state.offset;
}

function inviteUrl() {
  return `${location.origin}${location.pathname}#${state.token}`;
}

function mine(seat) {
  return Boolean(state.game?.me?.seats.includes(seat));
}

function myTurn() {
  const g = state.game;
  if (!g || g.phase !== "play" || !g.view || g.view.is_over || g.viewer === null) return false;
  const seat = g.turn?.seat;
  return seat === g.viewer && g.view.to_play === seat && !g.seats[seat].stand_in;
}

function legal() {
  return myTurn() ? state.game.view.legal_moves : [];
}

// --- drawing ---------------------------------------------------------------------------------

/** The end of the round or match, a stand-in still playing an away seat named as such. */
function summary(game) {
  return standInSummary(game, endSummary);
}

function turnText(game) {
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

function decorateSeat(li, seat, game) {
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
}

function renderPlay() {
  const game = state.game;
  const v = game.view;
  const tableEl = $("table");
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
  if (deadline) {
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
    $("seat-open-seats").replaceChildren(
      ...open.map((seat) => {
        const b = button(`take-seat-${seat}`, "primary take-seat", t("kco.take_seat", { n: seat + 1 }), () =>
          join(seat, "seat-join-name"),
        );
        b.dataset.seat = String(seat);
        return b;
      }),
    );
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
    const b = button("next-round-btn", "primary", t("kc.next_round", { n: game.match.round + 1 }), nextRound);
    out.push(b);
    return out;
  }
  const people = game.seats.map((s, i) => ({ s, i })).filter(({ s }) => s.kind === "person" && !s.local);
  const meReady = game.me.seats.every((i) => game.seats[i].local || game.seats[i].rematch);
  const rematch = button("rematch-btn", "primary", t("kc.rematch"), rematchPress);
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

function showScreen(name) {
  state.screen = name;
  $("code-entry").hidden = name !== "code";
  $("lobby").hidden = name !== "lobby";
  $("table").hidden = name !== "table";
}

function render() {
  const game = state.game;
  if (!game) return;
  $("table").dataset.token = state.token;
  $("table").dataset.phase = game.phase;
  $("table").dataset.version = String(game.version);
  document.body.dataset.phase = game.phase;
  if (game.phase === "lobby") {
    showScreen("lobby");
    renderLobby(game, { join, makeComputer, serverNow, inviteUrl: inviteUrl() });
    tickCountdowns(serverNow);
  } else {
    showScreen("table");
    renderPlay();
  }
}

// --- motion ------------------------------------------------------------------------------

/** How long a card slides (none when motion is reduced or the speed is "instant"). */
function slideMs() {
  const still = reducedMotion.matches || getSetting("kcSpeed") === "instant";
  return still ? 0 : SLIDE_MS;
}

// --- the table arriving ----------------------------------------------------------------------

/**
 * A table from the server (a POST answer, or a push). An older or equal version changes
 * nothing. Log entries this page has not shown yet, made by someone else (or by a computer
 * standing in for this device), are animated and announced.
 */
function adopt(next, { own = false } = {}) {
  const prev = state.game;
  if (prev && next.version <= prev.version) return;
  // A live push passes no API call: its commitment is noted here (core/fairness.js), so the
  // verify link can say this browser saw it before the round's seed was revealed.
  noteFairness(next);
  state.offset = next.now - Date.now() / 1000;
  const wasMyTurn = myTurn();
  const prevPhase = prev?.phase;
  // A new round numbers its log from 1 again.
  if (prev && next.match?.round !== prev.match?.round) state.lastLog = 0;
  const fresh = next.log.filter((e) => e.n > state.lastLog);
  const shown = fresh.filter((e) => own === false && (!mine(e.seat) || e.by));
  // Measured before the board changes: where each shown move's card comes from.
  const last = shown[shown.length - 1];
  let from = null;
  if (last && prev && prev.phase !== "lobby" && state.screen === "table") {
    const m = parseMove(last.move);
    const node = m.kind === "shift" ? table.pile(m.from) : m.kind === "play" ? table.seat(last.seat) : null;
    from = node ? node.getBoundingClientRect() : null;
  }
  if (next.log.length) state.lastLog = Math.max(state.lastLog, next.log[next.log.length - 1].n);
  state.game = next;
  chooser.keepSelection();
  render();
  if (last && from) {
    const pile = landing(last.move);
    if (pile && lastPiles(next).has(pile)) slideFrom(table, from, pile, slideMs());
  }
  const parts = [];
  if (shown.length && shown.length <= ANNOUNCE_AT_MOST && prevPhase !== "lobby") {
    for (const e of shown) parts.push(entryText(next, e));
    for (const e of next.events || []) if (!mine(e.seat)) parts.push(eventText(next, e));
    playSound(last.move === "end" ? "undo" : "place");
  }
  // Drops, returns, stand-ins, timers and the host's actions are spoken like moves.
  if (prev && prev.phase !== "lobby") for (const note of newNotes(next, prev.version)) parts.push(noteText(next, note));
  parts.push(...changeText(prev, next, wasMyTurn));
  // Queued: changes that arrive together (a stand-in's steps) are each heard, in order.
  if (parts.length && !own) announceInOrder(sentences(parts));
  if (next.phase !== "lobby") say(latestText(next, () => summary(next)));
  showAway(prev, next);
  noteSeen(next);
  attend();
  if (!own) focusAfterChange(prev, next, wasMyTurn);
}

/** The title, the turn sound and the notification follow whether it is this device's turn. */
function attend() {
  const g = state.game;
  const body = g && g.phase !== "lobby" ? latestText(g, () => summary(g)) : "";
  turnAttention(myTurn(), { title: t("kco.page_title"), body });
}

function seenAll() {
  try {
    return JSON.parse(storageGet(SEEN_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** Remembers the version (and log entry) this device has shown, for "while you were away". */
function noteSeen(game) {
  if (!game.me || game.phase === "lobby") return;
  const all = seenAll();
  const last = game.log[game.log.length - 1];
  all[state.token] = { v: game.version, n: last ? last.n : 0, round: game.match?.round ?? 0 };
  // Only the last few tables are kept.
  const keys = Object.keys(all);
  for (const key of keys.slice(0, Math.max(0, keys.length - 8))) delete all[key];
  storageSet(SEEN_KEY, JSON.stringify(all));
}

/**
 * "While you were away": when the server says this device's seat is back (a note newer than
 * what the page last showed, after a lost connection or a reload), a short summary of what
 * happened since the version it last saw.
 */
function showAway(prev, next) {
  if (!next.me || next.phase === "lobby") return;
  const seen = prev ? null : seenAll()[state.token];
  const since = prev ? state.seenBefore : seen?.v;
  if (since === undefined || since === null) return;
  const back = (next.notes || []).some((n) => n.kind === "back" && n.v > since && next.me.seats.includes(n.seat));
  if (!back) return;
  const last = prev?.log?.[prev.log.length - 1];
  const from = prev ? { v: prev.version, n: last ? last.n : 0, round: prev.match?.round ?? 0 } : seen;
  const lines = awaySummary(next, from);
  if (!lines) return;
  $("away-list").replaceChildren(
    ...lines.map((line) => Object.assign(document.createElement("li"), { textContent: line })),
  );
  $("away-summary").hidden = false;
  announce(sentences([t("kon.away_title"), ...lines]));
}

/** What changed besides moves: someone joined, the match started, my turn came, it ended. */
function changeText(prev, next, wasMyTurn) {
  const out = [];
  if (!prev) return out;
  if (prev.phase === "lobby") {
    next.seats.forEach((s, i) => {
      if (s.kind === "person" && prev.seats[i].kind === "open" && !mine(i)) out.push(t("kco.joined", { who: s.name }));
    });
    if (next.phase !== "lobby") out.push(t("kco.started"));
  }
  const over = next.phase === "round_over" || next.phase === "match_over";
  const wasOver = prev.phase === "round_over" || prev.phase === "match_over";
  if (over && !wasOver) out.push(summary(next));
  else if (!over && next.phase !== "lobby" && (myTurn() !== wasMyTurn || prev.phase !== next.phase)) {
    out.push(turnText(next));
  }
  return out;
}

/** Keyboard focus follows the game when it was nowhere useful (or on a vanished control). */
function focusAfterChange(prev, next, wasMyTurn) {
  const active = document.activeElement;
  const lost = !active || active === document.body || active.closest?.("[hidden]") || active.disabled;
  const onTable = active && table.contains(active);
  if (prev?.phase === "lobby" && next.phase !== "lobby") {
    if (myTurn()) focusHand(0);
    else $("table-title").setAttribute("tabindex", "-1");
    if (!myTurn()) $("table-title").focus();
    return;
  }
  const over = next.phase === "round_over" || next.phase === "match_over";
  if (over && (lost || onTable)) $("end-title")?.focus();
  else if (myTurn() && !wasMyTurn && (lost || onTable)) focusHand(0);
  else if (next.phase === "handoff" && mine(next.turn?.seat) && (lost || onTable)) $("reveal-btn").focus();
}

// --- errors ----------------------------------------------------------------------------------

async function refresh() {
  if (!state.token) return;
  try {
    adopt(await onlineApi.get(state.token), { own: true });
  } catch (err) {
    if (err.code === "not_found") gone();
  }
}

function refuse(code) {
  return () => {
    state.selection = null;
    showError(`kco.error.${code}`);
    refresh();
  };
}

const handleError = errorRouter({
  stale_version(err) {
    state.selection = null;
    if (err.current) adopt(err.current, { own: true });
    else refresh();
    showError("kco.error.stale_version");
  },
  illegal_move: refuse("illegal_move"),
  wrong_phase: refuse("wrong_phase"),
  not_your_turn: refuse("not_your_turn"),
  table_full: refuse("table_full"),
  seat_taken: refuse("seat_taken"),
  not_host: refuse("not_host"),
  invalid_name: () => showError("kco.error.invalid_name"),
  not_found: gone,
});

const run = serialRunner(state, (err) => handleError(err));

/** The table does not exist (or closed): say so and offer the code form. */
function gone() {
  if (live) live.stop();
  live = null;
  state.game = null;
  showError("kco.error.not_found");
  showScreen("code");
}

/** A POST whose answer is the table (with its events). */
function act(call, after = null) {
  run(async () => {
    const next = await call(state.game);
    showError(null);
    adopt(next, { own: true });
    if (after) after(next);
  });
}

// --- what this device does -------------------------------------------------------------------

function blocked() {
  if (myTurn()) return false;
  const g = state.game;
  const text = g?.turn && g.phase === "play" ? turnText(g) : "";
  say(text);
  if (text) announce(text);
  return true;
}

function play(move, keyboard) {
  const game = state.game;
  const start = moveStart(table, game, move);
  const seat = game.turn.seat;
  act(
    (g) => onlineApi.move(g, move),
    (next) => {
      state.selection = null;
      render();
      const over = next.phase === "round_over" || next.phase === "match_over";
      afterMove({ table, next, seat, move, start, over, keyboard, slideMs: slideMs() });
    },
  );
}

function endTurn() {
  if (blocked() || !mayEndTurn(state.game.view)) return;
  const seat = state.game.turn.seat;
  act(
    (g) => onlineApi.move(g, "end"),
    (next) => {
      state.selection = null;
      render();
      playSound("undo");
      const parts = endTurnParts(next, seat);
      parts.push(turnText(next));
      say(sentences(parts.slice(0, -1)));
      announce(sentences(parts));
      if (next.phase === "round_over" || next.phase === "match_over") $("end-title")?.focus();
      else if (next.phase === "handoff" && mine(next.turn?.seat)) $("reveal-btn").focus();
      else $("table-title").focus();
    },
  );
}

function undo() {
  const g = state.game;
  if (!g || !myTurn() || !g.view.can_undo) return;
  act(
    (t0) => onlineApi.undo(t0),
    () => undone(state, render),
  );
}

function reveal() {
  act(
    (g) => onlineApi.reveal(g),
    (next) => {
      announce(turnText(next));
      focusHand(0);
    },
  );
}

function nextRound() {
  act(
    (g) => onlineApi.nextRound(g),
    (next) => {
      announceRound(next, turnText(next));
      if (myTurn()) focusHand(0);
      else $("table-title").focus();
    },
  );
}

function rematchPress() {
  act(
    (g) => onlineApi.rematch(g),
    (next) => {
      if (next.phase === "match_over") {
        announce(t("kco.rematch_you_ready"));
        $("rematch-status")?.focus?.();
      } else {
        announce(sentences([t("kco.started"), turnText(next)]));
        if (myTurn()) focusHand(0);
        else $("table-title").focus();
      }
    },
  );
}

/** A message beside a name field (null clears it): the field is marked invalid and described. */
function fieldMessage(input, text) {
  const msg = $(`${input.id}-msg`);
  msg.textContent = text || "";
  msg.hidden = !text;
  if (text) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", msg.id);
  } else {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  }
}

function join(seat, field = "join-name") {
  const input = $(field);
  const name = input.value.trim();
  if (!name) {
    fieldMessage(input, t("kco.error.name_needed"));
    input.focus();
    return;
  }
  fieldMessage(input, null);
  storageSet(NAME_KEY, name);
  act(
    (g) => onlineApi.join(g, name, seat),
    (next) => (next.phase === "lobby" ? $("lobby-title") : $("table-title")).focus(),
  );
}

function makeComputer(seat, strength) {
  act((g) => onlineApi.seatComputer(g, seat, strength));
}

function removeSeat(seat) {
  act((g) => onlineApi.seatComputer(g, seat, state.game.settings.stand_in));
}

function start() {
  act(
    (g) => onlineApi.start(g),
    (next) => {
      announce(sentences([t("kco.started"), turnText(next)]));
      if (myTurn()) focusHand(0);
      else $("table-title").focus();
    },
  );
}

function leave() {
  act(
    (g) => onlineApi.leave(g),
    () => {
      if (live) live.stop();
      live = null;
      location.assign("kings-corner.html");
    },
  );
}

async function shareLink() {
  const g = state.game;
  if (!g?.code) return;
  try {
    await navigator.share({ text: t("kco.share_text", { code: g.code }), url: $("invite-link").value });
    announce(t("kco.shared"));
  } catch (err) {
    // Closing the sheet is no error; anything else falls back to copying.
    if (err?.name !== "AbortError") copyLink($("invite-link"));
  }
}

async function copyLink(input) {
  try {
    await navigator.clipboard.writeText(input.value);
    say(t("kco.copied"));
    announce(t("kco.copied"));
  } catch {
    input.select();
    announce(t("kco.copy_failed"));
  }
}

// --- the host's options on an absent seat ------------------------------------------------

/** True when the host may act on `seat`: a person, not here, gone from their device. */
function hasOptions(game, seat) {
  const s = game.seats[seat];
  const absent = s.kind === "person" && !s.local && s.connection !== "online" && !mine(seat);
  return Boolean(game.me?.host && absent && game.phase !== "match_over");
}

/** On the host's page an absent seat's state line opens its options (seat-options.js):
 * "Computer plays now" while reconnecting, "Invite someone new", and once away "Computer
 * for good" (a computer keeps the seat for the rest of the match, where the stand-in only
 * plays until they are back). */
function hostSeatTools(li, seat, game) {
  decorateSeat(li, seat, game);
  if (!hasOptions(game, seat)) return;
  const s = game.seats[seat];
  const who = seatName(game, seat);
  const tool = (id, key, run) => ({ id, text: t(`kon.${key}`), label: t(`kon.${key}_label`, { who }), run });
  const actions = [];
  if (s.connection === "reconnecting") actions.push(tool("hand-now", "hand_now", () => hostSeat(seat, "stand-in")));
  actions.push(tool("invite-new", "invite_new", () => hostSeat(seat, "invite")));
  if (s.connection === "away") {
    // Its name says how it differs from the stand-in already playing (for good, no way back).
    const label = t("kco.remove_seat_label", { who });
    actions.push({ id: "remove-seat", text: t("kco.remove_seat"), label, title: label, run: () => removeSeat(seat) });
  }
  const state = li.querySelector(".conn")?.textContent || "";
  addSeatOptions(li, seat, { who, state, actions });
}

/** The host's actions on an absent seat: `stand-in` (the computer plays now) or `invite`. */
function hostSeat(seat, action) {
  const post = (g) =>
    call("POST", `/api/kings-corner/online/${encodeURIComponent(g.token)}/seats/${seat}/${action}`, {
      version: g.version,
    });
  run(async () => {
    let next = null;
    for (let attempt = 0; next === null; attempt++) {
      try {
        next = await post(state.game);
      } catch (err) {
        // A computer's step came first: the host's choice still stands, made on the new table.
        if (err.code !== "stale_version" || !err.current || attempt >= 3) throw err;
        adopt(err.current, { own: true });
      }
    }
    showError(null);
    adopt(next, { own: true });
    // The link to send is beside the table (after the log on a phone): bring it into view.
    if (action === "invite") $("seat-invite-link").focus();
  });
}

// --- connection --------------------------------------------------------------------------

function connState(s) {
  const line = $("conn-line");
  if ((s === "lost" || s === "crowded") && state.seenBefore === null) state.seenBefore = state.game?.version ?? null;
  if (s === "open" && state.seenBefore !== null)
    setTimeout(() => {
      state.seenBefore = null;
    }, 5000);
  if (s === "lost") line.textContent = t("kco.live_lost");
  else if (s === "crowded") line.textContent = t("kco.crowded");
  // Signed out: not reconnecting, and the signed-out dialog says why.
  else if (s === "revoked") line.textContent = "";
  else if (s === "open") {
    line.textContent = t("kco.live_back");
    setTimeout(() => {
      if (line.textContent === t("kco.live_back")) line.textContent = "";
    }, 3000);
    refresh();
  } else if (s === "gone") gone();
  document.body.classList.toggle("offline", s === "lost" || s === "crowded");
}

function openTable(token) {
  state.token = token;
  state.game = null;
  state.lastLog = 0;
  $("qr").src = onlineApi.qrUrl(token);
  live = openLive(token, {
    onTable: (next) => adopt(next),
    onState: connState,
    version: () => state.game?.version ?? null,
  });
}

// --- wiring --------------------------------------------------------------------------------

function wire() {
  ({ table, chooser } = wireTable({ state, legal, blocked, render, play }, hostSeatTools));
  wireCodeForm($("code-form"), $("room-code"));
  $("copy-btn").addEventListener("click", () => copyLink($("invite-link")));
  // The phone's share sheet, where the browser has one (as the daily's share does).
  if (typeof navigator.share === "function") {
    $("share-btn").hidden = false;
    $("share-btn").addEventListener("click", shareLink);
  }
  $("seat-copy-btn").addEventListener("click", () => copyLink($("seat-invite-link")));
  $("away-ok").addEventListener("click", () => {
    $("away-summary").hidden = true;
    $("table-title").focus();
  });
  for (const id of ["join-name", "seat-join-name"]) {
    $(id).addEventListener("input", () => fieldMessage($(id), null));
  }
  // The absent seats' line and the open seat's invite head the side column (above the log):
  // in the status lines they would push the board down on a desktop.
  $("move-log").parentElement.prepend($("presence-line"), $("seat-open"));
  // Announcements go through #live; the line under the board is shown, not spoken twice.
  $("message").removeAttribute("aria-live");
  const drawNotify = notifyControl($("notify-btn"), $("notify-note"));
  $("start-match-btn").addEventListener("click", start);
  $("leave-btn").addEventListener("click", leave);
  $("table-leave-btn").addEventListener("click", leave);
  $("end-btn").addEventListener("click", endTurn);
  $("undo-btn").addEventListener("click", undo);
  $("reveal-btn").addEventListener("click", reveal);
  $("join-name").value = storageGet(NAME_KEY) || "";
  $("seat-join-name").value = storageGet(NAME_KEY) || "";
  onShortcuts(() => state.screen === "table", { escape: () => chooser.cancel(), z: undo });
  reducedMotion.addEventListener?.("change", () => state.game && render());
  onLanguageChange(() => {
    render();
    drawNotify();
    const g = state.game;
    if (g && g.phase !== "lobby") say(latestText(g, () => summary(g)));
    attend();
  });
  setInterval(() => tickCountdowns(serverNow), 500);
  window.addEventListener("hashchange", () => location.reload());
}

async function main() {
  await initPage();
  wire();
  const token = decodeURIComponent(location.hash.slice(1));
  if (/^[A-Za-z0-9_-]{16,64}$/.test(token)) {
    openTable(token);
  } else {
    showScreen("code");
  }
  document.body.dataset.ready = "kco";
}

main();
