/**
 * "Your devices" (section.js) on this record: the transfer code that adds a device, with its
 * countdown, QR code and link, and the list of the devices using the record, which follows
 * the code's use while it is shown; renaming this device; signing another one out after a
 * question naming it. `state` is the section's, shared with section.js.
 * Device names are typed by people: they only ever reach the page as `textContent`.
 */

import { call } from "../core/api.js";
import { whenClosed } from "../core/dialog.js";
import { currentLanguage, t } from "../core/i18n.js";
import { el, refusalText } from "./claim.js";

const $ = (id) => document.getElementById(id);
const D = "/api/devices";

export const state = { code: null, deadline: 0, devices: [], listing: null, timer: 0, ticks: 0, pending: null };

export function say(id, text) {
  $(id).textContent = text;
}

// --- the transfer code -------------------------------------------------------------------

/** "9:42" */
function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function linkOf(code) {
  return `${location.origin}/link.html#${code}`;
}

/** The code shown was used (another device is in): the list has it, the code is gone. */
function codeUsed() {
  state.code = null;
  clearInterval(state.timer);
  state.timer = 0;
  showCode();
  say("dv-share-status", t("devices.code_used"));
}

const POLL_EVERY = 5; // seconds: while a code is shown, the list follows its use

function tick() {
  if (!state.code) return;
  state.ticks = (state.ticks + 1) % POLL_EVERY;
  if (state.ticks === 0) loadDevices();
  const left = state.deadline - Date.now();
  const expired = left <= 0;
  $("dv-share-box").classList.toggle("expired", expired);
  $("dv-share-expiry").textContent = expired ? "" : t("devices.expires_in", { time: clock(left) });
  if (expired) {
    clearInterval(state.timer);
    state.timer = 0;
    for (const id of ["dv-share-qr", "dv-share-copy"]) $(id).hidden = true;
    $("dv-share-link").closest("p").hidden = true;
    say("dv-share-status", t("devices.expired"));
  }
}

export function showCode() {
  const { code } = state;
  $("dv-share-box").hidden = !code;
  $("dv-share-btn").closest("p").hidden = Boolean(code);
  if (!code) return;
  const node = $("dv-share-code");
  node.textContent = code;
  node.setAttribute("aria-label", t("devices.code_spoken", { letters: code.replace("-", "").split("").join(" ") }));
  $("dv-share-link").value = linkOf(code);
  $("dv-share-link").closest("p").hidden = false;
  $("dv-share-copy").hidden = false;
  $("dv-share-qr").alt = t("devices.qr_alt");
  clearInterval(state.timer);
  state.timer = setInterval(tick, 1000);
  tick();
}

async function loadQr(code) {
  const img = $("dv-share-qr");
  img.hidden = true;
  try {
    const svg = await call("POST", `${D}/transfer-qr`, { code, origin: location.origin }, { text: true });
    if (state.code !== code) return;
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    img.hidden = state.deadline <= Date.now();
  } catch {
    /* the code and the link still work without the picture */
  }
}

export async function newCode() {
  const first = !state.code;
  say("dv-share-status", "");
  try {
    const answer = await call("POST", `${D}/transfer`);
    state.code = answer.code;
    state.deadline = Date.now() + answer.expires_in * 1000;
    showCode();
    say("dv-share-status", t("devices.code_made"));
    if (first) $("dv-share-new").focus(); // the button that was pressed is gone
    loadQr(answer.code);
  } catch (err) {
    say("dv-share-status", err?.code === "rate_limited" ? refusalText(err) : t("devices.failed"));
  }
}

export async function copyLink() {
  const input = $("dv-share-link");
  say("dv-share-status", ""); // emptied first, so a second copy is read out again
  try {
    await navigator.clipboard.writeText(input.value);
    say("dv-share-status", t("devices.copied"));
  } catch {
    input.select();
    say("dv-share-status", t("devices.copy_failed"));
  }
}

// --- the devices ---------------------------------------------------------------------------

function toMs(stamp) {
  if (typeof stamp === "number") return stamp < 1e12 ? stamp * 1000 : stamp;
  return Date.parse(stamp);
}

/** "5 minutes ago" / "5 分前", in the page's language. */
function ago(stamp) {
  const seconds = (toMs(stamp) - Date.now()) / 1000;
  if (!Number.isFinite(seconds) || seconds > -60) return null;
  const rtf = new Intl.RelativeTimeFormat(currentLanguage(), { numeric: "auto" });
  const units = [
    ["minute", 60],
    ["hour", 3600],
    ["day", 86400],
    ["month", 2592000],
    ["year", 31536000],
  ];
  let [unit, size] = units[0];
  for (const [u, s] of units) if (-seconds >= s) [unit, size] = [u, s];
  return rtf.format(Math.round(seconds / size), unit);
}

function deviceName(d) {
  return d.kind === "recovery" ? t("devices.recovery_entry") : d.name;
}

/** "Mar 1, 2030, 12:00 PM" / "2030/03/01 12:00": when a device was added, in full, so two
 * browsers of one kind added minutes apart read differently. */
function dateTime(stamp) {
  const ms = toMs(stamp);
  if (!Number.isFinite(ms)) return "";
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "short" }).format(ms);
}

/** "Last used 3 hours ago" (or "Active now"). */
function usedText(d) {
  const when = ago(d.last_used_at);
  return when ? t("devices.last_used", { when }) : t("devices.used_now");
}

/** "Added Mar 1, 2030, 12:00 PM" ("Made ..." for a recovery file). */
function addedText(d) {
  return t(d.kind === "recovery" ? "devices.made" : "devices.added", { when: dateTime(d.created_at) });
}

