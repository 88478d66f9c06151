/**
 * The quick-play form on the home page (templates/_quickplay.html): how many players (2, 3, 4
 * or any), the rules preset, the name others see, and Play. The name is the one this browser
 * joins online tables with (online/state.js `NAME_KEY`), and the last players and preset chosen
 * are remembered too, so a second match is one press.
 */

import { storageGet, storageSet } from "../core/settings.js";
import { NAME_KEY } from "../online/state.js";

/** Where this browser keeps the last quick-play choices ({"players": "3", "preset": "simple"}). */
const CHOICE_KEY = "cardtable.quickPlay";
const PRESETS = ["standard", "draw-last", "simple"];
const PLAYERS = ["2", "3", "4", "any"];

const $ = (id) => document.getElementById(id);

function remembered() {
  try {
    const saved = JSON.parse(storageGet(CHOICE_KEY) || "{}");
    return saved && typeof saved === "object" ? saved : {};
  } catch {
    return {};
  }
}

/** Puts the remembered name and choices into the form and calls `onPlay()` on submit. */
export function wireForm(onPlay) {
  const saved = remembered();
  if (PLAYERS.includes(saved.players)) {
    document.querySelector(`input[name="qp-players"][value="${saved.players}"]`).checked = true;
  }
  if (PRESETS.includes(saved.preset)) $("qp-preset").value = saved.preset;
  $("qp-name").value = storageGet(NAME_KEY) || "";
  $("qp-name").addEventListener("input", () => nameMessage(null));
  $("qp-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    onPlay();
  });
}

/** What the form asks for: `{players: 2|3|4|null, preset, name}` (the name trimmed). */
export function readForm() {
  const players = document.querySelector('input[name="qp-players"]:checked')?.value ?? "any";
  return {
    players: players === "any" ? null : Number(players),
    preset: $("qp-preset").value,
    name: $("qp-name").value.trim(),
  };
}

/** Keeps the choices and the name for next time (the online tables' join fields use the name). */
export function rememberForm(choice) {
  const players = choice.players === null ? "any" : String(choice.players);
  storageSet(CHOICE_KEY, JSON.stringify({ players, preset: choice.preset }));
  storageSet(NAME_KEY, choice.name);
}

/** A message under the name field (null clears it): the field is marked invalid and described
 * by it, as the online tables' name fields are. */
export function nameMessage(text) {
  const input = $("qp-name");
  const msg = $("qp-name-msg");
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
