/**
 * Preset reactions at an online table (docs/online.md "Reactions"). A seated person's React
 * button (under the board) opens the five reactions; the one pressed goes to the server
 * (reactions.py), which passes it to every other device at the table over the live channel
 * (live.js raises `REACTION_EVENT`). Each shows for `SHOW_MS` beside its seat
 * (`decorateReaction`, which draw.js calls for every seat it draws, so a redraw keeps it) and
 * is said politely to screen readers. "Mute reactions" (the table's side tools and the
 * settings dialog: one setting kept in this browser) hides and silences other people's.
 * Past the rate the server answers 429 and the note under the menu says to wait.
 */

import { call } from "../core/api.js";
import { addBundle, t } from "../core/i18n.js";
import { getSetting, onSettingChange, setSetting } from "../core/settings.js";
import { seatName } from "../kings-corner/text.js";
import { REACTION_EVENT } from "./live.js";
import { state } from "./state.js";

addBundle("react");

const KEYS = ["good_luck", "well_played", "thanks", "oops", "your_turn"];
const EMOJI = { good_luck: "🍀", well_played: "👏", thanks: "🙏", oops: "😅", your_turn: "⏰" };
/** How long a reaction stays beside its seat. */
const SHOW_MS = 4000;
/** The setting (core/settings.js) that mutes other people's reactions on this browser. */
const MUTE = "reactionsMuted";
const shown = new Map(); // seat -> { key, timer }
const $ = (id) => document.getElementById(id);

function muted() {
  return Boolean(getSetting(MUTE));
}

/** Wires the React button and its menu, the mute controls and the live channel's reactions. */
export function wireReactions() {
  const menu = $("react-menu");
  $("react-btn").addEventListener("click", () => openMenu(menu.hidden));
  menu.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape") return;
    ev.stopPropagation();
    openMenu(false, true);
  });
  for (const b of menu.querySelectorAll("button[data-key]")) {
    b.addEventListener("click", () => send(b.dataset.key));
  }
  $("react-mute-btn").addEventListener("click", () => setSetting(MUTE, !muted()));
  const option = $("opt-mute-reactions");
  option?.addEventListener("change", () => setSetting(MUTE, option.checked));
  onSettingChange((name) => name === MUTE && drawMute());
  document.addEventListener(REACTION_EVENT, (ev) => {
    if (!muted()) show(ev.detail, true);
  });
  drawMute();
}

/** The React button for a seated person only (draw.js, with every table drawn). */
export function drawReactions(game) {
  const seated = Boolean(game.me);
  $("react-btn").hidden = !seated;
  if (!seated && !$("react-menu").hidden) openMenu(false);
}

/** Adds the reaction shown at `seat` now, if any, to its drawn seat `li`. */
export function decorateReaction(li, seat) {
  li.querySelector(".reaction")?.remove();
  const now = shown.get(seat);
  if (!now) return;
  const bubble = document.createElement("span");
  bubble.className = "reaction";
  bubble.dataset.key = now.key;
  const emoji = Object.assign(document.createElement("span"), { textContent: EMOJI[now.key] });
  emoji.setAttribute("aria-hidden", "true");
  bubble.append(emoji, ` ${t(`react.${now.key}`)}`);
  li.append(bubble);
}

function openMenu(open, focusBack = false) {
  const menu = $("react-menu");
  menu.hidden = !open;
  $("react-btn").setAttribute("aria-expanded", String(open));
  if (open) {
    $("react-note").textContent = "";
    menu.querySelector("button")?.focus();
  } else if (focusBack) {
    $("react-btn").focus();
  }
}

async function send(key) {
  openMenu(false, true);
  const note = $("react-note");
  note.textContent = "";
  try {
    const path = `/api/kings-corner/online/${encodeURIComponent(state.token)}/reactions`;
    show(await call("POST", path, { key }), false);
  } catch (err) {
    const why = { rate_limited: "react.too_fast", not_seated: "react.not_seated" }[err.code];
    note.textContent = t(why || "react.failed", { n: err.retryAfter || 4 });
    $("react-live").textContent = note.textContent; // the note is not a live region: said here
  }
}

/** Shows `reaction` beside its seat for `SHOW_MS`; said to screen readers when `announce`. */
function show({ seat, key }, announce) {
  const game = state.game;
  if (!game?.seats?.[seat] || !KEYS.includes(key)) return;
  clearTimeout(shown.get(seat)?.timer);
  const timer = setTimeout(() => {
    shown.delete(seat);
    place(seat);
  }, SHOW_MS);
  shown.set(seat, { key, timer });
  place(seat);
  if (announce) $("react-live").textContent = t("react.said", { who: seatName(game, seat), what: t(`react.${key}`) });
}

function place(seat) {
  const li = document.querySelector(`#seats li[data-seat="${seat}"]`);
  if (li) decorateReaction(li, seat);
}

function drawMute() {
  const on = muted();
  $("react-mute-btn").setAttribute("aria-pressed", String(on));
  const option = $("opt-mute-reactions");
  if (option) option.checked = on;
  if (!on) return;
  $("react-live").textContent = "";
  for (const [seat, { timer }] of [...shown]) {
    clearTimeout(timer);
    shown.delete(seat);
    place(seat);
  }
}
