/**
 * The table's story (docs/online.md "The table's story"): what happened to the seats (the
 * server's `notes`: a drop, a return, the stand-in taking over, a turn timer running out, the
 * host handing a seat to the computer or opening it for someone new) told beside the moves,
 * in the recent-moves log, in the line under the board (always the latest event) and in the
 * spoken announcements; a stand-in's moves as "Computer for ちか"; the "while you were away"
 * summary; every hand left once a round is over; lists joined the way the page's language
 * joins them (`Intl.ListFormat`).
 *
 * Names are typed by people: they only ever reach the page as `textContent`.
 */

import { cardName, rankText } from "../core/cards.js";
import { currentLanguage, t } from "../core/i18n.js";
import { capitalise, isYou, seatName, sentences, stepText } from "../kings-corner/text.js";

const LOG_LINES = 8;
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

function el(tag, className, text = null) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== null) node.textContent = text;
  return node;
}

/** "Ana, Ben and you" / "Ana、Ben、あなた". */
export function listOf(names) {
  try {
    return new Intl.ListFormat(currentLanguage(), { style: "long", type: "conjunction" }).format(names);
  } catch {
    return names.join(", ");
  }
}

/** A seat's name inside a sentence ("you" for this device's one seat). */
export function nameIn(game, seat) {
  return isYou(game, seat) ? t("kc.you_in_list") : seatName(game, seat);
}

/** "60 s": the grace period. */
export function graceText(game) {
  return t("kco.timer_s", { n: Math.round(game.settings.grace) });
}

/** "Computer for ちか" (or "Computer for you"). */
function computerFor(game, seat) {
  if (game.seats[seat].kind === "open") return t("kon.computer_for_seat", { n: seat + 1 });
  const who = isYou(game, seat) ? t("kon.you_obj") : seatName(game, seat);
  return t("kon.computer_for", { who });
}

/** The game as seen with `seat` named "Computer for …" (a stand-in's move, its win). */
function standInGame(game, seats) {
  const named = game.seats.map((s, i) =>
    seats.includes(i) ? { ...s, kind: "person", name: computerFor(game, i) } : s,
  );
  const mine = (game.me?.seats || []).filter((i) => !seats.includes(i));
  return { ...game, seats: named, me: game.me ? { ...game.me, seats: mine } : game.me };
}

/** One sentence for a logged step; a stand-in's or the turn timer's computer says whose. */
export function entryText(game, e) {
  if (e.by) return capitalise(stepText(standInGame(game, [e.seat]), e.seat, e.move));
  return capitalise(stepText(game, e.seat, e.move));
}

/** One sentence for a note (a seat's connection, a stand-in, a timer, the host's action). */
export function noteText(game, note) {
  const you = game.me?.seats.includes(note.seat) && game.me.seats.length === 1;
  const params = { who: note.name || seatName(game, note.seat), n: note.seat + 1, grace: graceText(game) };
  return capitalise(t(`kon.${you ? "note_you" : "note"}.${note.kind}`, params));
}

/** The story of this round, oldest first: log entries and notes in the order they happened. */
export function story(game) {
  const round = game.match?.round;
  const items = game.log.map((e) => ({ key: e.n * 2, entry: e }));
  for (const note of game.notes || []) {
    if (note.round === round) items.push({ key: note.after * 2 + 1, note, v: note.v });
  }
  items.sort((a, b) => a.key - b.key || (a.v || 0) - (b.v || 0));
  return items;
}

/** The latest event of the table, in one sentence (the line under the board). */
export function latestText(game, endSummary) {
  // `endSummary()`: the round's or match's end, asked for only once it is over.
  const items = story(game);
  const last = items[items.length - 1];
  const over = game.phase === "round_over" || game.phase === "match_over";
  // A note after the round's last step happened after the round ended: it is the latest.
  if (over && !last?.note) return endSummary();
  if (!last) return game.match ? t("kon.round_dealt", { n: game.match.round }) : "";
  return last.note ? noteText(game, last.note) : entryText(game, last.entry);
}

