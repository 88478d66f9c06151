/**
 * Playing at a Kings Corner table, the part shared by the local screen (main.js) and
 * the online one (online/main.js): the table and the chooser wired to the page's elements, drawing
 * the board and its lines, the hand-off curtain, the card sliding in, keyboard focus on the
 * hand, and the words after a move, an end of turn or an undo. Each page keeps what differs:
 * whose turn it is, how a move reaches the server, and its own controls.
 */

import { cardName } from "../core/cards.js";
import { announce } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { playSound } from "../core/sound.js";
import { createChooser, kingsFirst } from "./choose.js";
import { endSummary } from "./end.js";
import { createTable } from "./table.js";
import { capitalise, eventText, parseMove, rulesLine, seatName, sentences, singlePerson, stepText } from "./text.js";

const $ = (id) => document.getElementById(id);

/** The line under the table. It is not a live region: what it shows is also said with
 * `announce` (in the words a listener needs), never twice. */
export function say(text) {
  $("message").textContent = text ? capitalise(text) : "";
}

/**
 * The table (table.js) and the chooser (choose.js) on the page's elements; a click on an
 * empty area of the table cancels a selection (SPEC KC-25). `hooks` are the chooser's
 * (`state`, `legal`, `blocked`, `render`, `play`); `decorateSeat` is table.js's.
 */
export function wireTable(hooks, decorateSeat = null) {
  let chooser = null;
  const table = createTable(
    { cross: $("cross"), seats: $("seats"), hand: $("hand"), handTitle: $("hand-title"), moveLog: $("move-log") },
    {
      onPile: (pile, ev) => chooser.choosePile(pile, ev),
      onCard: (code, ev) => chooser.chooseCard(code, ev),
      decorateSeat,
    },
  );
  chooser = createChooser({ ...hooks, focusPile: (name) => table.pile(name).focus(), say });
  $("table").addEventListener("click", (ev) => {
    if (hooks.state.selection && !ev.target.closest("button, select, a, input, label, dialog")) chooser.cancel();
  });
  return { table, chooser };
}

/** The piles the last move of this round landed on (outlined on the table). */
export function lastPiles(game) {
  const last = game.log[game.log.length - 1];
  const out = new Set();
  if (!last || last.round !== game.match.round) return out;
  const m = parseMove(last.move);
  if (m.kind === "play" || m.kind === "draw-king") out.add(m.pile);
  if (m.kind === "shift") out.add(m.to);
  return out;
}

/** The pile a move lands on (null for "end"). */
export function landing(move) {
  const m = parseMove(move);
  return m.kind === "shift" ? m.to : m.kind === "play" ? m.pile : null;
}

/** "Your turn" (or "X's turn" when several people share the device), the card just drawn, and
 * Kings first when it holds the player back. */
export function ownTurnText(game, who) {
  const v = game.view;
  const parts = [singlePerson(game) ? t("kc.turn_yours") : t("kc.turn_of", { who })];
  if (v.last_draw) parts.push(t("kc.you_drew", { card: cardName(v.last_draw) }));
  if (kingsFirst(v)) parts.push(t("kc.kings_first_now"));
  return sentences(parts);
}

/**
 * Draws the board (the cross, the seats, the hand, the log) and the round, rules and turn
 * lines; returns the chooser's analysis of the legal moves.
 */
export function renderBoard({ table, chooser, state, myTurn, turnLine }) {
  const game = state.game;
  const v = game.view;
  const a = chooser.analyse();
  const tableEl = $("table");
  tableEl.dataset.toPlay = String(v.to_play);
  tableEl.dataset.viewer = game.viewer === null ? "" : String(game.viewer);
  table.render(game, {
    selection: state.selection,
    targets: a.targets,
    movable: a.movable,
    playable: a.playable,
    lastPiles: lastPiles(game),
    myTurn,
  });
  $("cross").classList.toggle("selecting", Boolean(state.selection));
  $("round-line").textContent = t("kc.round_line", { round: game.match.round, rounds: game.match.rounds });
  $("rules-line").textContent = rulesLine(v);
  $("turn-line").textContent = capitalise(turnLine);
  return a;
}

