/**
 * The Kings Corner settings form (SPEC KC-26): players, each seat a person or the computer
 * with its strength, a rule set or custom options, rounds. It reads the form into the body of
 * POST /api/kings-corner/games and shows what the chosen rule set means. A seat may also be "a
 * friend (invite)": the form then shows the online options (your name, the pace: live with its
 * turn timer or turn-based with hours or days a turn, the stand-in computer) and reads into the
 * body of POST /api/kings-corner/online instead.
 */

import { t } from "../core/i18n.js";
import { rulesOptions } from "./text.js";

export const PRESETS = {
  standard: { draw: "first", pile_moves: true, kings: "optional", dealt_kings: "stay" },
  "draw-last": { draw: "last", pile_moves: true, kings: "first", dealt_kings: "stay" },
  simple: { draw: "first", pile_moves: false, kings: "optional", dealt_kings: "corner" },
};

/** The name of the rule set `rules` are ("standard", ...), or "custom". */
export function presetOf(rules) {
  for (const [name, p] of Object.entries(PRESETS)) {
    if (Object.keys(p).every((k) => p[k] === rules[k])) return name;
  }
  return "custom";
}

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

/** True when a shown seat is "a friend (invite)": the form then creates an online table. */
function online() {
  const players = Number(value("players") || 2);
  for (let i = 1; i < players; i++) if ($(`seat-${i}`).value === "invite") return true;
  return false;
}

/** Shows the seat rows for the chosen number of players and the chosen rule set's meaning. */
export function refreshSetup() {
  const players = Number(value("players") || 2);
  for (const row of document.querySelectorAll("[data-seat-row]")) {
    row.hidden = Number(row.dataset.seatRow) >= players;
  }
  const invite = online();
  const note = $("seats-note");
  // Against the computer alone nobody shares the device: no word of hidden hands.
  let people = false;
  for (let i = 1; i < players; i++) if ($(`seat-${i}`).value === "human") people = true;
  note.dataset.i18n = invite ? "kc.seats_note_online" : people ? "kc.seats_note" : "kc.seats_note_computer";
  note.textContent = t(note.dataset.i18n);
  $("friends-box").hidden = invite;
  $("online-options").hidden = !invite;
  // Live: the short turn timer; turn-based: hours or days a turn (docs/online.md).
  const turnBased = value("pace") === "turn";
  $("live-timer-row").hidden = turnBased;
  $("turn-length-row").hidden = !turnBased;
  $("pace-note").hidden = !turnBased;
  $("host-name").required = invite;
  $("start-btn").textContent = t(invite ? "kco.create" : "kc.start");
  const preset = value("preset");
  const custom = preset === "custom";
  $("custom-rules").hidden = !custom;
  const rules = custom ? customRules() : PRESETS[preset];
  $("preset-summary").textContent = t("kc.preset_summary", { options: rulesOptions(rules) });
}

/** "Play with friends": every seat but yours becomes "a friend (invite)". */
export function inviteFriends() {
  for (const select of document.querySelectorAll("[data-seat-row] select")) select.value = "invite";
  refreshSetup();
}

/** The body of POST /api/kings-corner/online from the form (docs/online.md). */
function readOnline(rules, rounds) {
  const players = Number(value("players") || 2);
  const seats = [{ kind: "me" }];
  for (let i = 1; i < players; i++) {
    const choice = $(`seat-${i}`).value;
    if (choice === "invite") seats.push({ kind: "invite" });
    else if (choice === "human") seats.push({ kind: "local" });
    else seats.push({ kind: "computer", strength: choice.split(":")[1] });
  }
  const timer = value("turn_timer");
  const pace = value("pace") === "turn" ? "turn" : "live";
  return {
    name: $("host-name").value.trim(),
    seats,
    rules,
    rounds,
    pace,
    turn_timer: pace === "turn" ? Number(value("turn_length")) : timer === "off" || !timer ? null : Number(timer),
    stand_in: $("stand-in").value,
  };
}

/** The body of a new game from the form; with an invite seat `{online: body}` instead. */
export function readSetup() {
  const players = Number(value("players") || 2);
  const seats = [{ kind: "human" }];
  for (let i = 1; i < players; i++) {
    const choice = $(`seat-${i}`).value;
    seats.push(
      choice === "human" || choice === "invite"
        ? { kind: "human" }
        : { kind: "computer", strength: choice.split(":")[1] },
    );
  }
  const preset = value("preset");
  const rules = preset === "custom" ? customRules() : { preset };
  const rounds = Number(value("rounds") || 1);
  if (online()) return { online: readOnline(rules, rounds) };
  return { seats, rules, rounds };
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
