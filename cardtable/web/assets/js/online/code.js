/**
 * "Join a friend's table" by room code, on the Kings Corner setup, on the online page opened
 * without an invite link and on the Poker Squares table page: the code (6 characters; spaces,
 * dashes and lower case forgiven) leads to the table's token (a Kings Corner table, else a
 * Poker Squares one), and the page goes to that table's invite link.
 */

import { showError } from "../core/feedback.js";
import { psTableApi, TABLE_PAGE } from "../pstable/api.js";
import { onlineApi } from "./api.js";

export const ONLINE_PAGE = "kings-corner-online.html";

/** The code as the server spells it, or null when it cannot be one. */
export function normalCode(text) {
  const code = text.replace(/[\s-]/g, "").toUpperCase();
  return /^[2-9A-HJKMNP-Z]{6}$/.test(code) ? code : null;
}

/** The table of `code` and its page: a Kings Corner table, else a Poker Squares one (both
 * kinds draw their codes from the same alphabet; a code names one open table of one kind). */
async function findTable(code) {
  try {
    return { page: ONLINE_PAGE, ...(await onlineApi.findCode(code)) };
  } catch (err) {
    if (err.code !== "not_found") throw err;
    return { page: TABLE_PAGE, ...(await psTableApi.findCode(code)) };
  }
}

/** Wires a form holding a code `input`: a known code opens its table (of either game). */
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
      const found = await findTable(code);
      showError(null);
      // On the table's own page the fragment's change reloads it (main.js).
      location.assign(`${found.page}#${found.token}`);
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
