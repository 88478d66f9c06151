/**
 * The counted daily attempt on the Poker Squares screen (docs/daily.md): a line above the
 * board says, from the first card, that this deal is the day's counted attempt, and Hint and
 * Undo (buttons and the H / Z keys) ask first in a dialog, since either makes the deal
 * practice. "Keep it counted" (or Esc) leaves the attempt as it was; the other button goes
 * on with the hint or undo. The daily page remembers which game is the attempt
 * (`DAILY_GAME_KEY`, written when "Play" deals it).
 */

import { applyTranslations, t } from "../core/i18n.js";
import { storageGet } from "../core/settings.js";
import { DAILY_GAME_KEY } from "./api.js";

// The line's and the dialog's styles live in daily.css, loaded here (before the screen
// draws anything) on a page that has not loaded it.
if (!document.querySelector("link[href*='daily.css']")) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = import.meta.resolve("../../css/daily.css");
  document.head.append(link);
}

function remembered() {
  try {
    return JSON.parse(storageGet(DAILY_GAME_KEY) || "null");
  } catch {
    return null;
  }
}

/** The remembered daily record when `game` is today's counted attempt, still unassisted and
 * not over; else null. */
function countedAttempt(game) {
  const daily = remembered();
  const view = game?.view;
  if (!daily || !view || daily.id !== game.id || daily.counted === false) return null;
  return view.practice || view.replay || view.is_over ? null : daily;
}

/** Shows (or hides) the counted-attempt line at the top of the play screen `play`. */
export function renderCountedLine(play, game) {
  const daily = countedAttempt(game);
  let line = document.getElementById("daily-counted");
  if (!daily) {
    if (line) line.hidden = true;
    return;
  }
  if (!line) {
    line = document.createElement("p");
    line.id = "daily-counted";
    line.className = "daily-counted";
    const badge = document.createElement("strong");
    badge.className = "daily-counted-badge";
    const text = document.createElement("span");
    text.className = "daily-counted-text";
    line.append(badge, " ", text);
    const title = play.querySelector("h1");
    if (title) title.after(line);
    else play.prepend(line);
  }
  line.hidden = false;
  line.querySelector(".daily-counted-badge").textContent = t("daily.counted_badge");
  line.querySelector(".daily-counted-text").textContent = t(
    daily.eligible === false ? "daily.counted_line_new" : "daily.counted_line",
  );
}

let dialog = null;

function build() {
  const d = document.createElement("dialog");
  d.id = "daily-ask";
  d.className = "daily-ask";
  d.setAttribute("aria-labelledby", "daily-ask-title");
  d.setAttribute("aria-describedby", "daily-ask-text");
  const title = document.createElement("h2");
  title.id = "daily-ask-title";
  const text = document.createElement("p");
  text.id = "daily-ask-text";
  text.dataset.i18n = "daily.ask_text";
  const keep = document.createElement("button");
  keep.type = "button";
  keep.id = "daily-ask-keep";
  keep.className = "primary";
  keep.dataset.i18n = "daily.ask_keep";
  const yes = document.createElement("button");
  yes.type = "button";
  yes.id = "daily-ask-yes";
  const actions = document.createElement("p");
  actions.className = "daily-ask-actions";
  actions.append(keep, yes);
  d.append(title, text, actions);
  keep.addEventListener("click", () => d.close("keep"));
  yes.addEventListener("click", () => d.close("yes"));
  document.body.append(d);
  return d;
}

/**
 * Before a hint or an undo (`kind`: "hint" or "undo") on `game`: true at once unless it is the
 * counted attempt; then the question, answered true by its "yes" button and false by "Keep
 * it counted", Esc or a second press while it is open. Focus starts on "Keep it counted" (the
 * choice that changes nothing) and goes back where it was when the dialog closes.
 */
export function askBeforeAssist(game, kind) {
  if (!countedAttempt(game)) return Promise.resolve(true);
  dialog ??= build();
  if (dialog.open) return Promise.resolve(false);
  dialog.querySelector("h2").textContent = t(kind === "hint" ? "daily.ask_hint_title" : "daily.ask_undo_title");
  dialog.querySelector("#daily-ask-yes").textContent = t(kind === "hint" ? "daily.ask_hint_yes" : "daily.ask_undo_yes");
  applyTranslations(dialog);
  const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        if (back?.isConnected) back.focus();
        resolve(dialog.returnValue === "yes");
      },
      { once: true },
    );
    dialog.showModal();
    dialog.querySelector("#daily-ask-keep").focus();
  });
}
