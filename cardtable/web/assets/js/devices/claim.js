/**
 * What the settings dialog, the link page and the signed-out dialog share to bring a record to
 * this browser (docs/devices.md): reading a transfer code as typed, the question asked before
 * this browser's own record is left behind, the claim form, the words for a refusal, and the
 * switch to the new credential.
 */

import { ApiError, adoptPlayer, request, storedPlayer } from "../core/api.js";
import { applyTranslations, t } from "../core/i18n.js";
import { storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY } from "../daily/api.js";

const ALPHABET = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;

/** "abcd efgh", "ＡＢＣＤ－ＥＦＧＨ", "ABCD-EFGH" -> "ABCD-EFGH"; null when it cannot be a code. */
export function normaliseCode(text) {
  const plain = String(text || "")
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[\s-]+/g, "");
  return ALPHABET.test(plain) ? `${plain.slice(0, 4)}-${plain.slice(4)}` : null;
}

export function el(tag, className = "", i18n = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (i18n) node.dataset.i18n = i18n;
  return node;
}

function button(i18n, className = "") {
  const b = el("button", className, i18n);
  b.type = "button";
  return b;
}

/** A span of seconds in words: "45 seconds", "2 minutes" / "45秒", "2分". */
function waitText(seconds) {
  const s = Math.max(1, Math.ceil(seconds || 60));
  return s < 90 ? t("devices.wait_s", { n: s }) : t("devices.wait_min", { n: Math.ceil(s / 60) });
}

/** The words for a failed claim or restore. */
export function refusalText(err, badKey = "devices.bad_code") {
  if (err?.code === "bad_code") return t(badKey);
  if (err?.code === "rate_limited") return t("devices.rate_limited", { time: waitText(err.retryAfter) });
  if (err?.status === 422) return t("devices.claim_format");
  return t("devices.failed");
}

/** True when this browser's own player has a game or a result that leaving it would strand.
 * Asked with the stored id as it is (never making one); any failure counts as nothing. */
export async function ownRecordInUse() {
  const id = storedPlayer();
  if (!id) return false;
  try {
    const [games, history] = await Promise.all([
      request("GET", "/api/continue", undefined, id),
      request("GET", "/api/stats/history", undefined, id),
    ]);
    return Boolean(games?.poker_squares || games?.kings_corner || history?.items?.length);
  } catch {
    return false;
  }
}

/**
 * Asks, in a box placed after `anchor`, whether to leave this browser's own record behind;
 * resolves true or false. Focus goes to the safe answer and comes back to `anchor`'s
 * `returnFocus` afterwards.
 */
export function askReplace(anchor, returnFocus, questionKey = "devices.replace_question") {
  return new Promise((resolve) => {
    const box = el("div", "devices-confirm");
    const question = el("p", "", questionKey);
    const yes = button("devices.replace_yes", "danger");
    const no = button("devices.replace_no");
    const row = el("p");
    row.append(yes, " ", no);
    box.append(question, row);
    applyTranslations(box);
    anchor.after(box);
    no.focus();
    const answer = (value) => {
      box.remove();
      returnFocus?.focus();
      resolve(value);
    };
    yes.addEventListener("click", () => answer(true));
    no.addEventListener("click", () => answer(false));
  });
}

/** Makes the answer of claim or restore this browser's player. */
export function switchTo(answer) {
  adoptPlayer(answer.player_id);
  storageSet(DAILY_GAME_KEY, null); // the old record's daily game
}

/** POST /api/devices/claim (no player id: the route takes the code alone). */
export function claim(code) {
  return request("POST", "/api/devices/claim", { code });
}

/** POST /api/devices/restore with the key of a recovery file. */
export function restore(recoveryKey) {
  return request("POST", "/api/devices/restore", { recovery_key: recoveryKey });
}

/** The recovery key in a file's text: the JSON the site offers, or the bare key. */
export function recoveryKeyOf(text) {
  const trimmed = String(text || "").trim();
  if (/^[A-Za-z0-9_-]{43}$/.test(trimmed)) return trimmed;
  try {
    const data = JSON.parse(trimmed);
    const key = data?.format === "cardtable-recovery" ? data.recovery_key : null;
    return typeof key === "string" && /^[A-Za-z0-9_-]{43}$/.test(key) ? key : null;
  } catch {
    return null;
  }
}

let forms = 0;

/**
 * A "code from your other device" form in `container`. `ask`: ask before leaving this
 * browser's own record (false where it is already lost, the signed-out dialog). `onDone(answer)`
 * after the switch. Returns the input (to focus it).
 */
export function claimForm(container, { ask = true, onDone, initial = "" }) {
  forms += 1;
  const id = `claim-code-${forms}`;
  const form = el("form", "claim-form");
  form.noValidate = true;
  const label = el("label", "", "devices.claim_label");
  label.htmlFor = id;
  const input = el("input", "claim-input");
  Object.assign(input, { id, type: "text", value: initial, autocomplete: "off", spellcheck: false });
  input.setAttribute("autocapitalize", "characters");
  input.setAttribute("enterkeyhint", "go");
  input.setAttribute("maxlength", "20");
  input.placeholder = "ABCD-EFGH";
  const submit = el("button", "primary", "devices.claim_btn");
  submit.type = "submit";
  const row = el("p", "claim-row");
  row.append(input, submit);
  const status = el("p", "devices-status");
  status.setAttribute("role", "status");
  status.id = `${id}-status`;
  input.setAttribute("aria-describedby", status.id);
  form.append(label, row, status);
  applyTranslations(form);
  container.replaceChildren(form);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = normaliseCode(input.value);
    if (!code) {
      status.textContent = t("devices.claim_format");
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    input.removeAttribute("aria-invalid");
    submit.disabled = true;
    status.textContent = "";
    try {
      if (ask && (await ownRecordInUse()) && !(await askReplace(row, input))) return;
      const answer = await claim(code);
      switchTo(answer);
      status.textContent = t("devices.switching");
      await onDone(answer);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status.textContent = refusalText(err);
      input.setAttribute("aria-invalid", "true");
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return input;
}
