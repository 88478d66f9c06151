/**
 * The dialog of a signed-out device (docs/devices.md): the server answered `401 revoked`, so
 * this browser's id no longer reaches its record. core/api.js asks for it on any page with an
 * event that shell/boot.js answers (loading this module the first time); it is never replaced
 * silently: "Start fresh" forgets the id (a new player is made on the next call), "Enter a
 * transfer code" brings a record back (and the reloaded page says so, devices/switched.js).
 */

import { adoptPlayer } from "../core/api.js";
import { addBundle, applyTranslations, currentLanguage, loadLanguage, t } from "../core/i18n.js";
import { storageSet } from "../core/settings.js";
import { DAILY_GAME_KEY } from "../daily/api.js";
import { claimForm, el } from "./claim.js";
import { reloadAsSwitched } from "./switched.js";

let opening = null;

/** The dialog's strings and styles, on a page that did not load them (no settings dialog). */
async function ensureAssets() {
  if (t("devices.revoked_title") === "devices.revoked_title") {
    addBundle("devices");
    await loadLanguage(currentLanguage());
  }
  if (!document.querySelector("link[href*='devices.css']")) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = import.meta.resolve("../../css/devices.css");
    document.head.append(link);
  }
}

function build() {
  const dialog = el("dialog", "revoked-dialog");
  dialog.id = "revoked-dialog";
  dialog.setAttribute("aria-labelledby", "revoked-title");
  dialog.setAttribute("aria-describedby", "revoked-text");
  const title = el("h2", "", "devices.revoked_title");
  title.id = "revoked-title";
  const text = el("p", "", "devices.revoked_text");
  text.id = "revoked-text";
  const fresh = el("button", "primary", "devices.revoked_fresh");
  fresh.type = "button";
  fresh.id = "revoked-fresh";
  fresh.autofocus = true;
  const code = el("button", "", "devices.revoked_code");
  code.type = "button";
  code.id = "revoked-code";
  const actions = el("p", "revoked-actions");
  actions.append(fresh, code);
  const claim = el("div", "claim");
  claim.id = "revoked-claim";
  claim.hidden = true;
  dialog.append(title, text, actions, claim);
  applyTranslations(dialog);

  fresh.addEventListener("click", () => {
    adoptPlayer(null);
    storageSet(DAILY_GAME_KEY, null);
    location.reload();
  });
  code.addEventListener("click", () => {
    claim.hidden = false;
    code.setAttribute("aria-expanded", "true");
    if (!claim.firstChild) claimForm(claim, { ask: false, onDone: reloadAsSwitched });
    claim.querySelector("input").focus();
  });
  code.setAttribute("aria-expanded", "false");
  code.setAttribute("aria-controls", claim.id);
  // The two choices are the ways out: Esc would leave a page whose every request fails.
  dialog.addEventListener("cancel", (ev) => ev.preventDefault());
  document.body.append(dialog);
  return dialog;
}

/** Opens the dialog (once; again if it was somehow closed). */
export function showRevoked() {
  if (!opening) {
    opening = ensureAssets().then(build);
  }
  return opening.then((dialog) => {
    if (!dialog.open) dialog.showModal();
    return dialog;
  });
}