export function renderDevices() {
  const items = state.devices.map((d) => {
    const li = el("li", `device${d.current ? " current" : ""}`);
    li.dataset.device = d.device;
    const who = el("span", "device-who");
    const name = el("strong", "device-name");
    name.textContent = deviceName(d);
    who.append(name);
    if (d.current) {
      const tag = el("span", "device-tag");
      tag.textContent = t("devices.this_device");
      who.append(" ", tag);
    }
    const used = el("span", "device-used");
    used.textContent = usedText(d);
    const added = el("span", "device-added");
    added.textContent = addedText(d);
    const b = el("button", "device-button");
    b.type = "button";
    if (d.current) {
      b.id = "dv-rename-btn";
      b.textContent = t("devices.rename");
      b.addEventListener("click", openRename);
    } else {
      b.classList.add("sign-out");
      b.textContent = t("devices.sign_out");
      b.setAttribute("aria-label", t("devices.sign_out_label", { name: deviceName(d) }));
      b.addEventListener("click", () => signOut(d, b));
    }
    li.append(who, used, added, b);
    return li;
  });
  $("dv-device-list").replaceChildren(...items);
  $("dv-sign-out-others").hidden = state.devices.filter((d) => !d.current).length === 0;
}

/** Loads the device list; `state.listing` is the latest load, for whoever needs it finished. */
export function loadDevices() {
  state.listing = fetchDevices();
  return state.listing;
}

async function fetchDevices() {
  const asked = state.code; // a code made while the list was on its way is not in it
  try {
    const answer = await call("GET", D);
    // This device first, then the most recently used.
    state.devices = [...answer.devices].sort(
      (x, y) => Number(y.current) - Number(x.current) || toMs(y.last_used_at) - toMs(x.last_used_at),
    );
    renderDevices();
    if (state.code && state.code === asked && state.deadline > Date.now() && !answer.transfer) codeUsed();
  } catch (err) {
    if (err?.code !== "revoked") say("dv-list-status", t("devices.failed"));
  }
}

function openRename() {
  const me = state.devices.find((d) => d.current);
  $("dv-rename-box").hidden = false;
  $("dv-rename-input").value = me?.name || "";
  $("dv-rename-input").focus();
  $("dv-rename-input").select();
}

export function closeRename() {
  $("dv-rename-box").hidden = true;
  $("dv-rename-btn")?.focus();
}

export async function saveRename() {
  const name = $("dv-rename-input").value.trim();
  if (!name) return;
  try {
    await call("PATCH", `${D}/current`, { name });
    say("dv-list-status", t("devices.renamed"));
    await loadDevices();
    closeRename();
  } catch {
    say("dv-list-status", t("devices.failed"));
  }
}

// --- the question before signing one device out ----------------------------------------------

let askDialog = null;

function buildAsk() {
  const d = el("dialog", "devices-dialog");
  d.id = "dv-sign-out-dialog";
  d.setAttribute("aria-labelledby", "dv-sign-out-dialog-title");
  d.setAttribute("aria-describedby", "dv-sign-out-dialog-device dv-sign-out-dialog-text");
  const title = el("h2");
  title.id = "dv-sign-out-dialog-title";
  const facts = el("p", "device-facts");
  facts.id = "dv-sign-out-dialog-device";
  const text = el("p");
  text.id = "dv-sign-out-dialog-text";
  const keep = el("button");
  keep.type = "button";
  keep.id = "dv-sign-out-dialog-keep";
  const yes = el("button", "danger");
  yes.type = "button";
  yes.id = "dv-sign-out-dialog-yes";
  const actions = el("p", "devices-dialog-actions");
  actions.append(keep, yes);
  d.append(title, facts, text, actions);
  keep.addEventListener("click", () => d.close("keep"));
  yes.addEventListener("click", () => d.close("yes"));
  document.body.append(d); // shown over the settings dialog, which stays open behind it
  return d;
}

/**
 * Asks before signing the device `d` out, naming it (its name, when it was added and last
 * used): true for "Sign out"; false for "Cancel" or Esc. Focus starts on "Cancel", the choice
 * that changes nothing, and comes back to `back` when the answer is no.
 */
function askSignOut(d, back) {
  askDialog ??= buildAsk();
  const dialog = askDialog;
  if (dialog.open) return Promise.resolve(false);
  dialog.querySelector("h2").textContent = t("devices.sign_out_title", { name: deviceName(d) });
  // The dot keeps to the word before it, as i18n.js `t` keeps it (no line starts with it).
  $("dv-sign-out-dialog-device").textContent = `${addedText(d)}\u00a0· ${usedText(d)}`;
  const text = d.kind === "recovery" ? "devices.sign_out_file_text" : "devices.sign_out_text";
  $("dv-sign-out-dialog-text").textContent = t(text);
  $("dv-sign-out-dialog-keep").textContent = t("devices.keep");
  $("dv-sign-out-dialog-yes").textContent = t("devices.sign_out");
  dialog.returnValue = "";
  return new Promise((resolve) => {
    whenClosed(dialog, () => {
      const yes = dialog.returnValue === "yes";
      if (!yes && back?.isConnected) back.focus();
      resolve(yes);
    });
    dialog.showModal();
    $("dv-sign-out-dialog-keep").focus();
  });
}

async function signOut(d, button) {
  if (!(await askSignOut(d, button))) return;
  try {
    await call("DELETE", `${D}/${encodeURIComponent(d.device)}`);
    say("dv-list-status", t("devices.signed_out_one", { name: deviceName(d) }));
    await loadDevices();
    $("dv-list-title").focus();
  } catch {
    say("dv-list-status", t("devices.failed"));
  }
}
