/**
 * The rating routes (docs/rating.md, "API") on behalf of this browser's player, through
 * core/api.js's `call`.
 */

import { call } from "../core/api.js";

export const ratingApi = {
  me: () => call("GET", "/api/ratings/me"),
  board: () => call("GET", "/api/ratings/board"),
};
