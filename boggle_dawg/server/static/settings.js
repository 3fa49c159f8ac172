// What the server serves (GET /api/lexicons) and the menus that choose from it: the lexicon (its language's
// name shown where several are served), the dice sets that fit it (its language's own first, within the
// server's board limit), the rule sets, the round's time.
"use strict";

import {$, api, fill} from "./common.js";
import {onLanguage, t} from "./i18n.js";

export const served = {
  lexicons: [],  // LexiconOut, each with its language and the dice that fit it
  defaultLexicon: null,
  ruleSets: [],  // RulesOut: the rules menu
  cells: 0,  // the server's limit on a board's cells
  offered: [],  // the dice sets in the dice menu (DiceOut), by the options' values
};

export async function loadServed() {
  const info = await api("/api/lexicons");
  served.lexicons = info.lexicons;
  served.defaultLexicon = info.default;
  served.ruleSets = info.rules;
  served.cells = info.limits.cells;
  for (const field of document.querySelectorAll("input[autocomplete=nickname]")) {
    field.maxLength = info.play_limits.name_chars;  // the server's limit on a player's name
  }
}

export function lexiconNamed(name) {
  return served.lexicons.find((l) => l.name === name);
}

export function chosenLexicon() {
  return lexiconNamed($("lexicon").value);
}

export function chosenDice() {
  return served.offered[Number($("dice").value)];
}

export function chosenRules() {
  return $("rules").value;
}

export function chosenSeconds() {
  return Number($("seconds").value);
}

// A rule set as a player reads it: its title in the page's language where the catalogue has one.
export function rulesTitle(name) {
  const rules = served.ruleSets.find((r) => r.name === name);
  const key = `rules.${name}`;
  const title = t(key);
  return title === key ? (rules ? rules.title : name) : title;
}

// The menus, each set to what the link asks for where the server has it.
export function offerMenus(asked) {
  offerLexicons(asked.get("lexicon") || served.defaultLexicon);
  if (!chosenLexicon()) $("lexicon").value = served.defaultLexicon;
  $("lexicon-choice").hidden = served.lexicons.length < 2;
  offerDice(asked.get("dice"), asked.get("size"));
  offerRules(asked.get("rules"));
  offerSeconds(asked.get("seconds"));
  $("lexicon").addEventListener("change", () => offerDice(chosenDice()?.name));
  onLanguage(() => {
    offerLexicons($("lexicon").value);
    offerRules(chosenRules());
    offerSeconds(String(chosenSeconds()));
  });
}

function offerLexicons(wanted) {
  fill($("lexicon"), served.lexicons.map((l) => [l.name, t("setup.lexicon_option", {title: l.language.title,
                                                                                     name: l.name, n: l.words})]),
       wanted);
}

// The rules menu: the server's rule sets; `wanted` (a name) is chosen if served, else the lexicon's own.
function offerRules(wanted) {
  const names = served.ruleSets.map((r) => r.name);
  fill($("rules"), served.ruleSets.map((r) => [r.name, t("setup.rules_option", {title: rulesTitle(r.name),
                                                                                  n: r.min_length})]),
       names.includes(wanted) ? wanted : chosenLexicon().rules);
}

// The dice menu: the sets that fit the chosen lexicon and the server's board limit, its language's own
// first; `wanted` (a name, and a size where a set has several) is chosen if offered, else the lexicon's
// default set.
function offerDice(wanted, size = null) {
  const lexicon = chosenLexicon();
  const own = (d) => (d.name === lexicon.language.name ? 0 : 1);
  served.offered = lexicon.dice.filter((d) => d.dice <= served.cells).sort((a, b) => own(a) - own(b));
  const index = (name, sized) => served.offered.findIndex((d) => d.name === name && (!sized || d.size === sized));
  const chosen = [index(wanted, size), index(wanted, null), index(lexicon.default_dice, null)].find((i) => i >= 0) ?? 0;
  fill($("dice"), served.offered.map((d, index) => [String(index), `${d.name} (${d.size})`]), String(chosen));
}

const SECONDS = [60, 120, 180, 300, 600];

function offerSeconds(wanted) {
  const chosen = SECONDS.map(String).includes(wanted) ? wanted : "180";
  fill($("seconds"), SECONDS.map((s) => [String(s), t("setup.minutes", {n: s / 60})]), chosen);
}
