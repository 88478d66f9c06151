/**
 * A new Poker Squares table (the page opened without an invite link): the player's name
 * (remembered as the Kings Corner online form remembers it), the point table and the time per
 * card; Create opens the new table's lobby. The room-code form beside it is online/code.js's.
 */

import { showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { storageGet, storageSet } from "../core/settings.js";
import { NAME_KEY } from "../online/state.js";
import { psTableApi, TABLE_PAGE } from "./api.js";

const $ = (id) => document.getElementById(id);

/** Shows `text` under a name field (or clears it), tied to the field for screen readers. */
export function fieldMessage(input, text) {
  const msg = $(`${input.id}-msg`);
  msg.textContent = text || "";
  msg.hidden = !text;
  if (text) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", msg.id);
  } else {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  }
}

/** The name typed in `input`, remembered; null (and the field says why) when empty. */
export function nameFrom(input) {
  const name = input.value.trim();
  if (!name) {
    fieldMessage(input, t("kco.error.name_needed"));
    input.focus();
    return null;
  }
  fieldMessage(input, null);
  storageSet(NAME_KEY, name);
  return name;
}

/** The remembered name, for a name field. */
export function rememberedName() {
  return storageGet(NAME_KEY) || "";
}

async function create(form, input) {
  const name = nameFrom(input);
  if (!name) return;
  const data = new FormData(form);
  const seconds = data.get("card_seconds");
  const button = $("create-btn");
  button.disabled = true;
  try {
    const made = await psTableApi.create({
      name,
      table: data.get("table"),
      card_seconds: seconds === "off" ? null : Number(seconds),
    });
    showError(null);
    location.assign(`${TABLE_PAGE}#${made.token}`);
  } catch (err) {
    if (err.code === "invalid_name") fieldMessage(input, t("kco.error.invalid_name"));
    else
      showError(
        err.code === "rate_limited" ? "error.rate_limited" : err.code === "network" ? "error.network" : "error.unknown",
      );
  } finally {
    button.disabled = false;
  }
}

/** Wires the create form. */
export function wireCreate() {
  const form = $("create-form");
  const input = $("create-name");
  input.value = rememberedName();
  input.addEventListener("input", () => fieldMessage(input, null));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    create(form, input);
  });
}
