/**
 * Whether this browser is still signed in to its record, asked when its open page may be
 * showing a game it can no longer play (docs/devices.md, "A page left open"): another device
 * signed this one out while the page stayed open. A request answered `401 revoked` opens the
 * signed-out dialog (core/api.js, devices/revoked.js), but a page that makes no request (a deal
 * shown again with "Continue", a tab looked at again) would go on showing the game. So the page
 * asks (`GET /api/devices` with the stored id, never making one) when it comes back into view
 * (the tab shown again, the window focused again after it was left, a page restored from the
 * back-forward cache), and on the player's next action on the page once nothing was asked for
 * `QUIET` ms. No timer: every question answers an event.
 */

import { noteRevoked, request, storedPlayer } from "../core/api.js";

/** An action asks only when nothing was asked for this long (the page's own first requests,
 * at load, count as asked). */
export const QUIET = 15000;

let asked = Date.now();
let asking = null;
let signedOut = false;

/** Asks the server whether this browser's id still stands, unless it was asked less than
 * `gap` ms ago or is being asked (a tab shown again is also focused again: one question); a
 * `revoked` answer raises the signed-out dialog. Resolves when answered. */
export function checkStanding(gap = 0) {
  if (asking) return asking;
  const id = storedPlayer();
  if (signedOut || !id || Date.now() - asked < gap) return Promise.resolve();
  asked = Date.now();
  asking = request("GET", "/api/devices", undefined, id)
    .catch((err) => {
      if (err?.code !== "revoked") return; // offline, or anything else: the next request says
      signedOut = true;
      noteRevoked();
    })
    .finally(() => {
      asking = null;
    });
  return asking;
}

/** An action on the page itself; one in a dialog (the settings dialog makes its own requests,
 * the signed-out dialog is the answer) or on the settings button asks nothing. */
function onAction(ev) {
  const target = ev.target instanceof Element ? ev.target : null;
  if (target?.closest("dialog, #settings-open")) return;
  checkStanding(QUIET);
}

export function watchStanding() {
  let left = false;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") checkStanding();
  });
  window.addEventListener("blur", () => {
    left = true;
  });
  window.addEventListener("focus", () => {
    if (!left) return;
    left = false;
    checkStanding();
  });
  window.addEventListener("pageshow", (ev) => {
    if (ev.persisted) checkStanding();
  });
  document.addEventListener("pointerdown", onAction, { capture: true, passive: true });
  document.addEventListener("keydown", onAction, { capture: true, passive: true });
}
