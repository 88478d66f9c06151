/**
 * Turn-based tables (docs/online.md "Turn-based tables"): the line over the board that says
 * whose turn it is and until when, "Ana's turn · until Sat 14:05 (1 day 3 h left)" /
 * 「アナの番・土 14:05まで（残り1日3時間）」. The server sends the turn's deadline as epoch
 * seconds (UTC, `turn.deadline`); the day and time are the reader's own, in the page's
 * language (`Intl.DateTimeFormat`), and the time left counts from the server's clock.
 * Names are typed by people: the line only ever reaches the page as `textContent`.
 */

import { currentLanguage, t } from "../core/i18n.js";
import { isYou, seatName } from "../kings-corner/text.js";

const REFRESH_MS = 20_000;
let ticking = null;

/** Whether the table is turn-based (hours or days a turn). */
export function turnBased(game) {
  return game?.settings?.pace === "turn";
}

/** "1 day 3 h" / "1日3時間": the time left in its two largest units, counted in whole
 * minutes rounded up (a day just begun is "1 day", the last seconds "1 min"). */
export function leftText(seconds) {
  const all = Math.max(0, Math.ceil(seconds / 60));
  const days = Math.floor(all / 1440);
  const hours = Math.floor((all % 1440) / 60);
  const minutes = all % 60;
  const both = (a, b) => t("kct.left_join", { a, b });
  if (days) return hours ? both(t("kct.days", { n: days }), t("kct.hours", { n: hours })) : t("kct.days", { n: days });
  if (hours) {
    return minutes
      ? both(t("kct.hours", { n: hours }), t("kct.minutes", { n: minutes }))
      : t("kct.hours", { n: hours });
  }
  return t("kct.minutes", { n: minutes });
}

/** "Sat 14:05" / "土 14:05": when `deadline` (epoch seconds) falls, in the reader's time zone
 * (a turn is at most three days: the weekday is enough). */
export function untilText(deadline) {
  const at = new Date(deadline * 1000);
  const lang = currentLanguage();
  const weekday = new Intl.DateTimeFormat(lang, { weekday: "short" }).format(at);
  const time = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
  return `${weekday} ${time}`;
}

/** The turn line of a turn-based table, or "" when there is none (not a person's turn). */
export function turnLine(game, serverNow) {
  const deadline = game.turn?.deadline;
  if (!turnBased(game) || game.phase !== "play" || !deadline) return "";
  const seat = game.turn.seat;
  const params = { when: untilText(deadline), left: leftText(deadline - serverNow()) };
  if (isYou(game, seat)) return t("kct.turn_line_you", params);
  return t("kct.turn_line", { ...params, who: seatName(game, seat) });
}

/** Shows `game`'s turn line in `node` (hidden when there is none) and keeps its time left
 * current while the page stays open. */
export function showTurnLine(node, game, serverNow) {
  const text = turnLine(game, serverNow);
  node.hidden = !text;
  node.textContent = text;
  node.classList.toggle("turn-line", Boolean(text));
  clearInterval(ticking);
  ticking = null;
  if (text) {
    ticking = setInterval(() => {
      node.textContent = turnLine(game, serverNow);
    }, REFRESH_MS);
  }
}
