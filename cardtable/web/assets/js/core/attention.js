/**
 * Telling a player that something waits for them while they may be looking elsewhere (an
 * online table's turn): the tab's title changes while it is their turn and goes back after;
 * the turn sound plays when "Sound effects" is on in the settings (core/sound.js); and a
 * system notification is shown when the player asked for one here and the browser allows it,
 * only while the tab is hidden (a visible page already says it). Nothing is asked of the
 * browser until the player presses the control `notifyControl` wires.
 */

import { addBundle, t } from "./i18n.js";
import { storageGet, storageSet } from "./settings.js";
import { playSound } from "./sound.js";

addBundle("online"); // the words (assets/i18n/online.<lang>.json)

const NOTIFY_KEY = "cardtable.turnNotify";
const TURN_SOUND = "hint";

let waiting = false;
let shown = null;

function supported() {
  return typeof window.Notification === "function";
}

/** Whether a turn notification would be shown now (asked for here, allowed by the browser). */
export function notifyWanted() {
  return supported() && Notification.permission === "granted" && storageGet(NOTIFY_KEY) === "on";
}

function notify(title, body) {
  if (!notifyWanted() || !document.hidden) return;
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

/**
 * Wires a toggle button that asks the browser for notifications and turns them on or off for
 * this site (stored in this browser); `note` says whether they are on or blocked. Hidden where
 * the browser has no notifications.
 */
export function notifyControl(button, note) {
  if (!supported()) {
    button.hidden = true;
    note.hidden = true;
    return () => {};
  }
  const draw = () => {
    const blocked = Notification.permission === "denied";
    const on = notifyWanted();
    button.hidden = false;
    button.textContent = t("kon.notify_btn");
    button.setAttribute("aria-pressed", String(on));
    button.disabled = blocked;
    note.textContent = blocked ? t("kon.notify_blocked") : on ? t("kon.notify_on") : "";
    note.hidden = !note.textContent;
  };
  button.addEventListener("click", async () => {
    if (notifyWanted()) {
      storageSet(NOTIFY_KEY, "off");
    } else {
      let permission = Notification.permission;
      if (permission === "default") {
        try {
          permission = await Notification.requestPermission();
        } catch {
          permission = Notification.permission;
        }
      }
      storageSet(NOTIFY_KEY, permission === "granted" ? "on" : "off");
    }
    draw();
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && shown) {
      shown.close();
      shown = null;
    }
  });
  draw();
  return draw;
}
