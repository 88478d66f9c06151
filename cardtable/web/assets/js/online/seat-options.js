/**
 * The host's options for a seat whose person is gone (docs/online.md, "Host actions on an
 * absent seat"). The seat's own state line ("away: computer playing") becomes the button
 * that opens them in a dialog: "Computer plays now" (while reconnecting), "Invite someone
 * new" and "Computer for good" (once away). Kept off the seat itself, a friend's drop no
 * longer grows their seat by a row of buttons and pushes the others (and the board) down.
 * A person's display name only ever reaches the page as text.
 */

import { dialogButton, questionDialog } from "../core/dialog.js";
import { t } from "../core/i18n.js";

let dialog = null;
let openSeat = null;

function build() {
  const { dialog: d } = questionDialog("seat-options");
  const actions = document.createElement("p");
  actions.id = "seat-options-actions";
  actions.className = "seat-options-actions";
  const close = dialogButton("seat-options-close");
  close.addEventListener("click", () => d.close());
  const foot = document.createElement("p");
  foot.className = "seat-options-foot";
  foot.append(close);
  d.append(actions, foot);
  d.addEventListener("close", () => {
    openSeat = null;
  });
  document.body.append(d);
  return d;
}

function fill(seat, options) {
  dialog.querySelector("#seat-options-title").textContent = t("kon.options_title", { who: options.who });
  // The seat's own state line, countdown and all (`tickCountdowns` rewrites every
  // `[data-deadline]` of the page, this copy included).
  const line = options.line.cloneNode(true);
  line.removeAttribute("id");
  dialog.querySelector("#seat-options-text").replaceChildren(line);
  dialog.querySelector("#seat-options-close").textContent = t("kon.options_close");
  const buttons = options.actions.map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.id = `${a.id}-${seat}`;
    b.className = "seat-tool";
    b.textContent = a.text;
    b.setAttribute("aria-label", a.label);
    if (a.title) b.title = a.title;
    b.addEventListener("click", () => {
      dialog.close();
      a.run();
    });
    return b;
  });
  dialog.querySelector("#seat-options-actions").replaceChildren(...buttons);
}

/**
 * On the host's page, makes the state line of `li` (the seat's `.conn`) the button that opens
 * the options for `seat`. `options`: `who` (the seat's name) and `actions` ({id, text,
 * label, title?, run}, in order). An open dialog for that seat is
 * refilled, so it never offers what no longer applies.
 */
export function addSeatOptions(li, seat, options) {
  const conn = li.querySelector(".conn");
  if (!conn) return;
  const b = document.createElement("button");
  b.type = "button";
  b.id = `seat-options-${seat}`;
  b.className = "seat-options-btn";
  b.setAttribute("aria-haspopup", "dialog");
  conn.replaceWith(b);
  // Its name is its content, so a countdown in it stays current: the state, then whose seat.
  const whose = Object.assign(document.createElement("span"), {
    className: "visually-hidden",
    textContent: t("kon.options_for", { who: options.who }),
  });
  const more = Object.assign(document.createElement("span"), { className: "seat-options-more", textContent: "›" });
  more.setAttribute("aria-hidden", "true");
  b.append(conn, whose, more);
  b.addEventListener("click", () => {
    dialog ??= build();
    fill(seat, { ...options, line: conn });
    openSeat = seat;
    dialog.showModal();
    dialog.querySelector(".seat-tool")?.focus();
  });
  if (dialog?.open && openSeat === seat) fill(seat, { ...options, line: conn });
}

/** Closes the options when their seat no longer has any (the person is back, the match over). */
export function closeSeatOptions(seatsWithOptions) {
  if (dialog?.open && !seatsWithOptions.includes(openSeat)) dialog.close();
}
