/**
 * The settings dialog's "Your devices" section (docs/devices.md): a transfer code with its
 * countdown, QR code and link; the devices using this record, each with when it was added and
 * last used (rename this one, sign one out after a question naming it, sign this one out, sign
 * out everywhere else); the recovery file (download, restore); and the form for a code from
 * another device. Loaded by shell/boot.js where the dialog has the section, it also brings what
 * every such page does for the devices feature: the notice after a reload as another record
 * (devices/switched.js) and the question whether this browser is still signed in when the page
 * comes back into view (devices/standing.js).
 *
 * The transfer code and the list of devices (renaming this one, signing one out) are
 * list.js's; this module has signing this device or the others out, the recovery file and
 * the wiring.
 */

import { ApiError, adoptPlayer, call, storedPlayer } from "../core/api.js";
import { t } from "../core/i18n.js";
import { onLanguageChange } from "../core/page.js";
import { storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY } from "../daily/api.js";
import { askReplace, claimForm, ownRecordInUse, recoveryKeyOf, refusalText, restore, switchTo } from "./claim.js";
import {
  closeRename,
  copyLink,
  loadDevices,
  newCode,
  renderDevices,
  saveRename,
  say,
  showCode,
  state,
} from "./list.js";
import { watchStanding } from "./standing.js";
import { reloadAsSwitched, showSwitched } from "./switched.js";

const $ = (id) => document.getElementById(id);
const D = "/api/devices";

// --- signing this device, or every other one, out -------------------------------------------

/** Forgets this browser's player and starts the page again (a new player on first use). */
function startAfresh() {
  adoptPlayer(null);
  storageSet(DAILY_GAME_KEY, null);
  location.reload();
}

async function ask(kind) {
  state.pending = kind;
  // Whether this is the record's last device comes from the list: wait for the load that
  // opening the dialog started, or a quick click would be asked the wrong question.
  await state.listing;
  const alone = state.devices.every((d) => d.current);
  const question =
    kind === "others"
      ? "devices.sign_out_others_confirm"
      : alone
        ? "devices.sign_out_this_last"
        : "devices.sign_out_this_confirm";
  say("dv-sign-out-question", t(question));
  $("dv-sign-out-yes").textContent = t(kind === "others" ? "devices.sign_out_others_yes" : "devices.sign_out_this_yes");
  $("dv-sign-out-confirm").hidden = false;
  $("dv-sign-out-no").focus();
}

function closeAsk() {
  $("dv-sign-out-confirm").hidden = true;
  const back = state.pending === "others" ? $("dv-sign-out-others") : $("dv-sign-out-this");
  state.pending = null;
  back.focus();
}

async function confirmSignOut() {
  const kind = state.pending;
  try {
    if (kind === "others") {
      const answer = await call("POST", `${D}/sign-out-others`);
      $("dv-sign-out-confirm").hidden = true;
      state.pending = null;
      say("dv-list-status", t("devices.signed_out_others", { n: answer.revoked }));
      await loadDevices();
      $("dv-list-title").focus();
    } else {
      const me = state.devices.find((d) => d.current);
      if (me) await call("DELETE", `${D}/${encodeURIComponent(me.device)}`);
      startAfresh();
    }
  } catch {
    say("dv-list-status", t("devices.failed"));
  }
}

// --- the recovery file ---------------------------------------------------------------------

async function downloadRecovery() {
  try {
    const file = await call("POST", `${D}/recovery`);
    const blob = new Blob([`${JSON.stringify(file, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = "cardtable-recovery.json";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    $("dv-recovery-confirm").hidden = true;
    say("dv-recovery-status", t("devices.recovery_done"));
    $("dv-recovery-btn").focus();
    loadDevices();
  } catch (err) {
    say("dv-recovery-status", err?.code === "rate_limited" ? refusalText(err) : t("devices.failed"));
  }
}

async function restoreFile() {
  const input = $("dv-restore-file");
  const file = input.files?.[0];
  if (!file) return;
  say("dv-restore-status", "");
  const key = recoveryKeyOf(await file.text().catch(() => ""));
  input.value = "";
  if (!key) {
    say("dv-restore-status", t("devices.restore_bad_file"));
    return;
  }
  // Always asked first, saying what the file replaces (this browser's games, or nothing yet).
  const question = (await ownRecordInUse()) ? "devices.replace_question" : "data.restore_question";
  if (!(await askReplace(input.closest("p"), input, question))) return;
  try {
    const answer = await restore(key);
    switchTo(answer);
    say("dv-restore-status", t("devices.switching"));
    reloadAsSwitched(answer);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    say("dv-restore-status", refusalText(err, "devices.bad_file"));
  }
}

// --- wiring --------------------------------------------------------------------------------

function refresh() {
  const has = Boolean(storedPlayer());
  $("dv-devices-own").hidden = !has;
  $("dv-devices-none").hidden = has;
  for (const id of ["dv-list-status", "dv-recovery-status", "dv-restore-status"]) say(id, "");
  if (!has) return;
  if (!state.devices.length) say("dv-list-status", t("devices.loading"));
  loadDevices().then(() => {
    if ($("dv-list-status").textContent === t("devices.loading")) say("dv-list-status", "");
  });
  if (state.code) showCode();
}

function wire() {
  $("dv-list-title").tabIndex = -1;
  $("settings-open")?.addEventListener("click", refresh);
  $("dv-share-btn").addEventListener("click", newCode);
  $("dv-share-new").addEventListener("click", newCode);
  $("dv-share-copy").addEventListener("click", copyLink);
  $("dv-rename-save").addEventListener("click", saveRename);
  $("dv-rename-cancel").addEventListener("click", closeRename);
  $("dv-rename-input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      saveRename();
    }
  });
  $("dv-sign-out-this").addEventListener("click", () => ask("this"));
  $("dv-sign-out-others").addEventListener("click", () => ask("others"));
  $("dv-sign-out-no").addEventListener("click", closeAsk);
  $("dv-sign-out-yes").addEventListener("click", confirmSignOut);
  $("dv-recovery-btn").addEventListener("click", () => {
    $("dv-recovery-confirm").hidden = false;
    say("dv-recovery-status", "");
    $("dv-recovery-yes").focus();
  });
  $("dv-recovery-no").addEventListener("click", () => {
    $("dv-recovery-confirm").hidden = true;
    $("dv-recovery-btn").focus();
  });
  $("dv-recovery-yes").addEventListener("click", downloadRecovery);
  $("dv-restore-file").addEventListener("change", restoreFile);
  claimForm($("dv-settings-claim"), { onDone: reloadAsSwitched });
  $("settings-dialog")?.addEventListener("close", () => {
    clearInterval(state.timer);
    state.timer = 0;
  });
  onLanguageChange(() => {
    renderDevices();
    if (state.code) showCode();
  });
  if ($("settings-dialog")?.open) refresh();
}

wire();
showSwitched();
watchStanding();
