/**
 * Telling a player that something waits for them while they may be looking elsewhere (an
 * online table's turn): the tab's title changes while it is their turn and goes back after;
 * the turn sound plays when "Sound effects" is on in the settings (core/sound.js); and a
 * system notification is shown when the player asked for one here and the browser allows it,
 * only while the tab is hidden (a visible page already says it). Nothing is asked of the
 * browser until the player presses the control `notifyControl` wires.
 */

import { addBundle, t } from "./i18n.js";
import {
  markPushTable,
  PUSH_CHANGED,
  permitted,
  pushAllWanted,
  pushSupported,
  pushTables,
  subscribePush,
  unsubscribePush,
} from "./push.js";
import { storageGet, storageSet } from "./settings.js";
import { playSound } from "./sound.js";

addBundle("online"); // the words (assets/i18n/online.<lang>.json)

const NOTIFY_KEY = "cardtable.turnNotify";
const TABLES_KEY = "cardtable.turnNotifyTables";
const TURN_SOUND = "hint";

let waiting = false;
let shown = null;
let tableOf = null; // the page's table token, a function (`notifyControl`)

function supported() {
  return typeof window.Notification === "function";
}

/** Whether a turn notification would be shown now (asked for here, allowed by the browser). */
export function notifyWanted() {
  return supported() && Notification.permission === "granted" && storageGet(NOTIFY_KEY) === "on";
}

function notify(title, body) {
  if (!wantedAt(tableOf?.()) || !document.hidden) return;
  try {
    shown = new Notification(title, { body, tag: "cardtable-turn" });
    shown.onclick = () => {
      window.focus();
      shown?.close();
    };
  } catch {
    shown = null; // some browsers allow notifications only from a service worker
  }
}

/**
 * The page's turn state, called after every change: `yours` (whether it is this device's turn
 * now), `title` (the page's own title), `body` (a line for the notification). The sound and
 * the notification come once, when the turn becomes this device's; the title follows the state.
 */
export function turnAttention(yours, { title, body = "" }) {
  document.title = yours ? t("kon.title_turn", { title }) : title;
  if (yours && !waiting) {
    playSound(TURN_SOUND);
    notify(t("kon.notify_title"), body);
  }
  if (!yours && shown) {
    shown.close();
    shown = null;
  }
  waiting = yours;
}

/** The tables (tokens, the last 20) this browser asked to be told of, one by one. */
function wantedTables() {
  return (storageGet(TABLES_KEY) || "").split(",").filter(Boolean);
}

function markWanted(token, on) {
  const kept = wantedTables().filter((x) => x !== token);
  if (on) kept.push(token);
  storageSet(TABLES_KEY, kept.slice(-20).join(",") || null);
}

/** Whether this browser is to be told of its turn at table `token` (none: a page of no table). */
function wantedAt(token) {
  if (!notifyWanted()) return false;
  return !token || pushAllWanted() || wantedTables().includes(token);
}

/**
 * Wires a toggle button that asks the browser for notifications and turns them on or off for
 * this table (`table`: a function giving the table's token; stored in this browser); `note`
 * says whether they are on or blocked. Hidden where the browser has no notifications. Turning
 * it on also subscribes this device to the table's push notifications (core/push.js), so it is
 * told of its turn with the page closed; where the browser has no push, or no service worker
 * is registered, the in-page notification alone stays. With "every table" on (the settings
 * dialog), the button shows on and says where to change it.
 */
export function notifyControl(button, note, { table = null } = {}) {
  if (!supported()) {
    button.hidden = true;
    note.hidden = true;
    return () => {};
  }
  tableOf = table;
  const draw = () => {
    const token = table?.();
    const blocked = Notification.permission === "denied";
    const on = wantedAt(token);
    const everywhere = on && Boolean(token) && pushAllWanted();
    button.hidden = false;
    button.textContent = t("kon.notify_btn");
    button.setAttribute("aria-pressed", String(on));
    button.disabled = blocked || everywhere;
    let text = "";
    if (blocked) text = t("kon.notify_blocked");
    else if (everywhere) text = t("kon.notify_push_all");
    else if (on) text = token && pushTables().includes(token) ? t("kon.notify_push_on") : t("kon.notify_on");
    note.textContent = text;
    note.hidden = !text;
  };
  button.addEventListener("click", async () => {
    const token = table?.();
    button.disabled = true;
    if (wantedAt(token)) {
      if (token) markWanted(token, false);
      else storageSet(NOTIFY_KEY, "off");
      if (token && pushTables().includes(token)) {
        markPushTable(token, false);
        await unsubscribePush({ table: token });
      }
    } else {
      const granted = await permitted();
      if (granted) storageSet(NOTIFY_KEY, "on");
      if (token && granted) {
        markWanted(token, true);
        if (pushSupported()) markPushTable(token, (await subscribePush({ table: token })) === "on");
      }
    }
    draw();
  });
  document.addEventListener(PUSH_CHANGED, draw);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && shown) {
      shown.close();
      shown = null;
    }
  });
  draw();
  return draw;
}
