/**
 * Quick play (docs/quickplay.md) on behalf of this browser's player, through core/api.js's
 * `call`: join or leave the queue, read where this player stands (idle, waiting, seated), and
 * the player's own list of people quick play never seats them with.
 */

import { call } from "../core/api.js";

const QP = "/api/quick-play";

export const quickApi = {
  /** `players`: 2, 3, 4 or null (any); `preset`: a Kings Corner rules preset id. */
  join: (players, preset, name) => call("POST", QP, { players, preset, name }),
  status: () => call("GET", QP),
  leave: () => call("DELETE", QP),
  blocks: () => call("GET", `${QP}/blocks`),
  block: (token, seat) => call("POST", `${QP}/blocks`, { token, seat }),
  unblock: (id) => call("DELETE", `${QP}/blocks/${encodeURIComponent(id)}`),
};

/** The page of an online table (its invite link). */
export function tableUrl(token) {
  return `kings-corner-online.html#${encodeURIComponent(token)}`;
}
