// A round against oneself: a rolled board (the link's lexicon, dice, rules and seed) or a given one (its
// board), words found against the page's clock.
//
// The server judges every word (POST /api/round with the words so far), so the page never holds the
// board's answers during a round, and the final score is the server's: at the end it sends the same words
// with `finished` and shows the summary the server returns. The daily board is played the same way
// (daily.js), then submitted.
"use strict";

import {$, api, clock, el, showInAddress} from "./common.js";
import {drawBoard, endTrace, markPath, wordList} from "./board.js";
import {onLanguage, showError, t} from "./i18n.js";
import {chosenDice, chosenLexicon, chosenRules, chosenSeconds} from "./settings.js";

const round = {
  board: null,  // BoardOut
  lexicon: null,
  language: null,  // the lexicon's language (the grid's lang)
  dictionary: null,  // its dictionary's URL template
  rules: null,  // the round's rule set's name
  words: [],  // what the player entered, in order
  playing: false,
  deadline: 0,
  ticker: null,
  judging: Promise.resolve(),  // words are judged one after another, in the order entered
  score: 0,
  summary: null,
  onEnd: null,  // called with the summary and the words when the round is over
};

// --- what a round shows, in rooms too -------------------------------------------------------

let verdictShown = null;  // the last verdict, written again when the language changes

// A verdict (POST /api/round's or a room's): the word as written, then its points or why it does not count.
export function showVerdict(verdict) {
  verdictShown = verdict;
  const answer = $("answer");
  if (!verdict) {
    answer.textContent = "";
    answer.className = "";
    return;
  }
  const word = verdict.shown || verdict.word;
  const accepted = verdict.verdict === "accepted";
  answer.className = accepted ? "accepted" : "rejected";
  const key = `verdict.${verdict.verdict}`;
  const why = t(key) === key ? verdict.text : t(key);
  answer.textContent = accepted ? `${word}: +${t("count.points", {n: verdict.points})}` : `${word}: ${why}`;
}

export function showScore(points) {
  $("score").dataset.points = points;
  $("score").textContent = t("count.points", {n: points});
}

// A word accepted, on top of the found list.
export function addFound(found) {
  $("found").querySelector("li.none")?.remove();
  $("found").prepend(el("li", {}, el("span", {}, found.shown || found.word),
                        el("span", {className: "points"}, String(found.points))));
}

export function setFound(words) {
  $("found").replaceChildren();
  for (const found of words) addFound(found);
}

onLanguage(() => {
  showVerdict(verdictShown);
  if ($("score").dataset.points !== undefined) showScore(Number($("score").dataset.points));
  if (round.summary) showSummary(round.summary);
});

// --- a round --------------------------------------------------------------------------------

export const solo = {
  active: () => round.playing,
  submit(text) {
    const word = text.trim();  // folded by the server as the lexicon's language folds it
    if (!round.playing || !word) return;
    round.words.push(word);
    const words = round.words.slice();
    round.judging = round.judging.then(() => judge(words)).catch(showError);
  },
};

function tick() {
  const left = (round.deadline - Date.now()) / 1000;
  $("timer").textContent = clock(left);
  $("timer").classList.toggle("low", left <= 10);
  if (left <= 0) finish();
}

function stopRound() {
  clearInterval(round.ticker);
  round.playing = false;
}

// A round on `board` (BoardOut) for `seconds`; `onEnd(summary, words)` once it is over.
export function startRound({board, lexicon, language, dictionary, rules, seconds, onEnd = null}) {
  clearInterval(round.ticker);
  Object.assign(round, {board, lexicon, language, dictionary, rules, words: [], judging: Promise.resolve(),
                        summary: null, onEnd});
  drawBoard(board);
  $("grid").lang = language;
  setFound([]);
  showVerdict(null);
  showScore(0);
  $("play").hidden = false;
  $("end").hidden = true;
  $("word").disabled = $("end-round").disabled = false;
  round.playing = true;
  round.deadline = Date.now() + 1000 * seconds;
  tick();
  round.ticker = setInterval(tick, 250);
  if (matchMedia("(pointer: fine)").matches) $("word").focus();  // on a phone the keyboard would hide the board
}

async function judge(words) {
  const result = await api("/api/round", {board: round.board.board, lexicon: round.lexicon, rules: round.rules, words});
  const verdict = result.verdicts[result.verdicts.length - 1];
  showVerdict(verdict);
  showScore(result.score);
  if (verdict.verdict === "accepted") addFound(verdict);
}

