// The daily board (`?view=daily&lexicon=&rules=&date=`): one board a day for each lexicon and rule set,
// the same for everyone (GET /api/daily). Played as any round (play.js: the server judges each word), then
// submitted with a name (POST /api/daily: the server judges the words again and keeps its own score), and
// its results shown best first (GET /api/daily/results). A past day's board shows its results only; a
// board played here is remembered from the moment its round starts, so a reload shows its results (and,
// until they are submitted, the words found to submit) instead of a second try.
"use strict";

import {$, api, el, showInAddress, stored} from "./common.js";
import {drawBoard} from "./board.js";
import {onLanguage, say, showError, t} from "./i18n.js";
import {finish, showScore, startRound, solo} from "./play.js";
import {chosenLexicon, chosenRules, chosenSeconds, rulesTitle} from "./settings.js";

const NAME = "boggle-name";
const LISTED = 100;  // results listed

const daily = {board: null, results: null, mine: null, today: false, words: []};
const playedKey = (board) => `boggle-daily:${board.date}:${board.lexicon}:${board.rules.name}`;

function showTitle() {
  if (daily.board) {
    $("daily-title").textContent = t("daily.title", {date: daily.board.date, rules: rulesTitle(daily.board.rules.name)});
  }
}

async function showResults() {
  const board = daily.board;
  const query = new URLSearchParams({lexicon: board.lexicon, rules: board.rules.name, date: board.date, limit: LISTED});
  const listed = await api(`/api/daily/results?${query}`);
  daily.results = listed.results;
  renderResults();
}

function renderResults() {
  if (!daily.results) return;
  $("daily-results").hidden = false;
  $("daily-count").textContent = t("daily.count", {n: daily.results.length});
  $("daily-list").replaceChildren(...daily.results.map((result) => {
    const words = result.words.map((w) => w.shown).join(", ");
    return el("li", {}, el("span", {className: "name"}, result.name), " ",
              el("span", {className: "score"}, t("count.points", {n: result.score})),
              el("span", {className: "listed"}, words));
  }));
  if (daily.mine && daily.mine.submitted !== false) {
    say($("daily-note"), "daily.yours", {points: t("count.points", {n: daily.mine.score})});
  }
}

onLanguage(() => {
  showTitle();
  renderResults();
});

async function submit(event) {
  event.preventDefault();
  showError(null);
  const name = $("daily-name").value;
  try {
    const judged = await api("/api/daily", {name, lexicon: daily.board.lexicon, rules: daily.board.rules.name,
                                            date: daily.board.date, words: daily.words});
    stored.set(NAME, name);
    daily.mine = {score: judged.score, submitted: true};
    stored.set(playedKey(daily.board), daily.mine);
    $("daily-submit").hidden = true;
    await showResults();
  } catch (err) {
    showError(err);
  }
}

export async function dailyView(asked) {
  $("daily-panel").hidden = false;
  $("end-round").addEventListener("click", finish);
  $("daily-submit").addEventListener("submit", submit);
  $("daily-name").value = stored.get(NAME) || "";
  const lexicon = chosenLexicon();
  try {
    const query = new URLSearchParams({lexicon: lexicon.name, rules: chosenRules()});
    if (asked.get("date")) query.set("date", asked.get("date"));
    daily.board = await api(`/api/daily?${query}`);
    daily.today = true;
    if (asked.get("date")) {  // a link's day: today's, or one gone
      const today = await api(`/api/daily?${new URLSearchParams({lexicon: lexicon.name, rules: chosenRules()})}`);
      daily.today = today.date === daily.board.date;
    }
  } catch (err) {
    showError(err);
    $("board-side").hidden = true;
    return null;
  }
  const board = daily.board;
  showInAddress({view: "daily", lexicon: board.lexicon, rules: board.rules.name, date: board.date});
  showTitle();
  daily.mine = stored.get(playedKey(board));
  if (!daily.today || daily.mine) {  // a day gone, or played here already: its results
    drawBoard(board.board);
    $("grid").lang = lexicon.language.name;
    $("play").hidden = true;
    $("timer").textContent = "";
    showScore(daily.mine ? daily.mine.score : 0);
    say($("daily-note"), daily.today ? null : "daily.past");
    if (daily.today && daily.mine && daily.mine.submitted === false) {  // played, not yet submitted
      daily.words = daily.mine.words;
      $("daily-submit").hidden = false;
    }
    await showResults().catch(showError);
    return null;
  }
  const played = playedKey(board);
  stored.set(played, {score: 0, words: [], submitted: false});  // one try: a reload from here on is no new round
  startRound({board: board.board, lexicon: board.lexicon, language: lexicon.language.name,
              dictionary: lexicon.language.dictionary, rules: board.rules.name,
              seconds: chosenSeconds(),
              onEnd: (summary, words) => {
                daily.words = words;
                daily.mine = {score: summary.score, words, submitted: false};
                stored.set(played, daily.mine);
                $("daily-submit").hidden = false;
                $("daily-name").focus();
              }});
  return solo;
}
