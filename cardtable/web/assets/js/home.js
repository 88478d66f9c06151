/** Entry module of the home page: the shell plus a fan of sample card faces. */
import { cardFaceSvg, cardName } from "./cards.js";
import { onLanguageChange, initPage } from "./page.js";

const SAMPLES = ["AS", "KH", "TD", "7C"];

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

await initPage();
renderSamples();
onLanguageChange(renderSamples);