/** The hand-off curtain: shown (naming the seat to play) or hidden. */
export function renderHandoff(game, seat, shown) {
  $("handoff").hidden = !shown;
  if (!shown) return;
  const who = seatName(game, seat);
  $("handoff-title").textContent = t("kc.handoff_title", { who });
  $("handoff-text").textContent = t("kc.handoff_text", { who });
  $("reveal-btn").textContent = t("kc.reveal", { who });
}

/** Slides the pile's top card in from `fromRect` (a hand card, a seat, another pile). */
export function slideFrom(table, fromRect, pile, ms) {
  if (!fromRect || !ms) return;
  const target = table.tail(pile);
  if (target.hidden) return;
  const to = target.getBoundingClientRect();
  if (!to.width) return;
  const dx = fromRect.left + fromRect.width / 2 - (to.left + to.width / 2);
  const dy = fromRect.top + fromRect.height / 2 - (to.top + to.height / 2);
  target.animate(
    [
      { transform: `translate(${dx}px, ${dy}px)`, zIndex: 5 },
      { transform: "none", zIndex: 5 },
    ],
    { duration: ms, easing: "ease-out" },
  );
}

/** The keyboard on the hand's card at `index` (the nearest one), or on End turn. */
export function focusHand(index) {
  const cards = $("hand").querySelectorAll(".hand-card");
  if (cards.length) cards[Math.max(0, Math.min(index, cards.length - 1))].focus();
  else if (!$("end-btn").hidden) $("end-btn").focus();
}

/** Where this device's move starts, measured before the board changes. */
export function moveStart(table, game, move) {
  const m = parseMove(move);
  const node = m.kind === "play" ? table.card(m.card) : table.pile(m.from);
  return {
    fromRect: node ? node.getBoundingClientRect() : null,
    pile: m.kind === "play" ? m.pile : m.to,
    handIndex: m.kind === "play" ? game.view.hand.indexOf(m.card) : -1,
  };
}

/** After this device's move: the card slides in, the step is said, the keyboard follows. */
export function afterMove({ table, next, seat, move, start, over, keyboard, slideMs }) {
  slideFrom(table, start.fromRect, start.pile, slideMs);
  const parts = [stepText(next, seat, move), ...(over ? [endSummary(next)] : [])];
  playSound(over ? "end" : "place");
  say(parts[0]);
  announce(sentences(parts));
  if (over) $("end-title")?.focus?.();
  else if (keyboard) focusHand(start.handIndex >= 0 ? start.handIndex : 0);
}

/** The sentences for a turn `seat` just ended: the end, the card drawn, a King drawn. */
export function endTurnParts(next, seat) {
  const parts = [t("kc.did.end", { who: seatName(next, seat) })];
  if (next.view.rules.draw === "last" && next.viewer === seat && next.view.last_draw) {
    parts.push(t("kc.you_drew", { card: cardName(next.view.last_draw) }));
  }
  for (const e of next.events || []) if (e.seat === seat) parts.push(eventText(next, e));
  return parts;
}

/** End turn pressed: says why not when it may not end yet; true when it may. */
export function mayEndTurn(view) {
  if (view.legal_moves.includes("end")) return true;
  if (kingsFirst(view)) {
    say(t("kc.kings_first_now"));
    announce(t("kc.kings_first_now"));
  }
  return false;
}

/** The round line and whose turn it is, announced when a round is dealt. */
export function announceRound(next, turnLine) {
  const round = t("kc.round_line", { round: next.match.round, rounds: next.match.rounds });
  announce(sentences([round + t("kc.full_stop"), turnLine]));
}

/** An undo came back: the selection goes, the board is redrawn, and it is said. */
export function undone(state, render) {
  state.selection = null;
  render();
  playSound("undo");
  say(t("kc.undone"));
  announce(t("kc.undone"));
}
