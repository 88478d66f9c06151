/**
 * The Kings Corner settings form (SPEC KC-26): players, each seat a person or the computer
 * with its strength, a rule set or custom options, rounds. It reads the form into the body of
 * POST /api/kings-corner/games and shows what the chosen rule set means.
 */

import { t } from "./i18n.js";
import { rulesOptions } from "./kc-text.js";

const PRESETS = {
  standard: { draw: "first", pile_moves: true, kings: "optional", dealt_kings: "stay" },
  "draw-last": { draw: "last", pile_moves: true, kings: "first", dealt_kings: "stay" },
  simple: { draw: "first", pile_moves: false, kings: "optional", dealt_kings: "corner" },
};

const $ = (id) => document.getElementById(id);

function value(name) {
  const input = document.querySelector(`#setup-form input[name="${name}"]:checked`);
  return input ? input.value : null;
}

function check(name, v) {
  const input = document.querySelector(`#setup-form input[name="${name}"][value="${v}"]`);
  if (input) input.checked = true;
}

function customRules() {
  return {
    draw: value("draw"),
    pile_moves: value("pile_moves") === "on",
    kings: value("kings"),
    dealt_kings: value("dealt_kings"),
  };
}

/** Shows the seat rows for the chosen number of players and the chosen rule set's meaning. */
export function refreshSetup() {
  const players = Number(value("players") || 2);
  for (const row of document.querySelectorAll("[data-seat-row]")) {
    row.hidden = Number(row.dataset.seatRow) >= players;
  }
  const preset = value("preset");
  const custom = preset === "custom";
  $("custom-rules").hidden = !custom;
  const rules = custom ? customRules() : PRESETS[preset];
  $("preset-summary").textContent = t("kc.preset_summary", { options: rulesOptions(rules) });
}

/** The body of a new game from the form. */
export function readSetup() {
  const players = Number(value("players") || 2);
  const seats = [{ kind: "human" }];
  for (let i = 1; i < players; i++) {
    const choice = $(`seat-${i}`).value;
    seats.push(choice === "human" ? { kind: "human" } : { kind: "computer", strength: choice.split(":")[1] });
  }
  const preset = value("preset");
  const rules = preset === "custom" ? customRules() : { preset };
  return { seats, rules, rounds: Number(value("rounds") || 1) };
}

/** Puts a game's settings back into the form (for a new match like the last one). */
export function fillSetup(game) {
  check("players", String(game.seats.length));
  game.seats.forEach((s, i) => {
    if (i > 0) $(`seat-${i}`).value = s.kind === "human" ? "human" : `computer:${s.strength}`;
  });
  const view = game.view;
  if (view.rule_set in PRESETS) check("preset", view.rule_set);
  else {
    check("preset", "custom");
    check("draw", view.rules.draw);
    check("pile_moves", view.rules.pile_moves ? "on" : "off");
    check("kings", view.rules.kings);
    check("dealt_kings", view.rules.dealt_kings);
  }
  check("rounds", String(game.match.rounds));
  refreshSetup();
}

export function wireSetup(onStart) {
  const form = $("setup-form");
  form.addEventListener("change", refreshSetup);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    onStart(readSetup());
  });
  refreshSetup();
}
