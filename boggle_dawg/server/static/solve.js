// Solve a board (`?view=solve&lexicon=&rules=&board=&size=`): a physical board typed or pasted as the
// command line reads it, and every word on it with its points (POST /api/solve), each word's path shown
// on the grid when it is hovered or chosen.
"use strict";

import {$, api, showInAddress} from "./common.js";
import {drawBoard, wordList} from "./board.js";
import {onLanguage, showError, t} from "./i18n.js";
import {showScore} from "./play.js";
import {chosenLexicon, chosenRules} from "./settings.js";

let solved = null;  // the last answer, its language's dictionary

function showSolved() {
  if (!solved) return;
  const {answer, dictionary} = solved;
  $("solve-summary").textContent = t("solve.summary", {words: t("count.words", {n: answer.word_count}),
                                                       points: t("count.points", {n: answer.score})});
  wordList($("solve-words"), answer.words, {dictionary});
}

onLanguage(showSolved);

async function solve(board, size) {
  showError(null);
  const lexicon = chosenLexicon();
  try {
    const answer = await api("/api/solve", {board, size: size || null, lexicon: lexicon.name, rules: chosenRules()});
    solved = {answer, dictionary: lexicon.language.dictionary};
    $("board-side").hidden = false;
    drawBoard(answer.board);
    $("grid").lang = lexicon.language.name;
    showScore(answer.score);
    showInAddress({view: "solve", lexicon: lexicon.name, rules: chosenRules(), board: answer.board.board, size});
    showSolved();
  } catch (err) {
    showError(err);
  }
}

export function solveView(asked) {
  $("solve-panel").hidden = false;
  $("board-side").hidden = true;
  $("timer").textContent = "";
  $("solve-form").addEventListener("submit", (event) => {
    event.preventDefault();
    solve($("solve-board").value.trim(), $("solve-size").value.trim());
  });
  const board = asked.get("board");
  if (board) {
    $("solve-board").value = board;
    $("solve-size").value = asked.get("size") || "";
    solve(board, asked.get("size"));
  }
  return null;
}
