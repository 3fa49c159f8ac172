// The board on the page: its cells as the server writes them (Я, Ñ, ß, Qu), a word's path marked on it,
// words traced on it with the mouse or a finger, and the lists of words whose paths it shows.
"use strict";

import {$, el} from "./common.js";
import {dictionaryUrl, t} from "./i18n.js";

let shown = null;  // the board drawn (BoardOut)
let tracing = null;  // {active(), done(word)} while words may be traced
let trace = [];  // cells of the word being traced
let chosenPath = [];  // the path of the word chosen in a list, shown again when a hover ends

function cells() {
  return [...$("grid").children];
}

export function drawBoard(board) {
  shown = board;
  const grid = $("grid");
  grid.style.setProperty("--cols", board.cols);
  grid.dataset.board = board.board;  // what the tests, and a curious player, read
  grid.replaceChildren(...board.cells.map((face, index) =>
    el("div", {className: "cell", data: {cell: index}}, face === "." ? "" : face)));
  chosenPath = [];
}

export function currentBoard() {
  return shown;
}

export function clearBoard() {
  shown = null;
  $("grid").replaceChildren();
  delete $("grid").dataset.board;
}

export function markPath(path, className) {
  for (const cell of cells()) {
    cell.classList.remove(className);
    delete cell.dataset.step;
  }
  path.forEach((index, step) => {
    const cell = cells()[index];
    if (!cell) return;
    cell.classList.add(className);
    cell.dataset.step = step + 1;
  });
}

// On a phone the board may be scrolled out of view by a long list of words: bring it back, whole.
function boardInView() {
  const box = $("grid").getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) $("grid").scrollIntoView({block: "nearest"});
}

// A list of words, each a button that shows its path (hovered, or chosen: then kept), as written (`shown`)
// with its points; `struck` words crossed out (cancelled), and with `dictionary` (the URL template of the
// lexicon's language, LanguageOut.dictionary) a link to each word's entry, opened only when clicked.
export function wordList(list, words, {dictionary = null, struck = () => false} = {}) {
  if (!words.length) {
    list.replaceChildren(el("li", {className: "none"}, t("words.none")));
    return;
  }
  list.replaceChildren(...words.map((found) => {
    const text = found.shown || found.word;
    const label = struck(found) ? el("s", {}, text) : el("span", {}, text);
    const button = el("button", {type: "button", data: {word: found.word}}, label,
                      el("span", {className: "points"}, String(found.points)));
    const item = el("li", {className: struck(found) ? "cancelled" : ""}, button);
    if (struck(found)) button.title = t("room.cancelled_word");
    button.addEventListener("click", () => {
      for (const other of document.querySelectorAll("ul.words li.chosen")) other.classList.remove("chosen");
      item.classList.add("chosen");
      chosenPath = found.path;
      markPath(found.path, "on-path");
      boardInView();
    });
    button.addEventListener("mouseenter", () => markPath(found.path, "on-path"));
    button.addEventListener("mouseleave", () => markPath(chosenPath, "on-path"));
    if (dictionary) {
      item.append(el("a", {className: "dictionary", href: dictionaryUrl(text, dictionary), target: "_blank",
                           rel: "noopener noreferrer", title: t("words.look_up", {word: text}),
                           attrs: {"aria-label": t("words.look_up", {word: text})}}, "↗"));
    }
    return item;
  }));
}

// --- tracing a word with the mouse or a finger -------------------------------------------------

function adjacent(a, b) {
  const cols = shown.cols;
  const dr = Math.abs(Math.floor(a / cols) - Math.floor(b / cols));
  const dc = Math.abs((a % cols) - (b % cols));
  return a !== b && dr <= 1 && dc <= 1;
}

// The cell under a point, counting only its inner part, so that a diagonal stroke passing near
// a corner does not pick up the cells beside it.
function cellAt(x, y) {
  const element = document.elementFromPoint(x, y);
  const cell = element && element.closest(".cell");
  if (!cell || !$("grid").contains(cell) || cell.textContent === "") return null;
  const box = cell.getBoundingClientRect();
  const inner = 0.36 * box.width;
  if (Math.abs(x - (box.left + box.width / 2)) > inner || Math.abs(y - (box.top + box.height / 2)) > inner) return null;
  return Number(cell.dataset.cell);
}

function tracedWord() {
  return trace.map((index) => shown.faces[index]).join("");
}

function showTrace() {
  markPath(trace, "traced");
  $("word").value = tracedWord();
}

function startTrace(event) {
  if (!tracing || !tracing.active() || !shown) return;
  const cell = cellAt(event.clientX, event.clientY);
  if (cell === null) return;
  event.preventDefault();
  $("grid").setPointerCapture(event.pointerId);
  trace = [cell];
  showTrace();
}

function moveTrace(event) {
  if (!trace.length) return;
  const cell = cellAt(event.clientX, event.clientY);
  if (cell === null || cell === trace[trace.length - 1]) return;
  if (cell === trace[trace.length - 2]) {
    trace.pop();  // back over the last cell: take it off
  } else if (!trace.includes(cell) && adjacent(trace[trace.length - 1], cell)) {
    trace.push(cell);
  } else {
    return;
  }
  showTrace();
}

export function endTrace() {
  if (!trace.length) return;
  const word = tracedWord();
  const long = trace.length > 1;
  trace = [];
  markPath([], "traced");
  $("word").value = "";
  if (long && tracing) tracing.done(word);
}

// Words traced on the board go to `done(word)` while `active()` says a round is on.
export function traceWords(active, done) {
  tracing = {active, done};
  const grid = $("grid");
  grid.addEventListener("pointerdown", startTrace);
  grid.addEventListener("pointermove", moveTrace);
  grid.addEventListener("pointerup", endTrace);
  grid.addEventListener("pointercancel", endTrace);
}
