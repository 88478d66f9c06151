/**
 * The "verify this shuffle" page (verify.html#seed=…&salt=…&commitment=…): the values come in
 * the URL fragment (never sent to the server) or are typed in; the checks run in the browser
 * (core/fairness.js, WebCrypto) and are shown with the recomputed deck, each card as people
 * read it ("J♠ 3♥", each named for screen readers). A link from a finished game checks at
 * once; the values themselves are folded away (open when there are none to check), with a
 * short "how it works" for experts.
 */

import "../shell/boot.js";
import { ALGORITHM_NAME, verifyValues } from "../core/fairness.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { cardChips } from "../review/card-text.js";

const $ = (id) => document.getElementById(id);
const cardList = (text) =>
  String(text || "")
    .toUpperCase()
    .replace(/10([SHDC])/g, "T$1")
    .split(/[\s,]+/)
    .filter(Boolean);
let last = null;

function fill(params) {
  for (const name of ["seed", "salt", "commitment", "before", "cards", "hand", "seat"]) {
    if (params.has(name)) $(`f-${name}`).value = params.get(name);
  }
  if (params.get("game") === "kc") $("f-game").value = "kc";
  if (params.has("players")) $("f-players").value = params.get("players");
  $("f-any").checked = params.get("any") === "1";
  const round = Number(params.get("round"));
  $("round-label").hidden = !round;
  $("round-label").dataset.round = round ? String(round) : "";
  $("values-box").open = !params.has("seed");
  showFields();
}

function showFields() {
  const kc = $("f-game").value === "kc";
  $("ps-fields").hidden = kc;
  $("kc-fields").hidden = !kc;
}

function values() {
  const clean = (id) => $(id).value.trim().toLowerCase();
  return {
    seed: clean("f-seed"),
    salt: clean("f-salt"),
    commitment: clean("f-commitment"),
    before: clean("f-before"),
    game: $("f-game").value,
    cards: cardList($("f-cards").value),
    any: $("f-any").checked,
    players: Number($("f-players").value),
    seat: Number($("f-seat").value),
    hand: cardList($("f-hand").value),
  };
}

function render() {
  if (!last) return;
  const { out, game } = last;
  const round = $("round-label").dataset.round;
  $("round-label").textContent = round ? t("fair.round", { round }) : "";
  const list = $("checks");
  list.replaceChildren(
    ...out.checks.map(({ key, ok }) => {
      const li = document.createElement("li");
      li.dataset.check = key;
      li.dataset.ok = String(ok);
      li.textContent = t(`fair.${key}_${ok === null ? "none" : ok ? "ok" : "bad"}`);
      return li;
    }),
  );
  const ok = out.checks.every((c) => c.ok !== false) && out.checks[0].ok;
  $("verdict").dataset.ok = String(ok);
  $("verdict").textContent = ok ? t("fair.verified") : t("fair.not_verified");
  $("dealt-title").textContent = t(game === "ps" ? "fair.dealt_ps" : "fair.dealt_kc");
  $("dealt").replaceChildren(...cardChips(out.dealt));
  $("centre-box").hidden = !out.centre;
  $("centre").replaceChildren(...cardChips(out.centre || []));
  $("deck").replaceChildren(...cardChips(out.deck));
  $("algorithm").textContent = t("fair.algorithm", { name: ALGORITHM_NAME });
  $("results").hidden = false;
}

async function run() {
  $("error").textContent = "";
  const v = values();
  try {
    last = { out: await verifyValues(v), game: v.game };
    render();
  } catch (err) {
    last = null;
    $("results").hidden = true;
    $("values-box").open = true;
    $("error").textContent = t("fair.error", { message: err.message });
  }
}

async function main() {
  addBundle("fairness");
  await initPage();
  $("f-game").addEventListener("change", showFields);
  $("verify-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  onLanguageChange(render);
  const params = new URLSearchParams(location.hash.slice(1));
  fill(params);
  document.body.dataset.verifyReady = "true";
  if (params.has("seed")) await run();
  document.body.dataset.verified = last ? "done" : "none";
}

main();
