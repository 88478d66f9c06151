/**
 * "Join a friend's table" by room code, on the Kings Corner setup and on the online page
 * opened without an invite link: the code (6 characters; spaces, dashes and lower case
 * forgiven) leads to the table's token, and the page goes to the invite link.
 */

import { showError } from "../core/feedback.js";
import { onlineApi } from "./api.js";

export const ONLINE_PAGE = "kings-corner-online.html";

/** The code as the server spells it, or null when it cannot be one. */
export function normalCode(text) {
  const code = text.replace(/[\s-]/g, "").toUpperCase();
  return /^[2-9A-HJKMNP-Z]{6}$/.test(code) ? code : null;
}

/** Wires a form holding a code `input`: a known code opens its table. */
export function wireCodeForm(form, input) {
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = normalCode(input.value);
    if (!code) {
      showError("kco.error.bad_code");
      input.focus();
      return;
    }
    try {
      const found = await onlineApi.findCode(code);
      showError(null);
      // On the online page itself the fragment's change reloads it (main.js).
      location.assign(`${ONLINE_PAGE}#${found.token}`);
    } catch (err) {
      if (err.code === "revoked") {
        showError(null); // the signed-out dialog (devices/revoked.js) says it
        return;
      }
      showError(
        err.code === "not_found"
          ? "kco.error.code_unknown"
          : err.code === "rate_limited"
            ? "error.rate_limited"
            : "error.network",
      );
      input.focus();
    }
  });
}
