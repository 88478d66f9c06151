/**
 * Kings Corner (docs/api.md, "Kings Corner") on behalf of this browser's player, through
 * core/api.js's `call`: every change is sent with the version it was made against.
 */

import { call } from "../core/api.js";

const KC = "/api/kings-corner/games";
const kcPath = (game, action) => `${KC}/${encodeURIComponent(game.id)}/${action}`;

export const kcApi = {
  create: (seats, rules, rounds) => call("POST", KC, { seats, rules, rounds }),
  get: (id) => call("GET", `${KC}/${encodeURIComponent(id)}`),
  move: (game, move) => call("POST", kcPath(game, "moves"), { version: game.version, move }),
  undo: (game) => call("POST", kcPath(game, "undo"), { version: game.version }),
  reveal: (game) => call("POST", kcPath(game, "reveal"), { version: game.version }),
  computerStep: (game) => call("POST", kcPath(game, "computer-step"), { version: game.version }),
  nextRound: (game) => call("POST", kcPath(game, "next-round"), { version: game.version }),
  results: () => call("GET", "/api/kings-corner/results"),
};
