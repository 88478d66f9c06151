/** Entry module of the home page: the shell, a fan of sample card faces, Continue for an
 * unfinished Kings Corner match (GET /api/continue), "Your tables" (your-tables.js) and quick
 * play (quickplay/home.js; its strings load with the settings dialog's, shell/boot.js). */
import "../shell/boot.js";
import { api, hasPlayer } from "../core/api.js";
import { cardFaceSvg, cardName } from "../core/cards.js";
import { addBundle, t } from "../core/i18n.js";
import { initPage, onLanguageChange } from "../core/page.js";
import { addDailyCountdown } from "../daily/links.js";
import { initQuickPlay, renderQuickPlay } from "../quickplay/home.js";
import { loadYourTables, renderYourTables } from "./your-tables.js";

const SAMPLES = ["AS", "KH", "TD", "7C"];
let saved = null;

function renderSamples() {
  const box = document.getElementById("sample-cards");
  if (!box) return;
  box.replaceChildren(
    ...SAMPLES.map((code) => {
      const el = document.createElement("span");
      el.className = "card";
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", cardName(code));
      el.innerHTML = cardFaceSvg(code);
      return el;
    }),
  );
}

function renderContinue() {
  const box = document.getElementById("continue-kc-box");
  const game = saved?.kings_corner;
  if (!box) return;
  box.hidden = !game || game.phase === "match_over";
  if (box.hidden) return;
  document.getElementById("continue-kc-text").textContent = t("kc.continue_text", {
    round: game.match.round,
    rounds: game.match.rounds,
    players: game.seats.length,
    rules: t(`kc.rule_set.${game.view.rule_set}`),
  });
}

async function loadSaved() {
  if (!hasPlayer()) return;
  try {
    saved = await api.continueGames();
  } catch {
    saved = null; // the home page works without it
  }
  renderContinue();
}

addBundle("daily");
addBundle("mine");
await initPage();
addDailyCountdown(document.getElementById("daily-box"));
renderSamples();
onLanguageChange(() => {
  renderSamples();
  renderContinue();
  renderYourTables();
  renderQuickPlay();
});
initQuickPlay();
loadSaved();
loadYourTables();
