/**
 * After a quick-play match, on the online table's end panel (online/draw.js calls
 * `renderQuickEnd` each time it draws the panel): for each other person at the table, "Don't
 * seat me with this player again", which asks `POST /api/quick-play/blocks` and then says it
 * is done (the settings dialog lists them, each with an Undo: blocks.js). Nothing shows at a
 * table quick play did not make, before the match is over, or to a spectator.
 *
 * The end panel is drawn anew on every change of the table (a rematch press, a connection), so
 * this part is one node kept here and put back each time, with its rows and the keyboard's
 * place in it kept.
 */

import { t } from "../core/i18n.js";
import { quickApi } from "./api.js";

/** `${token}:${seat}` -> "done" once the server keeps the block (for this page's life). */
const outcome = new Map();
let section = null;
let drawn = "";
let focused = null; // the id of this part's control that has the keyboard, if any
let pending = false;

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

function build() {
  const box = el("section", { id: "qp-after", class: "qp-after", "aria-labelledby": "qp-after-title" });
  box.append(
    el("h3", { id: "qp-after-title" }),
    el("p", { id: "qp-after-note", class: "note" }),
    el("ul", { id: "qp-after-list", class: "qp-after-list" }),
    el("p", { id: "qp-after-status", class: "qp-after-status", role: "status" }),
  );
  box.addEventListener("focusin", (ev) => {
    focused = ev.target.id || null;
  });
  box.addEventListener("focusout", (ev) => {
    if (ev.relatedTarget && !box.contains(ev.relatedTarget)) focused = null;
  });
  return box;
}

function others(game) {
  const mine = new Set(game.me?.seats ?? []);
  return game.seats
    .map((s, seat) => ({ seat, name: s.name }))
    .filter(({ seat }) => !mine.has(seat) && game.seats[seat].kind === "person" && !game.seats[seat].local);
}

function row(token, person) {
  const li = el("li", { class: "qp-after-row", "data-seat": String(person.seat) });
  if (outcome.get(`${token}:${person.seat}`) === "done") {
    li.classList.add("done");
    li.append(el("span", { id: `qp-after-done-${person.seat}`, tabindex: "-1" }, t("quick.blocked_done", person)));
    return li;
  }
  const name = el("span", { class: "qp-after-name" }, person.name);
  const button = el("button", {
    type: "button",
    id: `qp-block-${person.seat}`,
    class: "qp-block-btn",
    "aria-label": t("quick.block_named", person),
  });
  button.textContent = t("quick.block_btn");
  button.addEventListener("click", () => block(token, person));
  li.append(name, button);
  return li;
}

function fill(token, people) {
  section.querySelector("#qp-after-title").textContent = t("quick.after_title");
  section.querySelector("#qp-after-note").textContent = t("quick.after_note");
  section.querySelector("#qp-after-list").replaceChildren(...people.map((p) => row(token, p)));
}

async function block(token, person) {
  if (pending) return;
  pending = true;
  const status = section.querySelector("#qp-after-status");
  status.textContent = "";
  try {
    await quickApi.block(token, person.seat);
    outcome.set(`${token}:${person.seat}`, "done");
  } catch (err) {
    // 409: the server already keeps this block (a second press from another tab).
    if (err.status === 409) outcome.set(`${token}:${person.seat}`, "done");
    else if (err.code !== "revoked") status.textContent = t("quick.block_failed");
  } finally {
    pending = false;
  }
  if (outcome.get(`${token}:${person.seat}`) !== "done") return;
  drawn = "";
  const done = section.querySelector(`#qp-after-list [data-seat="${person.seat}"]`);
  done?.replaceWith(row(token, person));
  // The row now says it is done, and the keyboard (a screen reader with it) goes there.
  focused = `qp-after-done-${person.seat}`;
  document.getElementById(focused)?.focus();
}

/** Adds the choice to the end panel `endBox` of the table `token` as drawn for `game`. */
export function renderQuickEnd(endBox, game, token) {
  const people = game.settings?.quick && game.phase === "match_over" && game.me ? others(game) : [];
  if (!people.length) {
    section?.remove();
    return;
  }
  section ??= build();
  const key = JSON.stringify([token, document.documentElement.lang, people]);
  if (key !== drawn) {
    fill(token, people);
    drawn = key;
  }
  endBox.append(section);
  // A new drawing of the panel took the node out: the keyboard goes back where it was.
  if (focused && (document.activeElement === document.body || !document.activeElement)) {
    document.getElementById(focused)?.focus();
  }
}
