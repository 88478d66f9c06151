/**
 * The settings dialog's "Players you don't want to be seated with" (docs/quickplay.md): the
 * people this player chose, after a quick-play match, never to be seated with again (from
 * `GET /api/quick-play/blocks`, read each time the dialog opens), each by the name they had at
 * that table and since when, with an Undo (`DELETE`). The section shows only when the list is
 * not empty. Loaded by shell/boot.js where the dialog has the section.
 */

import { hasPlayer } from "../core/api.js";
import { currentLanguage, t } from "../core/i18n.js";
import { onLanguageChange } from "../core/page.js";
import { quickApi } from "./api.js";

const $ = (id) => document.getElementById(id);

let blocks = [];
/** Rows undone while the dialog is open: they stay, saying so, until it opens again. */
const undone = new Set();

function day(iso) {
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium" }).format(new Date(iso));
}

function row(entry) {
  const li = document.createElement("li");
  li.className = "qp-blocks-row";
  li.dataset.id = entry.id;
  const who = document.createElement("span");
  who.className = "qp-blocks-who";
  if (undone.has(entry.id)) {
    li.classList.add("undone");
    who.textContent = t("quick.undone", { name: entry.name });
    li.append(who);
    return li;
  }
  const name = document.createElement("strong");
  name.textContent = entry.name;
  const since = document.createElement("span");
  since.className = "qp-blocks-since";
  since.textContent = t("quick.blocks_since", { date: day(entry.since) });
  who.append(name, " ", since);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "qp-undo";
  button.textContent = t("quick.undo");
  button.setAttribute("aria-label", t("quick.undo_named", { name: entry.name }));
  button.addEventListener("click", () => undo(entry));
  li.append(who, button);
  return li;
}

function render() {
  const box = $("qp-blocks");
  box.hidden = blocks.length === 0;
  $("qp-blocks-list").replaceChildren(...blocks.map(row));
}

async function load() {
  undone.clear();
  $("qp-blocks-status").textContent = "";
  try {
    blocks = hasPlayer() ? ((await quickApi.blocks()).blocks ?? []) : [];
  } catch {
    blocks = []; // the dialog works without it
  }
  render();
  $("qp-blocks").dataset.loaded = "true"; // for tests: the answer is shown (or nothing is)
}

async function undo(entry) {
  const status = $("qp-blocks-status");
  try {
    await quickApi.unblock(entry.id);
  } catch (err) {
    if (err.status !== 404) {
      status.textContent = t("quick.undo_failed");
      return;
    }
  }
  undone.add(entry.id);
  render();
  status.textContent = t("quick.undone", { name: entry.name });
  // The keyboard goes to the next Undo, else the previous one, else the section's heading.
  const buttons = [...document.querySelectorAll("#qp-blocks-list .qp-undo")];
  const at = blocks.indexOf(entry);
  const next = buttons.find((b) => blocks.findIndex((x) => x.id === b.parentElement.dataset.id) > at);
  (next ?? buttons.at(-1) ?? $("qp-blocks-title")).focus();
}

$("settings-open")?.addEventListener("click", load);
onLanguageChange(render);
