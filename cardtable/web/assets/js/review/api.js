/**
 * The review routes (docs/review.md) on behalf of this browser's player. A review page is
 * reached from a finished game, so the player id is already stored (core/api.js made it); without
 * one there is nothing to review and the call fails as `no_player`.
 */

import { ApiError, noteRevoked, request, storedPlayer } from "../core/api.js";

/** A review call with the stored id (never a new one); a signed-out device gets the dialog. */
async function call(method, path) {
  const id = storedPlayer();
  if (!id) throw new ApiError(401, { code: "no_player" });
  try {
    return await request(method, path, undefined, id);
  } catch (err) {
    if (err.code === "revoked") noteRevoked();
    throw err;
  }
}

const PS = "/api/review/poker-squares";

export const reviewApi = {
  startPokerSquares: (id) => call("POST", `${PS}/${encodeURIComponent(id)}/start`),
  pokerSquares: (id) => call("GET", `${PS}/${encodeURIComponent(id)}`),
  kingsCornerRound: (id, round) =>
    call("GET", `/api/review/kings-corner/${encodeURIComponent(id)}/rounds/${encodeURIComponent(round)}`),
  onlineRound: (token, round) =>
    call("GET", `/api/kings-corner/online/${encodeURIComponent(token)}/rounds/${encodeURIComponent(round)}`),
};

/** The `name` parameter of this page's address, or null. */
export function pageParam(name) {
  return new URLSearchParams(window.location.search).get(name);
}

/** Steps with ← → Home End anywhere on the page except in form fields other than the slider. */
export function stepKeys(slider, go) {
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target !== slider && target.closest?.("input, textarea, select, dialog")) return;
    const value = Number(slider.value);
    const moves = {
      ArrowLeft: value - 1,
      ArrowRight: value + 1,
      Home: Number(slider.min),
      End: Number(slider.max),
    };
    if (!(ev.key in moves)) return;
    ev.preventDefault();
    go(Math.max(Number(slider.min), Math.min(Number(slider.max), moves[ev.key])));
  });
  slider.addEventListener("input", () => go(Number(slider.value)));
}
