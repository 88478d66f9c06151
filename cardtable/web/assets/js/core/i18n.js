/**
 * Translations: loads assets/i18n/<lang>.json and fills the page.
 *
 * Markup asks for text with `data-i18n="key"` (text content) and
 * `data-i18n-attr="aria-label:key; title:key"` (attributes). Script code calls `t(key, params)`;
 * `{name}` in a string is replaced by `params.name`. A key missing from the chosen language
 * falls back to English, then to the key itself, so a gap shows up instead of breaking.
 *
 * Counts: a message that holds a count is an object of plural forms keyed by the categories of
 * `Intl.PluralRules` (`{"one": "{n} card", "other": "{n} cards"}`; Japanese has only `other`).
 * The count is always the parameter `n`: `t("kc.cards_n", { n: 1 })` is "1 card". A form the
 * language lacks falls back to `other`.
 */

export const LANGUAGES = ["en", "ja"];
const cache = new Map();
let strings = {};
let english = {};
let current = "en";
const pluralRules = new Map();

/** The plural category ("one", "other", ...) of the number `n` in `lang`. */
export function pluralCategory(lang, n) {
  if (!pluralRules.has(lang)) pluralRules.set(lang, new Intl.PluralRules(lang));
  return pluralRules.get(lang).select(Number(n));
}

const bundles = [];

/** Adds a page's own strings, assets/i18n/<name>.<lang>.json, to every language loaded from
 * now on (call it before `initPage`). */
export function addBundle(name) {
  bundles.push(name);
  cache.clear();
}

function fetchJson(file) {
  return fetch(import.meta.resolve(`../../i18n/${file}.json`)).then((r) => {
    if (!r.ok) throw new Error(`i18n ${file}: HTTP ${r.status}`);
    return r.json();
  });
}

async function fetchStrings(lang) {
  if (!cache.has(lang)) {
    const files = [lang, ...bundles.map((name) => `${name}.${lang}`)];
    cache.set(
      lang,
      Promise.all(files.map(fetchJson)).then((parts) => Object.assign({}, ...parts)),
    );
  }
  return cache.get(lang);
}

/** "ja" when the browser prefers Japanese, else "en". */
export function browserLanguage() {
  const pref = (navigator.language || "en").toLowerCase();
  return pref.startsWith("ja") ? "ja" : "en";
}

export async function loadLanguage(lang) {
  const chosen = LANGUAGES.includes(lang) ? lang : "en";
  const [en, own] = await Promise.all([fetchStrings("en"), fetchStrings(chosen)]);
  english = en;
  strings = own;
  current = chosen;
  return chosen;
}

export function currentLanguage() {
  return current;
}

/** The message of `key` in `lang`'s strings: a string, or the plural form chosen by `params.n`. */
function pick(message, lang, params) {
  if (typeof message !== "object" || message === null) return message;
  const n = params?.n;
  const form = n === undefined ? "other" : pluralCategory(lang, n);
  return message[form] ?? message.other;
}

// A " · " separator keeps to the word before it (a no-break space), so a wrapped line never
// starts with the dot (a Japanese line-start rule, and tidier in English too).
const SEPARATOR = / ?· /g;

export function t(key, params) {
  let text;
  if (Object.hasOwn(strings, key)) text = pick(strings[key], current, params);
  else if (Object.hasOwn(english, key)) text = pick(english[key], "en", params);
  else text = key;
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  }
  return text.replace(SEPARATOR, "\u00a0· ");
}

/** Fills every [data-i18n] and [data-i18n-attr] under `root`, and shows the blocks written
 * in the current language ([data-lang-block]) while hiding the others. */
export function applyTranslations(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) {
    el.textContent = t(el.dataset.i18n);
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((s) => s.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
  for (const el of root.querySelectorAll("[data-lang-block]")) {
    el.hidden = el.dataset.langBlock !== current;
  }
  if (root === document) document.documentElement.lang = current;
}
