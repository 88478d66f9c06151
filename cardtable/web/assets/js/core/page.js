/**
 * The shell every page shares: language (chosen once, remembered, switchable on every page),
 * the four-colour class, the settings dialog where a page has one, and the notice shown when
 * the browser cannot store anything.
 */

import { applyTranslations, browserLanguage, currentLanguage, loadLanguage, t } from "./i18n.js";
import { wirePushSetting } from "./push.js";
import { getSetting, setSetting, storageAvailable } from "./settings.js";

const languageListeners = new Set();

export function onLanguageChange(fn) {
  languageListeners.add(fn);
}

function markLanguageButtons() {
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.setAttribute("aria-pressed", String(b.dataset.setLang === currentLanguage()));
  }
}

export async function switchLanguage(lang) {
  await loadLanguage(lang);
  setSetting("lang", currentLanguage());
  applyTranslations();
  markLanguageButtons();
  for (const fn of languageListeners) fn(currentLanguage());
}

function applyFourColour() {
  document.documentElement.classList.toggle("four-colour", Boolean(getSetting("fourColour")));
}

function wireSettingsDialog() {
  const dialog = document.getElementById("settings-dialog");
  const open = document.getElementById("settings-open");
  if (!dialog || !open) return;
  const four = dialog.querySelector("#opt-four-colour");
  const sound = dialog.querySelector("#opt-sound");
  const drawPush = wirePushSetting(dialog, t);
  open.addEventListener("click", () => {
    four.checked = Boolean(getSetting("fourColour"));
    sound.checked = Boolean(getSetting("sound"));
    drawPush();
    dialog.showModal();
  });
  four.addEventListener("change", () => {
    setSetting("fourColour", four.checked);
    applyFourColour();
  });
  sound.addEventListener("change", () => setSetting("sound", sound.checked));
  dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => open.focus());
}

/** One request at a time for a screen: while a task runs, further calls are ignored and the
 * page carries the "busy" class (double clicks send one move); a failure goes to `onError`. */
export function serialRunner(state, onError) {
  return async function run(task) {
    if (state.busy) return;
    state.busy = true;
    document.body.classList.add("busy");
    try {
      await task();
    } catch (err) {
      onError(err);
    } finally {
      state.busy = false;
      document.body.classList.remove("busy");
    }
  };
}

export async function initPage() {
  const lang = getSetting("lang") || browserLanguage();
  await loadLanguage(lang);
  applyTranslations();
  markLanguageButtons();
  applyFourColour();
  for (const b of document.querySelectorAll("[data-set-lang]")) {
    b.addEventListener("click", () => switchLanguage(b.dataset.setLang));
  }
  wireSettingsDialog();
  const notice = document.getElementById("storage-notice");
  if (notice && !storageAvailable()) notice.hidden = false;
  document.body.classList.add("ready");
  // The installable app's worker (core/sw.js), loaded once the page is ready: nothing waits on it.
  import("./sw.js").then((m) => m.registerServiceWorker());
}
