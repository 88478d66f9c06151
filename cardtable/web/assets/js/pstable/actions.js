/**
 * What this device does at a Poker Squares table: join, leave, start, place the card on show,
 * rematch. Each is one POST (api.js) run one at a time; its answer, the table, is taken in
 * (change.js). The page decides no rule: a refusal (409) is said in the server's words for it
 * and the table fetched again.
 */

import { cardName } from "../core/cards.js";
import { announce, errorRouter, showError } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { serialRunner } from "../core/page.js";
import { psTableApi } from "./api.js";
import { adopt, gone } from "./change.js";
import { fieldMessage, nameFrom } from "./create.js";
import { cellName } from "./play.js";
import { mayPlace, state } from "./state.js";

const $ = (id) => document.getElementById(id);

export async function refresh() {
  if (!state.token) return;
  try {
    adopt(await psTableApi.get(state.token), { own: true });
  } catch (err) {
    if (err.code === "not_found") gone();
  }
}

function refuse(key) {
  return () => {
    showError(key);
    refresh();
  };
}

const handleError = errorRouter({
  stale_card: refuse("pst.error.stale_card"),
  already_placed: refuse("pst.error.already_placed"),
  illegal_move: refuse("pst.error.illegal_move"),
  not_seated: refuse("pst.error.not_seated"),
  wrong_phase: refuse("kco.error.wrong_phase"),
  table_full: refuse("kco.error.table_full"),
  not_host: refuse("kco.error.not_host"),
  invalid_name() {
    fieldMessage($("join-name"), t("kco.error.invalid_name"));
  },
  not_found: gone,
});

const run = serialRunner(state, handleError);

/** Runs one POST; its table is taken in, then `after(table)`. */
function act(send, after = null) {
  if (!state.token) return Promise.resolve();
  return run(async () => {
    const next = await send(state.token);
    showError(null);
    adopt(next, { own: true });
    if (after) after(next);
  });
}

export function join() {
  const name = nameFrom($("join-name"));
  if (name)
    act(
      (token) => psTableApi.join(token, name),
      () => $("lobby-title").focus(),
    );
}

export function leave() {
  act((token) => psTableApi.leave(token));
}

export function start() {
  act((token) => psTableApi.start(token));
}

export function rematch() {
  act(
    (token) => psTableApi.rematch(token),
    () => announce(t("pst.rematch_you_ready")),
  );
}

/** Places the card on show at (row, col) of this device's grid. */
export function place(row, col) {
  const table = state.table;
  if (!mayPlace(table)) return;
  const card = table.card;
  act(
    (token) => psTableApi.place(token, card.index, cellName(row, col)),
    () => announce(t("ps.placed", { card: cardName(card.card), row: row + 1, col: col + 1 })),
  );
}
