/**
 * Poker Squares (docs/api.md, "Poker Squares") on behalf of this browser's player, through
 * core/api.js's `call`: every change is sent with the version it was made against.
 */

import { call } from "../core/api.js";

const PS = "/api/poker-squares/games";
const psPath = (game, action) => `${PS}/${encodeURIComponent(game.id)}/${action}`;

export const psApi = {
  create: (table, target, replayOf = null, replaceCounted = false) =>
    call("POST", PS, { table, target, replay_of: replayOf, replace_counted: replaceCounted }),
  get: (id) => call("GET", `${PS}/${encodeURIComponent(id)}`),
  place: (game, row, col) => call("POST", psPath(game, "moves"), { version: game.version, row, col }),
  undo: (game) => call("POST", psPath(game, "undo"), { version: game.version }),
  hint: (game) => call("POST", psPath(game, "hint"), { version: game.version }),
  scores: () => call("GET", "/api/poker-squares/scores"),
};
