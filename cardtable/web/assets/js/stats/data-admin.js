/**
 * The settings dialog's data tools: export everything the server keeps for this browser's
 * player as a JSON file, and delete it all after a confirmation (the browser then forgets
 * the player id and starts afresh). Loaded by shell/boot.js where the dialog has them.
 *
 * Once deleted, nothing of the deleted games stays on screen: the page's content is hidden
 * at once (behind the dialog, which says so) and the page starts again when the dialog
 * closes.
 */

import { t } from "../core/i18n.js";
import { storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY, dailyApi } from "../daily/api.js";

const $ = (id) => document.getElementById(id);
let deleted = false;

function say(key) {
  $("data-status").textContent = t(key);
}

async function exportData() {
  try {
    const data = await dailyApi.exportData();
    const blob = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = `cardtable-data-${new Date().toISOString().slice(0, 10)}.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say("data.exported");
  } catch {
    say("data.failed");
  }
}

async function deleteData() {
  try {
    await dailyApi.deleteData();
    storageSet("cardtable.player", null);
    storageSet(DAILY_GAME_KEY, null);
    $("data-confirm").hidden = true;
    deleted = true;
    const main = document.getElementById("main");
    if (main) main.hidden = true;
    say("data.deleted");
    $("data-delete").focus();
  } catch {
    say("data.failed");
  }
}

$("data-export").addEventListener("click", exportData);
$("data-delete").addEventListener("click", () => {
  $("data-confirm").hidden = false;
  $("data-status").textContent = "";
  $("data-delete-no").focus();
});
$("data-delete-no").addEventListener("click", () => {
  $("data-confirm").hidden = true;
  $("data-delete").focus();
});
$("data-delete-yes").addEventListener("click", deleteData);
// The page showed the deleted games: it starts again once the dialog closes.
$("settings-dialog")?.addEventListener("close", () => {
  if (deleted) window.location.reload();
});
