/**
 * The end of a Kings Corner round and of a match: how the round ended, every hand's penalty
 * (Kings 10, other cards 1), the totals, the winner or the tie, and the way on (next round,
 * the same settings again, a new match). Penalties and winners come from the server.
 */

import { el, verifyLink } from "../core/game-end.js";
import { t } from "../core/i18n.js";
import { isYou, seatName, sentences } from "./text.js";

/** "you and Computer 3": names inside a sentence. */
export function namesOf(game, seats) {
  return seats.map((s) => (isYou(game, s) ? t("kc.you_in_list") : seatName(game, s))).join(t("kc.and"));
}

/** "Computer 2 wins the match." or, for the one person at the table, "You win the match." */
function winText(game, key, seat) {
  return isYou(game, seat) ? t(`${key}_you`) : t(key, { who: seatName(game, seat) });
}

/** The sentence that sums up a finished round or match, also used for the announcement. */
export function endSummary(game) {
  const view = game.view;
  const match = game.match;
  const parts = [];
  const winners = view.winners || [];
  if (view.ending === "out") parts.push(winText(game, "kc.went_out", winners[0]));
  else parts.push(t("kc.blocked"));
  if (view.ending !== "out") {
    parts.push(
      winners.length > 1
        ? t("kc.round_tie", { who: namesOf(game, winners) })
        : winText(game, "kc.round_winner", winners[0]),
    );
  }
  if (game.phase === "match_over" && match.winners) {
    parts.push(
      match.winners.length > 1
        ? t("kc.match_tie", { who: namesOf(game, match.winners) })
        : winText(game, "kc.match_winner", match.winners[0]),
    );
  }
  return sentences(parts);
}

/**
 * Draws the end panel. `handlers`: `onNextRound`, `onNewMatch`, `onRematch` for the local
 * game's buttons, or `actions(game)` giving the page's own nodes for the way on.
 */
export function renderEnd(section, game, handlers) {
  const match = game.match;
  const over = game.phase === "match_over";
  const title = el(
    "h2",
    { id: "end-title", tabindex: "-1" },
    over ? t("kc.match_over_title") : t("kc.round_over_title", { round: match.round, rounds: match.rounds }),
  );
  const summary = el("p", { id: "end-summary", class: "end-summary" }, endSummary(game));

  const table = el("table", { id: "end-table", class: "end-table" });
  const caption = el("caption", {}, t("kc.penalty_caption"));
  const head = el("tr");
  head.append(el("th", { scope: "col" }, t("kc.col_player")));
  head.append(
    ...match.results.map((_, i) => {
      // "Round 1" in full; narrow screens show "R1" (the full words stay for screen readers).
      const th = el("th", { scope: "col", class: "num" });
      th.append(el("span", { class: "col-long" }, t("kc.col_round", { n: i + 1 })));
      th.append(el("span", { class: "col-short", "aria-hidden": "true" }, t("kc.col_round_short", { n: i + 1 })));
      return th;
    }),
  );
  head.append(el("th", { scope: "col", class: "num" }, t("kc.col_total")));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  const best = new Set(over ? match.winners || [] : game.view.winners || []);
  game.seats.forEach((_, seat) => {
    const tr = el("tr", { "data-seat": String(seat) });
    if (best.has(seat)) tr.classList.add("winner");
    const name = el("th", { scope: "row" }, seatName(game, seat));
    if (best.has(seat)) name.append(el("span", { class: "win-mark" }, ` ★ ${t("kc.winner_tag")}`));
    tr.append(name);
    match.results.forEach((r, i) => {
      const penalty = String(r.penalties[seat]);
      const td = el("td", { class: "num", "data-round": String(i + 1), "data-penalty": penalty }, penalty);
      if (i === match.results.length - 1) td.classList.add("current");
      tr.append(td);
    });
    tr.append(el("td", { class: "num total", "data-total": String(match.totals[seat]) }, String(match.totals[seat])));
    body.append(tr);
  });
  table.append(caption, thead, body);
  const wrap = el("div", { class: "table-scroll" });
  wrap.append(table);
  const note = el("p", { class: "note" }, t("kc.penalty_note"));

  const actions = el("p", { class: "end-actions" });
  if (handlers.actions) {
    // The page's own way on (an online table: next round, the rematch with who is ready).
    actions.append(...handlers.actions(game));
    section.replaceChildren(title, summary, wrap, note, actions);
    return;
  }
  const { onNextRound, onNewMatch, onRematch } = handlers;
  if (over) {
    const again = el("button", { type: "button", id: "rematch-btn", class: "primary" }, t("kc.rematch"));
    again.addEventListener("click", onRematch);
    const fresh = el("button", { type: "button", id: "new-match-btn" }, t("kc.new_match"));
    fresh.addEventListener("click", onNewMatch);
    actions.append(again, fresh);
  } else {
    const label = t("kc.next_round", { n: match.round + 1 });
    const next = el("button", { type: "button", id: "next-round-btn", class: "primary" }, label);
    next.addEventListener("click", onNextRound);
    actions.append(next);
  }
  const replayHref = `kc-replay.html?game=${encodeURIComponent(game.id)}&round=${match.results.length}`;
  actions.append(el("a", { class: "button", id: "replay-round-btn", href: replayHref }, t("kr.replay_btn")));
  const verify = verifyLink(game.view);
  if (verify) actions.append(verify);
  section.replaceChildren(title, summary, wrap, note, actions);
}
