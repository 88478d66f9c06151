/**
 * Preferences (language, four-colour cards, sound) and the one door to localStorage.
 *
 * Every read and write of localStorage in the site goes through `storageGet` / `storageSet`.
 * When the browser refuses storage (private modes, blocked cookies, a throwing getter), values
 * live in memory for the page's life and `storageAvailable()` is false, so the page can say so.
 */

const PREFS_KEY = "cardtable.settings";
const memory = new Map();

function probe() {
  try {
    const store = window.localStorage;
    const k = "cardtable.probe";
    store.setItem(k, "1");
    store.removeItem(k);
    return true;
  } catch {
    return false;
  }
}

const available = probe();

export function storageAvailable() {
  return available;
}

export function storageGet(key) {
  if (available) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      /* fall through to memory */
    }
  }
  return memory.has(key) ? memory.get(key) : null;
}

export function storageSet(key, value) {
  memory.set(key, value);
  if (!available) return;
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    /* memory keeps it */
  }
}

function readPrefs() {
  try {
    const parsed = JSON.parse(storageGet(PREFS_KEY) || "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

const DEFAULTS = { fourColour: false, sound: false };

/** A preference: "lang" (null until chosen), "fourColour", "sound". */
export function getSetting(name) {
  const prefs = readPrefs();
  return name in prefs ? prefs[name] : (DEFAULTS[name] ?? null);
}

const listeners = new Set();

export function setSetting(name, value) {
  const prefs = readPrefs();
  prefs[name] = value;
  storageSet(PREFS_KEY, JSON.stringify(prefs));
  for (const fn of listeners) fn(name, value);
}

export function onSettingChange(fn) {
  listeners.add(fn);
}
