/**
 * Web Push from the page (docs/online.md, "Notifications"): a device asks the server to tell
 * it, even with the page closed, when it is its turn at one table or at every table it sits
 * at. The browser makes the subscription (`navigator.serviceWorker.ready`, then
 * `pushManager.subscribe` with the server's VAPID public key) and the server keeps it, one
 * per device; the service worker (`/sw.js`) shows what arrives. Where the browser has no
 * service worker or no Push API, or no service worker is registered, `pushSupported` says
 * so and the caller keeps its in-page notification.
 */

import { call, request } from "./api.js";
import { currentLanguage } from "./i18n.js";
import { storageGet, storageSet } from "./settings.js";

const ALL_KEY = "cardtable.pushAll";
const TABLES_KEY = "cardtable.pushTables";
const RESUBSCRIBE_EVENT = "cardtable:push-subscription-change"; // core/sw.js passes it on
/** Sent on `document` when "every table" is turned on or off (a table's button redraws). */
export const PUSH_CHANGED = "cardtable:push-changed";

/** The browser can receive push messages here (a service worker and the Push API). */
export function pushSupported() {
  return (
    "serviceWorker" in navigator &&
    typeof window.PushManager === "function" &&
    typeof window.Notification === "function"
  );
}

function keyBytes(text) {
  const b64 = (text + "=".repeat((4 - (text.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

async function registration() {
  // `ready` never settles when no service worker is registered: ask first.
  const found = await navigator.serviceWorker.getRegistration();
  if (!found) return null;
  return navigator.serviceWorker.ready;
}

/** Asks for notification permission when not asked yet; true when granted. */
export async function permitted() {
  let permission = Notification.permission;
  if (permission === "default") {
    try {
      permission = await Notification.requestPermission();
    } catch {
      permission = Notification.permission;
    }
  }
  return permission === "granted";
}

/**
 * Subscribe this device: `table` (a table's token) or `all` (every table), and send the
 * subscription to the server. Resolves to "on", "blocked" (notifications refused),
 * "unsupported" (no push here: use the in-page notification) or "failed".
 */
export async function subscribePush({ table = null, all = false } = {}) {
  if (!pushSupported()) return "unsupported";
  if (!(await permitted())) return "blocked";
  try {
    const reg = await registration();
    if (!reg) return "unsupported";
    let sub = await reg.pushManager.getSubscription();
    if (!sub) {
      const { key } = await request("GET", "/api/push/key");
      sub = await reg.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(key),
      });
    }
    const json = sub.toJSON();
    await call("POST", "/api/push/subscriptions", {
      endpoint: json.endpoint,
      keys: { p256dh: json.keys.p256dh, auth: json.keys.auth },
      lang: currentLanguage() === "ja" ? "ja" : "en",
      table,
      all_tables: all,
    });
    if (all) storageSet(ALL_KEY, "on");
    return "on";
  } catch {
    return "failed";
  }
}

/** Stop the notifications of one table (`table`), or of every table (`all`). */
export async function unsubscribePush({ table = null, all = false } = {}) {
  if (all) storageSet(ALL_KEY, "off");
  try {
    if (all) {
      await call("DELETE", "/api/push/subscriptions/current");
    } else if (table) {
      await call("DELETE", `/api/push/subscriptions/current?table=${encodeURIComponent(table)}`);
    }
  } catch {
    // Nothing kept for this device: nothing to stop.
  }
}

/** The tables this device asked for one by one (their tokens, the last 20, in this browser). */
export function pushTables() {
  return (storageGet(TABLES_KEY) || "").split(",").filter(Boolean);
}

/** Remember that this device asked (`on`) or stopped asking for table `token`. */
export function markPushTable(token, on) {
  const kept = pushTables().filter((x) => x !== token);
  if (on) kept.push(token);
  storageSet(TABLES_KEY, kept.slice(-20).join(",") || null);
}

// The push service replaced the subscription (the service worker says so): send the new one
// with every choice this browser remembers.
document.addEventListener(RESUBSCRIBE_EVENT, async () => {
  if (pushAllWanted()) await subscribePush({ all: true });
  for (const table of pushTables()) await subscribePush({ table });
});

/** Whether this device asked for every table (remembered in this browser). */
export function pushAllWanted() {
  return storageGet(ALL_KEY) === "on";
}

/**
 * The settings dialog's "notify me at all my tables" box (`#opt-push`, with `#opt-push-note`):
 * shown where the browser can receive push messages.
 */
export function wirePushSetting(dialog, t) {
  const box = dialog.querySelector("#opt-push");
  const row = dialog.querySelector("#opt-push-row");
  const note = dialog.querySelector("#opt-push-note");
  if (!box || !row || !note) return () => {};
  const draw = (outcome = null) => {
    row.hidden = !pushSupported();
    box.checked = pushAllWanted();
    const blocked = pushSupported() && Notification.permission === "denied";
    const text =
      blocked || outcome === "blocked"
        ? t("settings.push_blocked")
        : outcome === "failed" || outcome === "unsupported"
          ? t("settings.push_failed")
          : "";
    note.textContent = text;
    note.hidden = !text || row.hidden;
  };
  box.addEventListener("change", async () => {
    box.disabled = true;
    let outcome = null;
    if (box.checked) {
      outcome = await subscribePush({ all: true });
      if (outcome !== "on") storageSet(ALL_KEY, "off");
    } else {
      await unsubscribePush({ all: true });
    }
    box.disabled = false;
    draw(outcome);
    document.dispatchEvent(new Event(PUSH_CHANGED));
  });
  return draw;
}
