// The page's own words in the player's language: one catalogue a language (i18n/<name>.json, every key in
// each; tests/test_browser.py checks), chosen from the lexicon's language unless the player switched, the
// switch kept in the browser; the server's refusals too, by their codes (`error.<code>`). Plurals follow
// the language's rules (Intl.PluralRules: Russian and Polish have three forms).
"use strict";

import {$, stored} from "./common.js";

// The catalogues, each named as its speakers write it.
export const LANGUAGES = {
  en: "English", de: "Deutsch", fr: "Français", es: "Español", nl: "Nederlands", pl: "Polski", ru: "Русский",
};
const FALLBACK = "en";
const CHOSEN = "boggle-language";  // the switch, kept

const catalogues = new Map();
let current = FALLBACK;
const listeners = [];
let errorShown = null;  // the error on the page, written again when the language changes

async function load(name) {
  if (!catalogues.has(name)) {
    const response = await fetch(`/static/i18n/${name}.json`);
    if (!response.ok) throw new Error(`/static/i18n/${name}.json: ${response.status}`);
    catalogues.set(name, await response.json());
  }
  return catalogues.get(name);
}

// The catalogue of a lexicon's language ("de", "de-umlauts": de; "pt-br": none), or null.
function catalogueOf(language) {
  const base = String(language || "").split("-")[0];
  return Object.hasOwn(LANGUAGES, base) ? base : null;
}

// Where a page starts: the language the player chose, else the lexicon's, else English.
export function startingLanguage(lexiconLanguage) {
  const chosen = stored.get(CHOSEN);
  return catalogueOf(chosen) || catalogueOf(lexiconLanguage) || FALLBACK;
}

export async function useLanguage(name, remember = false) {
  await load(FALLBACK);
  try {
    await load(name);
  } catch {
    name = FALLBACK;  // a catalogue not served: the page in English rather than in keys
  }
  current = name;
  if (remember) stored.set(CHOSEN, name);
  document.documentElement.lang = name;
  translate(document);
  showError(errorShown);
  for (const listener of listeners) listener();
}

// Called again whenever the language changes: a view's texts built from data.
export function onLanguage(listener) {
  listeners.push(listener);
}

export function language() {
  return current;
}

// The text of `key` with {name}s filled in; with `n`, the plural form the language's rules pick.
export function t(key, params = {}) {
  let text = lookup(catalogues.get(current), key) ?? lookup(catalogues.get(FALLBACK), key) ?? key;
  if (typeof text === "object") {
    const form = new Intl.PluralRules(current).select(params.n ?? 0);
    text = text[form] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? written(params[name]) : whole));
}

// A number as the language writes it (267,544; 267 544; 267.544); any other value as it is.
function written(value) {
  return typeof value === "number" ? new Intl.NumberFormat(current).format(value) : String(value);
}

// An error on the page (null: none). A refusal of the server's with a `code` (an API error, a room's `error`
// message) is said in the page's language, its `params` filled in; where the catalogue lacks the code (a
// server newer than the page), the server's English line is; any other error, its message as it is.
export function showError(err) {
  errorShown = err;
  $("error").textContent = err ? errorText(err) : "";
}

function errorText(err) {
  if (err.key) return t(err.key, err.params);  // the page's own ({key, params}): said again in each language
  const key = `error.${err.code}`;
  if (err.code && lookup(catalogues.get(current), key) !== undefined) return t(key, err.params);
  return String(err.message || err.error || err);
}

function lookup(catalogue, key) {
  return catalogue ? catalogue[key] : undefined;
}

// A text of the page's own in `node` (key null: none), written again in each language chosen later.
export function say(node, key, params = {}) {
  if (key) {
    node.dataset.i18n = key;
    node.dataset.i18nParams = JSON.stringify(params);
  } else {
    delete node.dataset.i18n;
    delete node.dataset.i18nParams;
  }
  node.textContent = key ? t(key, params) : "";
}

// Static texts of the page: data-i18n (the text, with the params of data-i18n-params: `say`'s),
// data-i18n-placeholder, data-i18n-label (aria-label), -title.
function translate(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n, node.dataset.i18nParams ? JSON.parse(node.dataset.i18nParams) : {});
  }
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) node.placeholder = t(node.dataset.i18nPlaceholder);
  for (const node of root.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
}

// The address of a word's entry in a dictionary (its first spelling, as written: Wiktionary's entries are
// "Straße", "ёлка"): `template` is the lexicon's language's (its language file's `dictionary`, %s the word).
export function dictionaryUrl(shown, template) {
  return template.replace("%s", encodeURIComponent(shown.split(" / ")[0]));
}
