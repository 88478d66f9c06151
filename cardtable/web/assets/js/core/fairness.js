/**
 * Provably fair shuffles in the browser (docs/fairness.md): the commitment check and the
 * shuffle recomputed with WebCrypto, what this browser saw before the reveal, and the link to
 * the "verify this shuffle" page (verify.html, values in the URL fragment).
 *
 * The shuffle: a byte stream SHA-256(seed || u32be(0)) || SHA-256(seed || u32be(1)) || ...
 * read as 32-bit big-endian words drives a Fisher-Yates shuffle of the 52 cards in suit-major
 * order (AS..KS, AH..KH, AD..KD, AC..KC) from the last position down, with rejection sampling:
 * for position i (51 down to 1) and n = i + 1, words at or above 2^32 - (2^32 mod n) are
 * skipped and j = word mod n. The first card of the result is dealt first.
 *
 * Records: every game answer passes through `noteFairness` (api.js; the online page passes
 * each live push too). While a deal's or round's seed is still hidden, its commitment is
 * recorded in this browser (localStorage, the newest 30), with the Poker Squares cards in the
 * order they were turned and the Kings Corner hand as dealt (seen in the round's first turn),
 * so the verify page can show that the commitment came before the cards.
 */

import { storageGet, storageSet } from "./settings.js";

export const ALGORITHM_NAME = "cardtable-fair-shuffle/1";
const RANKS = "A23456789TJQK";
const SUITS = "SHDC";
const STORE = "cardtable.fair";
const KEEP = 30;

/** The card code ("TH") of a deck index 0-51 (suit-major, Ace first). */
export function cardCode(index) {
  return RANKS[index % 13] + SUITS[Math.floor(index / 13)];
}

