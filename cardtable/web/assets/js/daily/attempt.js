/**
 * The counted daily attempt on the Poker Squares screen (docs/daily.md): a line above the
 * board says, from the first card, that this deal is the day's counted attempt, and Hint and
 * Undo (buttons and the H / Z keys) ask first in a dialog, since either makes the deal
 * practice. "Keep it counted" (or Esc) leaves the attempt as it was; the other button goes
 * on with the hint or undo. The daily page remembers which game is the attempt
 * (`DAILY_GAME_KEY`, written when "Play" deals it), and so does any page the server tells
 * (`rememberCounted`: "continue" names the counted attempt, on any device).
 *
 * A new deal would replace the attempt, and the server refuses it until asked again with
 * `replace_counted` (409 `replaces_counted`, docs/daily.md). `replacingAsked` sends a deal
 * that way: on that answer it asks, naming today's daily, and sends it again only on "yes";
 * "Keep today's daily" (or Esc) leaves the attempt counted.
 */

import { dialogButton, questionDialog, whenClosed } from "../core/dialog.js";
import { applyTranslations, currentLanguage, t } from "../core/i18n.js";
import { getSetting, setSetting, storageGet, storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY, localDay } from "./api.js";

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

/** Remembers what the server says counts (`counted`: "continue"'s `poker_squares_counted` or
 * a `replaces_counted` answer's `counted`), so this page marks the attempt and asks before a
 * hint or an undo even when another page or device dealt it. */
export function rememberCounted(counted) {
  if (!counted) return;
  const daily = remembered();
  if (daily?.id === counted.game_id && daily.counted !== false) return;
  storageSet(
    DAILY_GAME_KEY,
    JSON.stringify({
      id: counted.game_id,
      table: counted.table,
      day: counted.day,
      counted: true,
      eligible: counted.eligible,
    }),
  );
}

/** The remembered daily record when `game` is today's counted attempt, still unassisted and
 * not over; else null. */
export function countedAttempt(game) {
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
    // A phone shows the short form: the grid and its buttons stay on the first screen.
    const short = document.createElement("span");
    short.className = "daily-counted-short";
    short.setAttribute("aria-hidden", "true");
    line.append(badge, " ", text, short);
    const title = play.querySelector("h1");
    if (title) title.after(line);
    else play.prepend(line);
  }
  line.hidden = false;
  line.querySelector(".daily-counted-badge").textContent = t("daily.counted_badge");
  line.querySelector(".daily-counted-text").textContent = t(
    daily.eligible === false ? "daily.counted_line_new" : "daily.counted_line",
  );
  line.querySelector(".daily-counted-short").textContent = t("daily.counted_short");
}

let dialog = null;

function build() {
  const { dialog: d } = questionDialog("daily-ask");
  const keep = dialogButton("daily-ask-keep", "primary");
  const yes = dialogButton("daily-ask-yes");
  const actions = document.createElement("p");
  actions.className = "daily-ask-actions";
  actions.append(keep, yes);
  // "Don't ask again", shown for the questions that offer it.
  const quiet = document.createElement("p");
  quiet.className = "daily-ask-quiet";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = "daily-ask-quiet";
  const label = document.createElement("label");
  label.htmlFor = "daily-ask-quiet";
  quiet.append(box, " ", label);
  d.append(quiet, actions);
  keep.addEventListener("click", () => d.close("keep"));
  yes.addEventListener("click", () => d.close("yes"));
  document.body.append(d);
  return d;
}

/** The dialog with `words` (title, text, keep and yes: texts; `quiet`: the label of a "don't
 * ask again" box, whose ticking calls `onQuiet` when the dialog closes), answered true by
 * "yes" and false by "keep", Esc or a second question while it is open. Focus starts on
 * "keep" (the choice that changes nothing) and goes back where it was when it closes. */
function ask(words, onQuiet = null) {
  dialog ??= build();
  if (dialog.open) return Promise.resolve(false);
  const quiet = dialog.querySelector("#daily-ask-quiet");
  quiet.checked = false;
  quiet.parentElement.hidden = !words.quiet;
  dialog.querySelector("label[for=daily-ask-quiet]").textContent = words.quiet || "";
  dialog.querySelector("h2").textContent = words.title;
  dialog.querySelector("#daily-ask-text").textContent = words.text;
  dialog.querySelector("#daily-ask-keep").textContent = words.keep;
  dialog.querySelector("#daily-ask-yes").textContent = words.yes;
  applyTranslations(dialog);
  const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    whenClosed(dialog, () => {
      if (back?.isConnected) back.focus();
      if (words.quiet && quiet.checked && onQuiet) onQuiet();
      resolve(dialog.returnValue === "yes");
    });
    dialog.showModal();
    dialog.querySelector("#daily-ask-keep").focus();
  });
}

/**
 * Before a hint or an undo (`kind`: "hint" or "undo") on `game`: on the counted daily attempt,
 * the daily's question; on another deal still unassisted, when `byKey` (H or Z: one key press
 * that cannot be taken back), the first time in that deal, a lighter question with "Don't ask
 * again" (`settings.psAssistQuiet`); else true at once. True goes on with it.
 */
export function askBeforeAssist(game, kind, byKey = false) {
  if (countedAttempt(game)) {
    return ask({
      title: t(kind === "hint" ? "daily.ask_hint_title" : "daily.ask_undo_title"),
      text: t("daily.ask_text"),
      keep: t("daily.ask_keep"),
      yes: t(kind === "hint" ? "daily.ask_hint_yes" : "daily.ask_undo_yes"),
    });
  }
  const view = game?.view;
  if (!byKey || !view || view.practice || view.replay || view.is_over || getSetting("psAssistQuiet")) {
    return Promise.resolve(true);
  }
  return ask(
    {
      title: t(kind === "hint" ? "ps.ask_hint_title" : "ps.ask_undo_title"),
      text: t("ps.ask_text"),
      keep: t("ps.ask_keep"),
      yes: t(kind === "hint" ? "daily.ask_hint_yes" : "daily.ask_undo_yes"),
      quiet: t("ps.ask_quiet"),
    },
    () => setSetting("psAssistQuiet", true),
  );
}

/** "today's daily deal (American)", or the day's when the attempt is an earlier day's. */
export function dailyName(counted) {
  const table = t(`ps.table.${counted.table}`);
  const today = localDay(); // the player's own date (docs/daily.md, "Your own midnight")
  if (counted.day === today) return t("daily.name_today", { table });
  const day = new Date(`${counted.day}T00:00:00Z`).toLocaleDateString(currentLanguage(), {
    timeZone: "UTC",
    month: "long",
    day: "numeric",
  });
  return t("daily.name_day", { table, day });
}

/** Before a new deal replaces the counted attempt `counted` (a `replaces_counted` answer's). */
function askBeforeReplacing(counted) {
  const name = dailyName(counted);
  return ask({
    title: t("daily.ask_replace_title", { name }),
    text: t("daily.ask_replace_text", { name }),
    keep: t("daily.ask_replace_keep"),
    yes: t("daily.ask_replace_yes"),
  });
}

/**
 * Sends a new deal with `send(replaceCounted)`. When the server answers that it would
 * replace a counted attempt, asks first: "yes" sends it again with `replaceCounted` true;
 * keeping the attempt resolves null and nothing is sent. Any other error is thrown.
 */
export async function replacingAsked(send) {
  try {
    return await send(false);
  } catch (err) {
    if (err?.code !== "replaces_counted" || !err.body?.counted) throw err;
    rememberCounted(err.body.counted);
    if (!(await askBeforeReplacing(err.body.counted))) return null;
    return send(true);
  }
}
