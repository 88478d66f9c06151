/**
 * Pieces shared by the end panels of both games (kings-corner/end.js, poker-squares/end.js): the words their links
 * need, a small element builder and the "Verify this shuffle" link.
 */

import { verifyHref } from "./fairness.js";
import { addBundle, t } from "./i18n.js";

addBundle("review"); // the Replay and Review links' words (assets/i18n/review.<lang>.json)
addBundle("fairness"); // "Verify this shuffle" (assets/i18n/fairness.<lang>.json)

/** An element with attributes and, optionally, text. */
export function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

/** The link to verify this deal's shuffle (verify.html), or null while its seed is secret. */
export function verifyLink(view) {
  const href = verifyHref(view);
  return href ? el("a", { class: "button", id: "verify-btn", href }, t("fair.verify_btn")) : null;
}