function hexBytes(text, size, what) {
  if (typeof text !== "string" || !new RegExp(`^[0-9a-f]{${size * 2}}$`).test(text)) {
    throw new Error(`${what} must be ${size * 2} lowercase hex digits`);
  }
  const out = new Uint8Array(size);
  for (let k = 0; k < size; k++) out[k] = Number.parseInt(text.slice(2 * k, 2 * k + 2), 16);
  return out;
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** SHA-256(seed bytes || salt bytes) as lowercase hex. */
export async function commitmentOf(seedHex, saltHex) {
  const seed = hexBytes(seedHex, 32, "seed");
  const salt = hexBytes(saltHex, 16, "salt");
  const joined = new Uint8Array(48);
  joined.set(seed);
  joined.set(salt, 32);
  return hex(await sha256(joined));
}

/** The deck order (indices 0-51, first dealt first) the seed gives. */
export async function fairOrder(seedHex) {
  const seed = hexBytes(seedHex, 32, "seed");
  const input = new Uint8Array(36);
  input.set(seed);
  const view = new DataView(input.buffer);
  let counter = 0;
  let block = null;
  let at = 8;
  const next = async () => {
    if (at === 8) {
      view.setUint32(32, counter++);
      const digest = await sha256(input);
      block = new DataView(digest.buffer);
      at = 0;
    }
    return block.getUint32(4 * at++);
  };
  const deck = Array.from({ length: 52 }, (_, i) => i);
  const WORD = 2 ** 32;
  for (let i = 51; i > 0; i--) {
    const n = i + 1;
    const limit = WORD - (WORD % n);
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** The shuffled deck as card codes. */
export async function fairDeck(seedHex) {
  return (await fairOrder(seedHex)).map(cardCode);
}

// -- what this browser saw ------------------------------------------------------------------
function readAll() {
  try {
    const data = JSON.parse(storageGet(STORE) || "{}");
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

function writeAll(data) {
  const keys = Object.keys(data).sort((a, b) => (data[b].at || 0) - (data[a].at || 0));
  const kept = Object.fromEntries(keys.slice(0, KEEP).map((k) => [k, data[k]]));
  // Without storage this lives in memory: the verify page then has no record of it.
  storageSet(STORE, JSON.stringify(kept));
}

/** The record of a commitment this browser saw before its reveal, or null. */
export function recordOf(commitment) {
  return readAll()[commitment] || null;
}

/** Notes a game answer (any API answer may be passed: others are ignored). */
export function noteFairness(data) {
  if (data?.poker_squares !== undefined || data?.kings_corner !== undefined) {
    // "Continue": the unfinished game of each kind.
    noteFairness(data.poker_squares);
    noteFairness(data.kings_corner);
    return;
  }
  const game = data?.game?.view ? data.game : data?.current?.view ? data.current : data;
  const view = game?.view;
  const fair = view?.fairness;
  if (!fair || typeof fair.commitment !== "string") return;
  const all = readAll();
  let rec = all[fair.commitment];
  if (!rec) {
    if (fair.seed) return; // first seen after the reveal: nothing to vouch for
    rec = { at: Date.now(), cards: [] };
  }
  if (view.game === "poker-squares" && view.card && !rec.cards.includes(view.card)) {
    rec.cards.push(view.card);
  }
  if (view.game === "kings-corner" && !rec.hand && view.seat !== null && view.turn === 1) {
    // The hand as dealt: in the round's first turn the seat to play's hand as that turn began
    // (it may hold the first draw), any other seat's hand untouched. A device that first sees
    // the round later (an online table joined mid-round, another browser) records no hand.
    const hand = view.seat === view.to_play ? view.turn_start?.hand : view.hand;
    if (Array.isArray(hand) && hand.length) {
      rec.hand = hand;
      rec.seat = view.seat;
    }
  }
  all[fair.commitment] = rec;
  writeAll(all);
}

/** "verify.html#..." for a finished deal or round (its seed revealed), or null. */
export function verifyHref(view) {
  const fair = view?.fairness;
  if (!fair?.seed || !fair.salt) return null;
  const rec = recordOf(fair.commitment);
  const p = new URLSearchParams({ seed: fair.seed, salt: fair.salt, commitment: fair.commitment });
  if (rec) p.set("before", fair.commitment);
  if (view.game === "poker-squares") {
    p.set("game", "ps");
    const grid = view.grid.flat().filter(Boolean);
    const ordered = rec && rec.cards.length === grid.length && grid.every((c) => rec.cards.includes(c));
    p.set("cards", (ordered ? rec.cards : grid).join(" "));
    if (!ordered) p.set("any", "1");
  } else {
    p.set("game", "kc");
    p.set("players", String(view.players));
    if (rec?.hand) {
      p.set("seat", String(rec.seat));
      p.set("hand", rec.hand.join(" "));
    }
    if (fair.round) p.set("round", String(fair.round));
  }
  return `verify.html#${p.toString()}`;
}

/**
 * Every check of the verify page: `{ checks: [{ key, ok }], deck }` where `ok` is true, false
 * or null (nothing to check). `values`: seed, salt, commitment, before, game, cards, any,
 * players, seat, hand (card lists as arrays of codes).
 */
export async function verifyValues(values) {
  const checks = [];
  const computed = await commitmentOf(values.seed, values.salt);
  checks.push({ key: "commitment", ok: computed === String(values.commitment).toLowerCase() });
  checks.push({ key: "before", ok: values.before ? values.before === values.commitment : null });
  const deck = await fairDeck(values.seed);
  const out = { checks, deck, commitment: computed };
  if (values.game === "ps") {
    const cards = values.cards || [];
    const first = deck.slice(0, cards.length);
    let ok = null;
    if (cards.length) {
      ok = values.any
        ? new Set(cards).size === cards.length && cards.every((c) => first.includes(c))
        : cards.every((c, k) => c === first[k]);
    }
    checks.push({ key: values.any ? "cards_any" : "cards", ok });
    out.dealt = deck.slice(0, 25);
  } else {
    const players = Number(values.players) || 2;
    const seat = Number(values.seat) || 0;
    const dealt = deck.slice(seat * 7, seat * 7 + 7);
    const hand = values.hand || [];
    checks.push({ key: "hand", ok: hand.length ? dealt.every((c) => hand.includes(c)) && hand.length <= 8 : null });
    out.dealt = dealt;
    out.centre = deck.slice(players * 7, players * 7 + 4);
  }
  return out;
}
