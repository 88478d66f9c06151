/**
 * The parts of the Poker Squares screen (main.js) around the board (board.js): the current card
 * and the deal's facts, the caption of a highlighted line, the legend of the hint marks, the
 * controls, and the setup with Continue and the best scores. Each draws what it is given (the
 * view, or the screen's `state`).
 */

import { cardFaceSvg, cardName } from "../core/cards.js";
import { t } from "../core/i18n.js";
import { countedAttempt, dailyName } from "../daily/attempt.js";
import { formatEstimate, lineName } from "./board.js";
import { bestScoresTable } from "./end.js";

const $ = (id) => document.getElementById(id);

export function renderStatus(view) {
  const current = $("current-card");
  if (view.card) {
    if (current.dataset.card !== view.card) current.innerHTML = cardFaceSvg(view.card);
    current.dataset.card = view.card;
    current.setAttribute("aria-label", t("ps.current_card_name", { card: cardName(view.card) }));
  } else {
    current.innerHTML = "";
    delete current.dataset.card;
    current.setAttribute("aria-label", t("ps.no_card"));
  }
  current.classList.toggle("none", !view.card);
  // The current card is one of the cards left: the stock beside it holds the ones after it.
  const toCome = view.card ? view.cards_left - 1 : 0;
  $("current-label").textContent = t("ps.card_of", { n: view.placed + 1, total: view.placed + view.cards_left });
  $("cards-left").textContent = String(toCome);
  $("deck").setAttribute("aria-label", t("ps.to_come_name", { n: toCome }));
  $("fact-table").textContent = t(`ps.table.${view.table}`);
  $("fact-target").textContent = t("ps.target_value", {
    level: t(`ps.target.${view.target.level}`),
    points: view.target.points,
  });
  $("fact-total").textContent = String(view.total);
  $("practice-marker").hidden = !view.practice;
  $("replay-marker").hidden = !view.replay;
  $("practice-note").hidden = !view.practice || view.is_over;
}

export function renderCaption(view, line) {
  const caption = $("line-caption");
  if (line === null) {
    caption.textContent = "";
    return;
  }
  const points = view.line_scores[line];
  caption.textContent =
    points === null
      ? t("ps.caption_incomplete", { line: lineName(line) })
      : t("ps.caption_line", {
          line: lineName(line),
          hand: t(`hand.${view.line_hands[line]}`),
          n: points,
        });
}

/** The legend of the hint marks, shown while the estimates are: the sample number is the
 * hinted cell's own estimate. */
export function renderLegend(state) {
  const legend = $("hint-legend");
  const hint = state.hint;
  const estimate = hint && state.estimates ? state.estimates.get(`${hint.row},${hint.col}`) : undefined;
  const equal = hint && state.equalCells !== null ? state.equalCells : null;
  legend.hidden = estimate === undefined && equal === null;
  $("legend-est").parentElement.hidden = equal !== null;
  $("legend-equal").hidden = equal === null;
  $("legend-equal").textContent = equal === null ? "" : t("ps.equal_cells", { est: equal });
  $("legend-est").textContent = estimate === undefined ? "" : formatEstimate(estimate);
}

export function renderControls(view, paused) {
  const playing = !view.is_over;
  $("hint-btn").disabled = !playing || paused;
  $("undo-btn").disabled = !view.can_undo || paused;
  $("pause-btn").disabled = !playing;
  $("pause-btn").setAttribute("aria-pressed", String(paused));
  $("pause-label").textContent = t(paused ? "ps.resume" : "ps.pause");
  $("pause-overlay").hidden = !paused;
}

export function renderSetup(state) {
  const box = $("continue-box");
  const game = state.game;
  const unfinished = game && !game.view.is_over;
  box.hidden = !unfinished;
  $("new-note").hidden = !unfinished;
  if (unfinished) {
    $("continue-text").textContent = t("ps.continue_text", {
      placed: game.view.placed,
      table: t(`ps.table.${game.view.table}`),
      total: game.view.total,
    });
  }
  // Today's counted daily attempt says so, and that a new deal asks before replacing it.
  const daily = unfinished ? countedAttempt(game) : null;
  const title = box.querySelector("h2");
  delete title.dataset.i18n;
  title.textContent = daily ? t("daily.continue_title", { name: dailyName(daily) }) : t("ps.continue_title");
  $("new-note").textContent = t(daily ? "daily.continue_note" : "ps.new_note");
  delete $("new-note").dataset.i18n;
  const best = $("best-setup");
  const table = bestScoresTable(state.scores);
  const anyScore =
    state.scores && Object.values(state.scores).some((s) => s && (s.best !== null || s.best_practice !== null));
  best.hidden = !anyScore;
  if (anyScore) {
    const h = document.createElement("h2");
    h.textContent = t("ps.best_title");
    best.replaceChildren(h, table);
  }
}