export async function finish() {
  if (!round.playing) return;
  round.playing = false;
  clearInterval(round.ticker);
  $("timer").textContent = clock(0);
  $("word").disabled = true;
  endTrace();
  await round.judging;
  try {
    const result = await api("/api/round", {board: round.board.board, lexicon: round.lexicon, rules: round.rules,
                                             words: round.words, finished: true});
    round.summary = result.summary;
    showSummary(result.summary);
    if (round.onEnd) await round.onEnd(result.summary, round.words.slice());
  } catch (err) {
    showError(err);
  }
}

function showSummary(summary) {
  $("answer").textContent = "";
  $("play").hidden = true;
  $("end").hidden = false;
  showScore(summary.score);
  const share = summary.maximum ? t("end.share", {n: Math.floor(100 * summary.score / summary.maximum)}) : "";
  $("result").textContent = t("end.result", {score: summary.score, maximum: t("count.points", {n: summary.maximum}),
                                             share, found: summary.found.length,
                                             words: t("count.words", {n: summary.word_count})});
  markPath([], "on-path");
  wordList($("your-words"), summary.found);
  wordList($("missed-words"), summary.missed, {dictionary: round.dictionary});
}

// --- the play view: ?lexicon=&dice=&rules=&seed= or ?lexicon=&rules=&board=&size= ------------

// A seed is kept as the digits it was written in: a JavaScript number holds only 15 or 16 of them,
// and a link's 99999999999999999999999 must roll that seed's board, not 1e+23's.
const SEED = /^[0-9]{1,100}$/;

// The seed a link asks for (?seed=N), without leading zeros, or undefined for none; a bad one is said
// on the page, and the round gets a random seed instead.
function linkSeed(text) {
  if (text === null) return undefined;
  if (SEED.test(text)) return text.replace(/^0+(?=[0-9])/, "");
  showError({key: "play.bad_seed", params: {seed: text}});
  return undefined;
}

// The seed of a roll's answer, as the digits the server wrote (JSON.parse would round a long one).
function seedOf(text) {
  return text.match(/"seed":\s*([0-9]+)/)[1];
}

let origin = null;  // where the board came from: {dice, seed} or {board}

function showOrigin() {
  $("origin").textContent = !origin ? "" : origin.seed !== undefined
    ? t("play.origin_roll", {dice: origin.dice, seed: origin.seed}) : t("play.origin_board");
}

onLanguage(showOrigin);

// A new round: `given` a board's notation (and size) to play, else a roll of the chosen dice with `seed`
// (digits; none: a random one). The address then names the board.
async function newRound(seed, given = null) {
  stopRound();
  const lexicon = chosenLexicon();
  let board;
  try {
    if (given) {
      const judged = await api("/api/round", {board: given.board, size: given.size || null, lexicon: lexicon.name,
                                              rules: chosenRules(), words: []});
      board = judged.board;
      origin = {board: board.board};
      showInAddress({lexicon: lexicon.name, rules: chosenRules(), board: board.board, size: given.size});
    } else {
      const dice = chosenDice();
      if (!dice) throw {key: "play.no_dice"};  // the page's own error, said again in each language chosen later
      const query = new URLSearchParams({lexicon: lexicon.name, dice: dice.name, size: dice.size});
      if (seed !== undefined) query.set("seed", seed);
      const [rolled, text] = await api(`/api/roll?${query}`, undefined, true);
      board = rolled.boards[0];  // the dice fit the lexicon: every cell is one of its letters
      origin = {dice: rolled.dice, seed: seedOf(text)};
      showInAddress({lexicon: lexicon.name, dice: rolled.dice, size: dice.size, rules: chosenRules(),
                     seed: origin.seed});
    }
  } catch (err) {
    showError(err);
    round.playing = false;  // no board: nothing to play until a roll succeeds
    $("word").disabled = $("end-round").disabled = true;
    return;
  }
  showOrigin();
  startRound({board, lexicon: lexicon.name, language: lexicon.language.name,
              dictionary: lexicon.language.dictionary, rules: chosenRules(),
              seconds: chosenSeconds()});
}

export function playView(asked) {
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    if (round.playing && !confirm(t("play.confirm_new"))) return;
    showError(null);
    newRound();
  });
  $("end-round").addEventListener("click", finish);
  const board = asked.get("board");
  const seed = board ? undefined : linkSeed(asked.get("seed"));
  newRound(seed, board ? {board, size: asked.get("size")} : null);
  return solo;
}