/** The recent-moves log with the notes among the moves (newest first). */
export function renderStory(list, game) {
  const recent = story(game).slice(-LOG_LINES).reverse();
  list.replaceChildren(
    ...recent.map((item) => {
      if (item.note) {
        const li = el("li", `log-note note-${item.note.kind}`, noteText(game, item.note));
        li.dataset.note = item.note.kind;
        return li;
      }
      const e = item.entry;
      const li = el("li", `log-${e.move === "end" ? "end" : "move"}${e.by ? " log-stand-in" : ""}`, entryText(game, e));
      li.dataset.move = e.move;
      if (e.by) li.dataset.by = e.by;
      return li;
    }),
  );
}

/** Notes made after version `since` that this device should hear about (not its own drop). */
export function newNotes(game, since) {
  return (game.notes || []).filter((n) => n.v > since && !(game.me?.seats.includes(n.seat) && n.kind === "drop"));
}

/**
 * "While you were away": what happened since the version this device last saw (`seen`:
 * `{v, n, round}`), or null when there is nothing to tell.
 */
export function awaySummary(game, seen) {
  if (!game.me || !seen || game.version <= seen.v) return null;
  const mine = game.me.seats;
  const sameRound = game.match?.round === seen.round;
  const lines = [];
  if (!sameRound && game.match) lines.push(t("kon.away_round", { n: game.match.round }));
  const since = game.log.filter((e) => !sameRound || e.n > seen.n);
  const played = since.filter((e) => e.move !== "end" && !e.move.startsWith("draw-king"));
  if (played.length) lines.push(t("kon.away_moves", { n: played.length }));
  const forMe = played.filter((e) => e.by && mine.includes(e.seat)).length;
  if (forMe) lines.push(t("kon.away_for_you", { n: forMe }));
  for (const note of game.notes || []) {
    if (note.v > seen.v && !mine.includes(note.seat)) lines.push(noteText(game, note));
  }
  return lines.length ? lines : null;
}

/** The end panel's list of every hand left (the server sends them once the round is over). */
export function handsBlock(game) {
  if (!game.hands) return null;
  const box = el("section", "hands-left");
  box.setAttribute("aria-labelledby", "hands-title");
  box.append(el("h3", "hands-title", t("kon.hands_title")));
  box.lastChild.id = "hands-title";
  const ul = el("ul", "hands-list");
  game.hands.forEach((cards, seat) => {
    const li = el("li", "hand-left");
    li.dataset.seat = String(seat);
    li.append(el("span", "hand-left-who", `${capitalise(seatName(game, seat))}: `));
    if (!cards.length) li.append(el("span", "hand-left-none", t("kon.hand_empty")));
    for (const code of cards) {
      const card = el("span", `mini-card suit-${code[1]}`, `${rankText(code[0])}${SUITS[code[1]]}`);
      card.setAttribute("role", "img");
      card.setAttribute("aria-label", cardName(code));
      card.dataset.card = code;
      li.append(card);
    }
    ul.append(li);
  });
  box.append(ul);
  return box;
}

/** The end summary, with a stand-in still playing an away seat named as the computer. */
export function standInSummary(game, endSummary) {
  const standing = game.seats.map((s, i) => (s.kind === "person" && s.stand_in ? i : -1)).filter((i) => i >= 0);
  return endSummary(standing.length ? standInGame(game, standing) : game);
}

/** The line about absent seats on the table (with the grace period's length). */
export function presenceText(game) {
  const parts = [];
  game.seats.forEach((s, seat) => {
    if (game.me?.seats.includes(seat) || s.local) return;
    const who = seatName(game, seat);
    if (s.kind === "person" && s.connection === "reconnecting") {
      parts.push(t("kon.presence.reconnecting", { who, grace: graceText(game) }));
    } else if (s.kind === "person" && s.connection === "away") {
      // Turn-based: away is how people usually are; only a seat the computer plays is news.
      if (game.settings?.pace !== "turn" || s.stand_in) parts.push(t("kon.presence.away", { who }));
    } else if (s.kind === "open" && game.phase !== "lobby") {
      parts.push(t("kon.presence.open", { n: seat + 1 }));
    }
  });
  return sentences(parts);
}
