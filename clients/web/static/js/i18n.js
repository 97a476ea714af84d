// Every word the page shows, through one function: t("key", {params}).  The catalogues are
// js/lang/<code>.js (a map of key -> text, or key -> function(params) where a sentence
// needs a plural or an agreement); a key missing from a language falls back to English,
// then to the key itself, so a forgotten string shows up as a key rather than breaking.
//
// Which language: the person's own choice (the switch in the top bar, kept in
// localStorage), else the first of the browser's languages (navigator.languages) we have,
// else English.  What comes from the broker (names, table ids, chat lines, the referee's
// error details) is shown as sent: it is not the page's to translate.

import en from "./lang/en.js";
import fr from "./lang/fr.js";

export const LANGS = { en, fr };
export const LANG_NAMES = { en: "English", fr: "Français" };
const KEY = "summon.lang";

function pick() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && LANGS[saved]) return saved;
  } catch (err) { /* private mode */ }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (LANGS[code]) return code;
  }
  return "en";
}

let current = pick();
document.documentElement.lang = current;

export function lang() { return current; }

export function setLang(code) {
  if (!LANGS[code]) return;
  current = code;
  document.documentElement.lang = code;
  try { localStorage.setItem(KEY, code); } catch (err) { /* private mode: for this page only */ }
}

export function has(key) { return key in LANGS[current] || key in en; }

export function t(key, params = {}) {
  const s = key in LANGS[current] ? LANGS[current][key] : key in en ? en[key] : key;
  if (typeof s === "function") return s(params);
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}
