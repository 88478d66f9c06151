/**
 * Quick play on the home page's first screen (docs/quickplay.md, "The pages"): the form
 * (form.js), then the waiting state (waiting.js) until the server seats this player, then the
 * table (kings-corner-online.html#token). The queue is the server's: a page opened while this
 * player waits shows the waiting state again, and one opened after they were seated (but before
 * they opened the table) offers the table.
 *
 * While waiting, the page asks `GET /api/quick-play` every 2 s (`POLL_MS`: a seated player
 * reaches the table within about 2 s, and a hundred waiting players cost the server fifty
 * light reads a second), once more just after the fill time, and at once when the page comes
 * back into view; after a failed request it waits 6 s. The clock and the countdown move every
 * second without a request.
 */

import { hasPlayer } from "../core/api.js";
import { currentLanguage, t } from "../core/i18n.js";
import { quickApi, tableUrl } from "./api.js";
import { nameMessage, readForm, rememberForm, wireForm } from "./form.js";
import { drawWaiting, secondsToFill, tickWaiting } from "./waiting.js";

const POLL_MS = 2000;
const RETRY_MS = 6000;
const AFTER_FILL_MS = 300;

const $ = (id) => document.getElementById(id);

const qp = {
  status: null, // the last answer of GET /api/quick-play (or POST)
  skew: 0, // the server's clock minus this one (ms)
  watching: false, // this page saw the player wait: a seat takes it to the table
  busy: false,
  generation: 0, // a join or leave makes older answers stale
  poll: 0,
  tick: 0,
  nameText: null, // what the name field's message says, again in a new language
};

function show(state) {
  $("quick-play").dataset.state = state;
  $("qp-form").hidden = state !== "form";
  $("qp-wait").hidden = state !== "waiting" && state !== "seated";
  $("qp-ready").hidden = state !== "ready";
}

function say(text) {
  $("qp-status").textContent = text;
}

function showError(text) {
  $("qp-error").textContent = text || "";
}

function setNameMessage(text) {
  qp.nameText = text;
  nameMessage(text ? text() : null);
}

function stopTimers() {
  clearTimeout(qp.poll);
  clearInterval(qp.tick);
}

function schedulePoll(ms) {
  clearTimeout(qp.poll);
  qp.poll = setTimeout(poll, ms);
}

async function poll() {
  const generation = qp.generation;
  try {
    const status = await quickApi.status();
    if (generation !== qp.generation) return;
    showError(null);
    apply(status);
  } catch (err) {
    if (generation !== qp.generation) return;
    $("quick-play").dataset.loaded = "true"; // the form stays usable: Play asks again
    if (err.code !== "revoked") showError(t(err.code === "network" ? "error.network" : "error.unknown"));
    if (qp.watching) schedulePoll(RETRY_MS);
  }
}

function wait(status) {
  show("waiting");
  drawWaiting(status, qp.skew);
  qp.tick = setInterval(() => tickWaiting(status, qp.skew), 1000);
  const toFill = secondsToFill(status, qp.skew) * 1000;
  schedulePoll(toFill > 0 && toFill < POLL_MS ? toFill + AFTER_FILL_MS : POLL_MS);
  qp.watching = true;
}

/** A table this player has not opened yet (`key`: "quick.ready_title"), or one they already
 * play at ("quick.already_seated", a press of Play while it is not finished). */
function showReady(token, key = "quick.ready_title") {
  show("ready");
  const title = $("qp-ready-title");
  title.dataset.i18n = key; // a language switch words it again
  title.textContent = t(key);
  $("qp-ready-go").href = tableUrl(token);
}

/** Shows what the server says of this player: idle, waiting or seated. */
function apply(status) {
  qp.status = status;
  $("quick-play").dataset.loaded = "true"; // for tests: the server's answer is shown
  if (status.now) qp.skew = Date.parse(status.now) - Date.now();
  stopTimers();
  if (status.state === "waiting") {
    wait(status);
  } else if (status.state === "seated" && qp.watching) {
    show("seated");
    $("qp-wait-title").textContent = t("quick.seated");
    $("qp-fill").textContent = "";
    say(t("quick.seated"));
    location.assign(tableUrl(status.token));
  } else if (status.state === "seated") {
    showReady(status.token);
  } else {
    qp.watching = false;
    show("form");
  }
}

/** A refused join: the name field, the table this player already has, or the error line. */
function refused(err) {
  if (err.code === "already_queued") {
    qp.watching = true;
    poll();
  } else if (err.code === "already_seated" && err.body?.token) {
    showReady(err.body.token, "quick.already_seated");
    $("qp-ready-title").focus();
  } else if (err.code === "name_refused" || err.code === "invalid_request") {
    setNameMessage(() => refusalText(err));
    $("qp-name").focus();
  } else if (err.status === 429) {
    showError(t("quick.error.too_fast"));
  } else if (err.code !== "revoked") {
    showError(t(err.code === "network" ? "error.network" : "error.unknown"));
  }
}

/** The server's reason for a refused name where it reads in the page's language (its messages
 * are English), else the page's own words. */
function refusalText(err) {
  const message = err.code === "name_refused" ? err.body?.message : "";
  const readable = message && (currentLanguage() === "en" || /[\u3040-\u30ff\u4e00-\u9fff]/.test(message));
  if (!readable) return t(err.code === "name_refused" ? "quick.name_refused" : "quick.name_invalid");
  return message.charAt(0).toUpperCase() + message.slice(1);
}

async function play() {
  if (qp.busy) return;
  const choice = readForm();
  showError(null);
  say("");
  if (!choice.name) {
    setNameMessage(() => t("quick.name_needed"));
    $("qp-name").focus();
    return;
  }
  setNameMessage(null);
  rememberForm(choice);
  qp.busy = true;
  qp.generation += 1;
  $("quick-play").setAttribute("aria-busy", "true");
  try {
    const sent = Date.now();
    const status = await quickApi.join(choice.players, choice.preset, choice.name);
    // The server put this player in the queue (`since`) between the request and its answer.
    if (status.since && !status.now) qp.skew = Date.parse(status.since) - (sent + Date.now()) / 2;
    qp.watching = true;
    apply(status);
    if (status.state === "waiting") $("qp-wait-title").focus();
  } catch (err) {
    refused(err);
  } finally {
    qp.busy = false;
    $("quick-play").removeAttribute("aria-busy");
  }
}

async function leave() {
  if (qp.busy) return;
  qp.busy = true;
  qp.generation += 1;
  stopTimers();
  try {
    await quickApi.leave();
    qp.watching = false;
    qp.status = { state: "idle" };
    show("form");
    say(t("quick.left"));
    $("qp-play").focus();
  } catch (err) {
    if (err.code !== "revoked") showError(t(err.code === "network" ? "error.network" : "error.unknown"));
    if (qp.status?.state === "waiting") wait(qp.status);
  } finally {
    qp.busy = false;
  }
}

/** Wires the box and shows where this player stands (a first visit asks the server nothing). */
export function initQuickPlay() {
  if (!$("quick-play")) return;
  wireForm(play);
  $("qp-leave").addEventListener("click", leave);
  const again = () => {
    if (qp.watching && !qp.busy) poll();
  };
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && again());
  window.addEventListener("pageshow", (ev) => ev.persisted && again());
  if (hasPlayer()) poll();
  else $("quick-play").dataset.loaded = "true";
}

/** Draws the box again in a new language. */
export function renderQuickPlay() {
  if (qp.status?.state === "waiting") drawWaiting(qp.status, qp.skew);
  if (qp.nameText) nameMessage(qp.nameText());
}
