/**
 * Choosing at a Kings Corner table, shared by the local screen (main.js) and the online one
 * (online/main.js): a hand card or a movable pile is chosen, the legal targets are outlined, a
 * target plays the move, anything else says why not (the server's `view.refusals`). The legal
 * moves come only from the server (`view.legal_moves`); `state.selection` holds the choice.
 */

import { cardName } from "../core/cards.js";
import { announce } from "../core/feedback.js";
import { t } from "../core/i18n.js";
import { parseMove, pileName, pileRef, refusalText } from "./text.js";

/** Kings first holds the player back: the server refuses a card "kings_first". */
export function kingsFirst(v) {
  return Object.values(v.refusals?.cards || {}).some((row) => Object.values(row).some((r) => r.key === "kings_first"));
}

/**
 * `state` has `game` (with `view`) and `selection`; `legal()` the moves the player may make
 * now (none when it is not their turn); `blocked()` true (after saying why) when the player
 * may not choose now; `focusPile(name)` moves the keyboard to a pile; `render()`, `say(text)` and `play(move, keyboard)` belong to the page.
 * The functions below take these `hooks` first.
 */
export function createChooser(hooks) {
  return {
    analyse: () => analyse(hooks),
    keepSelection: () => keepSelection(hooks),
    cancel: (quiet = false) => cancel(hooks, quiet),
    chooseCard: (code, ev) => chooseCard(hooks, code, ev),
    choosePile: (pile, ev) => choosePile(hooks, pile, ev),
  };
}

/** What the legal moves say about the hand and the piles. */
function analyse({ state, legal }) {
  const moves = legal();
  const playable = new Set();
  const movable = new Set();
  for (const m of moves) {
    const p = parseMove(m);
    if (p.kind === "play") playable.add(p.card);
    else if (p.kind === "shift") movable.add(p.from);
  }
  const targets = new Set();
  const sel = state.selection;
  if (sel) {
    const prefix = sel.kind === "card" ? `${sel.card}>` : `${sel.pile}>`;
    for (const m of moves) if (m.startsWith(prefix)) targets.add(m.slice(prefix.length));
  }
  return { moves, playable, movable, targets };
}

/** A selection survives a new game state only while it is still something to choose. */
function keepSelection(hooks) {
  const { state, legal } = hooks;
  const sel = state.selection;
  if (!sel) return;
  const ok =
    sel.kind === "card"
      ? (state.game.view?.hand || []).includes(sel.card) && legal().length > 0
      : analyse(hooks).movable.has(sel.pile);
  if (!ok) state.selection = null;
}

function cancel({ state, render, focusPile, say }, quiet = false) {
  const sel = state.selection;
  if (!sel) return;
  state.selection = null;
  render();
  if (!quiet) {
    // Focus goes back to what was chosen (issue 44): the targets it had moved to are
    // targets no more, and the next Tab goes on from the hand or the pile.
    const card = sel.kind === "card" && document.querySelector(`#hand .hand-card[data-card="${sel.card}"]`);
    if (card) card.focus();
    else if (sel.kind === "pile") focusPile(sel.pile);
    say(t("kc.cancelled"));
    announce(t("kc.cancelled"));
  }
}

function focusFirstTarget(hooks) {
  const first = [...analyse(hooks).targets][0];
  if (first) hooks.focusPile(first);
}

function chooseCard(hooks, code, ev) {
  const { state, blocked, render, say } = hooks;
  if (blocked()) return;
  const keyboard = ev && ev.detail === 0;
  if (state.selection?.kind === "card" && state.selection.card === code) {
    cancel(hooks);
    return;
  }
  state.selection = { kind: "card", card: code };
  const a = analyse(hooks);
  render();
  const piles = [...a.targets].map(pileRef).join(t("kc.or"));
  const text = a.targets.size
    ? t("kc.choose_target", { card: cardName(code), piles })
    : t("kc.no_target", { card: cardName(code) });
  say(a.targets.size > 1 ? t("kc.choose_outlined", { card: cardName(code) }) : text);
  announce(text);
  if (keyboard && a.targets.size) focusFirstTarget(hooks);
}

/** Why the chosen card or pile may not go on `pile`, in the server's words. */
function whyNot(state, pile) {
  const sel = state.selection;
  const v = state.game.view;
  const refused = v.refusals || {};
  const row = sel.kind === "card" ? refused.cards?.[sel.card] : refused.piles?.[sel.pile];
  const refusal = row?.[pile];
  return refusal ? refusalText(refusal, pile, v.accepts[pile]) : t("kc.why.not_here");
}

function choosePile(hooks, pile, ev) {
  const { state, blocked, say, play } = hooks;
  if (blocked()) return;
  const keyboard = ev && ev.detail === 0;
  const a = analyse(hooks);
  const sel = state.selection;
  if (sel && a.targets.has(pile)) {
    play(sel.kind === "card" ? `${sel.card}>${pile}` : `${sel.pile}>${pile}`, keyboard);
    return;
  }
  if (sel?.kind === "pile" && sel.pile === pile) {
    cancel(hooks);
    return;
  }
  if (a.movable.has(pile)) {
    choosePileToMove(hooks, pile, keyboard);
    return;
  }
  const text = sel ? whyNot(state, pile) : t("kc.choose_card_first");
  say(text);
  announce(text);
}

/** A movable pile chosen: its targets are outlined and said. */
function choosePileToMove(hooks, pile, keyboard) {
  const { state, render, say } = hooks;
  state.selection = { kind: "pile", pile };
  const targets = analyse(hooks).targets;
  render();
  const piles = [...targets].map(pileRef).join(t("kc.or"));
  const text = t("kc.choose_pile_target", { pile: pileName(pile), piles });
  say(targets.size > 1 ? t("kc.choose_outlined", { card: t("kc.pile_chosen", { pile: pileName(pile) }) }) : text);
  announce(text);
  if (keyboard) focusFirstTarget(hooks);
}
