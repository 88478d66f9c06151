/**
 * Entry module of link.html (docs/devices.md): the transfer link `link.html#ABCD-EFGH` a QR
 * code or a copied link opens. It reads the code from the fragment (and drops it from the
 * address, so it stays out of the history), asks first when this browser has games of its own,
 * claims the code, then shows what the record continues. Without a usable code, or after a
 * refusal, it offers the code form. The strings are the devices bundle, which shell/boot.js adds
 * (the page has the settings dialog).
 */

import "../shell/boot.js";
import { api } from "../core/api.js";
import { t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { askReplace, claim, claimForm, el, normaliseCode, ownRecordInUse, refusalText, switchTo } from "./claim.js";

const $ = (id) => document.getElementById(id);
let games = null;

function say(text) {
  $("link-status").textContent = text;
}

function renderDone() {
  if (!games) return;
  const items = [];
  const ps = games.poker_squares;
  if (ps && !ps.view.is_over) {
    items.push(["poker-squares.html", t("devices.link_ps", { placed: ps.view.placed }), "link-continue-ps"]);
  }
  const kc = games.kings_corner;
  if (kc && kc.phase !== "match_over") {
    const text = t("devices.link_kc", { round: kc.match.round, rounds: kc.match.rounds });
    items.push(["kings-corner.html?continue", text, "link-continue-kc"]);
  }
  $("link-continues").replaceChildren(
    ...items.map(([href, text, id]) => {
      const li = el("li");
      const what = el("span");
      what.textContent = text;
      const a = el("a", "button primary");
      a.href = href;
      a.id = id;
      a.textContent = t("devices.continue");
      a.setAttribute("aria-label", `${t("devices.continue")}: ${text}`);
      li.append(what, a);
      return li;
    }),
  );
  $("link-continues-title").hidden = !items.length;
  $("link-continues").hidden = !items.length;
  $("link-nothing").hidden = Boolean(items.length);
}

async function done() {
  $("link-claim").hidden = true;
  $("link-ask").replaceChildren();
  say(t("devices.link_done"));
  try {
    games = await api.continueGames();
  } catch {
    games = { poker_squares: null, kings_corner: null };
  }
  renderDone();
  $("link-done").hidden = false;
  // The first thing to do next: continue a game, or go home.
  (document.querySelector("#link-continues a") || $("link-home")).focus();
}

function offerForm(initial = "") {
  const box = $("link-claim");
  box.hidden = false;
  const input = claimForm(box, { onDone: done, initial });
  input.focus();
}

async function start() {
  await initPage();
  onLanguageChange(renderDone);
  const code = normaliseCode(decodeURIComponent(location.hash.slice(1)));
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (!code) {
    say(t("devices.link_no_code"));
    offerForm();
    return;
  }
  if (await ownRecordInUse()) {
    const anchor = $("link-ask");
    if (!(await askReplace(anchor, null))) {
      // Kept this browser's record: the code is unused, and the form still offers it.
      offerForm(code);
      return;
    }
  }
  say(t("devices.link_checking"));
  try {
    switchTo(await claim(code));
    await done();
  } catch (err) {
    say(refusalText(err));
    offerForm();
  }
}

start();
