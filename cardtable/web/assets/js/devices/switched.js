/**
 * The word on the page a browser lands on after it took a record with a code or a recovery
 * file (docs/devices.md, "Page"): the settings dialog and the signed-out dialog reload the page
 * as the new record, so `reloadAsSwitched` marks the page's history entry first (`history.state`,
 * which a reload keeps, no other tab sees and no URL carries), and `showSwitched`, on the
 * reloaded page, turns the mark into a notice at the top of `<main>`: this browser now uses the
 * record, and the name it has in the devices list. The link page says the same in its own words
 * (devices/link.js), without a reload.
 */

import { t } from "../core/i18n.js";
import { onLanguageChange } from "../core/page.js";
import { el } from "./claim.js";

const MARK = "cardtableSwitched";

/** Reloads the page as the record of `answer` (claim's or restore's, already adopted), saying
 * so on the page it lands on. */
export function reloadAsSwitched(answer) {
  const state = history.state && typeof history.state === "object" ? history.state : {};
  try {
    history.replaceState({ ...state, [MARK]: { name: String(answer?.name || "") } }, "");
  } catch {
    /* the reload still happens; only the notice is lost */
  }
  location.reload();
}

/** Resolves once the page's strings are loaded (core/page.js marks the body "ready"). */
function whenReady() {
  if (document.body.classList.contains("ready")) return Promise.resolve();
  return new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (!document.body.classList.contains("ready")) return;
      watch.disconnect();
      resolve();
    });
    watch.observe(document.body, { attributes: true, attributeFilter: ["class"] });
  });
}

/** On a page reloaded by `reloadAsSwitched`: the notice (once; the mark is removed). */
export async function showSwitched() {
  const mark = history.state?.[MARK];
  const main = document.querySelector("main");
  if (!mark || !main) return;
  const { [MARK]: _, ...rest } = history.state;
  history.replaceState(Object.keys(rest).length ? rest : null, "");

  const box = el("div", "devices-notice");
  box.id = "dv-switched";
  // A status region made empty and filled a moment later, so a screen reader reads it out.
  const text = el("p", "devices-notice-text");
  text.id = "dv-switched-text";
  text.setAttribute("role", "status");
  const ok = el("button", "", "devices.switched_ok");
  ok.type = "button";
  ok.id = "dv-switched-ok";
  ok.setAttribute("aria-describedby", text.id);
  box.append(text, ok);
  main.prepend(box);
  ok.addEventListener("click", () => {
    const focused = box.contains(document.activeElement);
    box.remove();
    if (focused) main.focus();
  });

  const fill = () => {
    const first = el("strong");
    first.textContent = t("devices.switched");
    text.replaceChildren(first);
    if (mark.name) text.append(" ", t("devices.switched_name", { name: mark.name }));
    ok.textContent = t("devices.switched_ok");
  };
  await whenReady();
  setTimeout(fill, 100);
  onLanguageChange(() => {
    if (box.isConnected) fill();
  });
}
