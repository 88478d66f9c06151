/**
 * What this device does at the online table (main.js): each action is one POST (online/api.js)
 * with the table's version, run one at a time; its answer, the table, is taken in (change.js)
 * and the words and the keyboard follow. Refusals are said and the table fetched again. The
 * host's options on an absent seat are here too.
 */

import { announce, errorRouter, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { serialRunner } from "../core/page.js";
import { storageSet } from "../core/settings.js";
import { playSound } from "../core/sound.js";
import {
  afterMove,
  announceRound,
  endTurnParts,
  focusHand,
  mayEndTurn,
  moveStart,
  say,
  undone,
} from "../kings-corner/play.js";
import { seatName, sentences } from "../kings-corner/text.js";
import { onlineApi } from "./api.js";
import { adopt, gone, refresh } from "./change.js";
import { decorateSeat, render, turnText } from "./draw.js";
import { copyLink as copyInvite } from "./lobby-parts.js";
import { addSeatOptions } from "./seat-options.js";
import { hasOptions, mine, myTurn, NAME_KEY, page, slideMs, state } from "./state.js";

const $ = (id) => document.getElementById(id);

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

/** A POST whose answer is the table (with its events). */
function act(call, after = null) {
  run(async () => {
    const next = await call(state.game);
    showError(null);
    adopt(next, { own: true });
    if (after) after(next);
  });
}

export function blocked() {
  if (myTurn()) return false;
  const g = state.game;
  const text = g?.turn && g.phase === "play" ? turnText(g) : "";
  say(text);
  if (text) announce(text);
  return true;
}

export function play(move, keyboard) {
  const game = state.game;
  const { table } = page;
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

export function endTurn() {
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

export function undo() {
  const g = state.game;
  if (!g || !myTurn() || !g.view.can_undo) return;
  act(
    (t0) => onlineApi.undo(t0),
    () => undone(state, render),
  );
}

export function reveal() {
  act(
    (g) => onlineApi.reveal(g),
    (next) => {
      announce(turnText(next));
      focusHand(0);
    },
  );
}

export function nextRound() {
  act(
    (g) => onlineApi.nextRound(g),
    (next) => {
      announceRound(next, turnText(next));
      if (myTurn()) focusHand(0);
      else $("table-title").focus();
    },
  );
}

export function rematchPress() {
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
export function fieldMessage(input, text) {
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

export function join(seat, field = "join-name") {
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

export function makeComputer(seat, strength) {
  act((g) => onlineApi.seatComputer(g, seat, strength));
}

function removeSeat(seat) {
  act((g) => onlineApi.seatComputer(g, seat, state.game.settings.stand_in));
}

export function start() {
  act(
    (g) => onlineApi.start(g),
    (next) => {
      announce(sentences([t("kco.started"), turnText(next)]));
      if (myTurn()) focusHand(0);
      else $("table-title").focus();
    },
  );
}

export function leave() {
  act(
    (g) => onlineApi.leave(g),
    () => {
      if (page.live) page.live.stop();
      page.live = null;
      location.assign("kings-corner.html");
    },
  );
}

export async function shareLink() {
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

export function copyLink(input) {
  return copyInvite(input, say);
}

// --- the host's options on an absent seat ------------------------------------------------

/** On the host's page an absent seat's state line opens its options (seat-options.js):
 * "Computer plays now" while reconnecting, "Invite someone new", and once away "Computer
 * for good" (a computer keeps the seat for the rest of the match, where the stand-in only
 * plays until they are back). */
export function hostSeatTools(li, seat, game) {
  decorateSeat(li, seat, game);
  if (!hasOptions(game, seat)) return;
  const s = game.seats[seat];
  const who = seatName(game, seat);
  const tool = (id, key, run) => ({ id, text: t(`kon.${key}`), label: t(`kon.${key}_label`, { who }), run });
  const actions = [];
  if (s.connection === "reconnecting") actions.push(tool("hand-now", "hand_now", () => hostSeat(seat, "standIn")));
  actions.push(tool("invite-new", "invite_new", () => hostSeat(seat, "invite")));
  if (s.connection === "away" || game.settings?.pace === "turn") {
    // Its name says how it differs from the stand-in already playing (for good, no way back).
    const label = t("kco.remove_seat_label", { who });
    actions.push({ id: "remove-seat", text: t("kco.remove_seat"), label, title: label, run: () => removeSeat(seat) });
  }
  addSeatOptions(li, seat, { who, actions });
}

/** The host's actions on an absent seat (online/api.js): `standIn` (the computer plays now)
 * or `invite`. */
function hostSeat(seat, action) {
  run(async () => {
    let next = null;
    for (let attempt = 0; next === null; attempt++) {
      try {
        next = await onlineApi[action](state.game, seat);
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
