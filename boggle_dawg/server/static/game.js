// The browser game: roll a board, find words against the clock, see what was missed.
//
// The server judges every word (POST /api/round with the words so far), so the client never
// holds the board's answers during a round, and the final score is the server's: at the end it
// sends the same words with `finished` and shows the summary the server returns. Every language
// is the server's business too: the dice offered are those that fit the chosen lexicon, cells
// come as the language writes them (Я, Ñ, ß, Qu) and typed words are folded by the server.
"use strict";

const $ = (id) => document.getElementById(id);

const game = {
  lexicons: [],       // GET /api/lexicons' lexicons, each with its language and the dice that fit it
  cells: 0,           // the server's limit on a board's cells
  offered: [],        // the dice sets in the dice menu (DiceOut), by the options' values
  ruleSets: [],       // GET /api/lexicons' rules: the rules menu
  board: null,        // the roll's board (BoardOut)
  lexicon: null,
  rules: null,        // the round's rule set's name
  words: [],          // what the player entered, in order
  playing: false,
  deadline: 0,
  ticker: null,
  judging: Promise.resolve(),  // words are judged one after another, in the order entered
  trace: [],          // cells of the word being traced
};

// The answer's data (and with `withText`, its text too); a refusal is an Error with the server's message.
async function api(path, body, withText = false) {
  const options = body === undefined ? {} :
    {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, options);
  const text = await response.text();
  const data = JSON.parse(text);
  if (!response.ok) throw new Error(data.error || response.statusText);
  return withText ? [data, text] : data;
}

function showError(err) {
  $("error").textContent = err ? String(err.message || err) : "";
}

function fill(select, options, chosen) {
  select.replaceChildren(...options.map(([value, label]) => {
    const option = new Option(label, value);
    option.selected = value === chosen;
    return option;
  }));
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

// --- the board ------------------------------------------------------------------------------

function cells() {
  return [...$("grid").children];
}

function drawBoard(board) {
  const grid = $("grid");
  grid.style.setProperty("--cols", board.cols);
  grid.replaceChildren(...board.cells.map((face, index) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.cell = index;
    cell.textContent = face === "." ? "" : face;
    return cell;
  }));
}

function markPath(path, className) {
  for (const cell of cells()) {
    cell.classList.remove(className);
    delete cell.dataset.step;
  }
  path.forEach((index, step) => {
    const cell = cells()[index];
    cell.classList.add(className);
    cell.dataset.step = step + 1;
  });
}

function adjacent(a, b) {
  const cols = game.board.cols;
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
  return game.trace.map((index) => game.board.faces[index]).join("");
}

function startTrace(event) {
  if (!game.playing) return;
  const cell = cellAt(event.clientX, event.clientY);
  if (cell === null) return;
  event.preventDefault();
  $("grid").setPointerCapture(event.pointerId);
  game.trace = [cell];
  showTrace();
}

function moveTrace(event) {
  if (!game.trace.length) return;
  const cell = cellAt(event.clientX, event.clientY);
  const trace = game.trace;
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

function endTrace() {
  if (!game.trace.length) return;
  const word = tracedWord();
  const long = game.trace.length > 1;
  game.trace = [];
  markPath([], "traced");
  $("word").value = "";
  if (long) submit(word);
}

function showTrace() {
  markPath(game.trace, "traced");
  $("word").value = tracedWord();
}

// --- a round ----------------------------------------------------------------------------------

function clock(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function tick() {
  const left = (game.deadline - Date.now()) / 1000;
  $("timer").textContent = clock(left);
  $("timer").classList.toggle("low", left <= 10);
  if (left <= 0) finish();
}

// A seed is kept as the digits it was written in: a JavaScript number holds only 15 or 16 of them,
// and a link's 99999999999999999999999 must roll that seed's board, not 1e+23's.
const SEED = /^[0-9]{1,100}$/;

// The seed a link asks for (?seed=N), without leading zeros, or undefined for none; a bad one is said
// on the page, and the round gets a random seed instead.
function linkSeed(text) {
  if (text === null) return undefined;
  if (SEED.test(text)) return text.replace(/^0+(?=[0-9])/, "");
  showError(`The link's seed "${text}" is not a whole number of 0 or more: here is a random board instead.`);
  return undefined;
}

// The seed of a roll's answer, as the digits the server wrote (JSON.parse would round a long one).
function seedOf(text) {
  return text.match(/"seed":\s*([0-9]+)/)[1];
}

// `seed` (a string of digits) replays a roll: the page's ?seed=N gives its first round (a board to share).
async function newRound(seed) {
  clearInterval(game.ticker);
  try {
    const dice = chosenDice();
    if (!dice) throw new Error("no dice set of this server fits this lexicon's letters");
    const query = new URLSearchParams({lexicon: $("lexicon").value, dice: dice.name, size: dice.size});
    if (seed !== undefined) query.set("seed", seed);
    const [rolled, text] = await api(`/api/roll?${query}`, undefined, true);
    game.board = rolled.boards[0];  // the dice fit the lexicon: every cell is one of its letters
    game.lexicon = rolled.lexicon;
    game.rules = $("rules").value;  // a round keeps the rules it started with
    $("origin").textContent = `${rolled.dice} dice, seed ${seedOf(text)}`;
  } catch (err) {
    showError(err);
    game.playing = false;  // no board: nothing to play until a roll succeeds
    $("word").disabled = $("end-round").disabled = true;
    return;
  }
  game.words = [];
  game.trace = [];
  game.judging = Promise.resolve();
  drawBoard(game.board);
  $("grid").lang = chosenLexicon().language.name;
  $("found").replaceChildren();
  $("answer").textContent = "";
  $("score").textContent = plural(0, "point");
  $("play").hidden = false;
  $("end").hidden = true;
  $("word").disabled = $("end-round").disabled = false;
  game.playing = true;
  game.deadline = Date.now() + 1000 * Number($("seconds").value);
  tick();
  game.ticker = setInterval(tick, 250);
  if (matchMedia("(pointer: fine)").matches) $("word").focus();  // on a phone the keyboard would hide the board
}

function submit(text) {
  const word = text.trim();  // folded by the server as the lexicon's language folds it
  if (!game.playing || !word) return;
  game.words.push(word);
  const words = game.words.slice();
  game.judging = game.judging.then(() => judge(words)).catch(showError);
}

async function judge(words) {
  const result = await api("/api/round", {board: game.board.board, lexicon: game.lexicon, rules: game.rules, words});
  const verdict = result.verdicts[result.verdicts.length - 1];
  const answer = $("answer");
  answer.className = verdict.verdict === "accepted" ? "accepted" : "rejected";
  answer.textContent = verdict.verdict === "accepted"
    ? `${verdict.word}: +${plural(verdict.points, "point")}`
    : `${verdict.word}: ${verdict.text}`;
  $("score").textContent = plural(result.score, "point");
  if (verdict.verdict === "accepted") {
    const item = document.createElement("li");
    item.innerHTML = `<span></span><span class="points"></span>`;
    item.firstChild.textContent = verdict.word;
    item.lastChild.textContent = verdict.points;
    $("found").prepend(item);
  }
}

async function finish() {
  if (!game.playing) return;
  game.playing = false;
  clearInterval(game.ticker);
  $("timer").textContent = clock(0);
  $("word").disabled = true;
  endTrace();
  await game.judging;
  try {
    const result = await api("/api/round", {board: game.board.board, lexicon: game.lexicon, rules: game.rules,
                                             words: game.words, finished: true});
    showSummary(result.summary);
  } catch (err) {
    showError(err);
  }
}

function wordList(list, words) {
  if (!words.length) {
    const none = document.createElement("li");
    none.className = "none";
    none.textContent = "none";
    list.replaceChildren(none);
    return;
  }
  list.replaceChildren(...words.map((found) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.word = found.word;
    button.innerHTML = `<span></span><span class="points"></span>`;
    button.firstChild.textContent = found.word;
    button.lastChild.textContent = found.points;
    button.addEventListener("click", () => {
      document.querySelectorAll("ul.words li.chosen").forEach((chosen) => chosen.classList.remove("chosen"));
      item.classList.add("chosen");
      markPath(found.path, "on-path");
      boardInView();
    });
    item.append(button);
    return item;
  }));
}

// On a phone the board may be scrolled out of view by a long list of words: bring it back, whole.
function boardInView() {
  const box = $("grid").getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) $("grid").scrollIntoView({block: "nearest"});
}

function showSummary(summary) {
  $("answer").textContent = "";
  $("play").hidden = true;
  $("end").hidden = false;
  $("score").textContent = plural(summary.score, "point");
  const share = summary.maximum ? ` (${Math.floor(100 * summary.score / summary.maximum)}%)` : "";
  $("result").textContent = `You scored ${summary.score} of the board's ${plural(summary.maximum, "point")}${share}: `
    + `${summary.found.length} of ${plural(summary.word_count, "word")}.`;
  wordList($("your-words"), summary.found);
  wordList($("missed-words"), summary.missed);
}

// --- start ------------------------------------------------------------------------------------

function chosenLexicon() {
  return game.lexicons.find((l) => l.name === $("lexicon").value);
}

function chosenDice() {
  return game.offered[Number($("dice").value)];
}

// The rules menu: the server's rule sets; `wanted` (a name) is chosen if served, else the lexicon's own.
function offerRules(wanted) {
  const names = game.ruleSets.map((r) => r.name);
  fill($("rules"), game.ruleSets.map((r) => [r.name, `${r.title} (${r.min_length}+ letters)`]),
       names.includes(wanted) ? wanted : chosenLexicon().rules);
}

// The dice menu: the sets that fit the chosen lexicon and the server's board limit, its language's own
// first; `wanted` (a name) is chosen if offered, else the lexicon's default set.
function offerDice(wanted) {
  const lexicon = chosenLexicon();
  const own = (d) => (d.name === lexicon.language.name ? 0 : 1);
  game.offered = lexicon.dice.filter((d) => d.dice <= game.cells).sort((a, b) => own(a) - own(b));
  const names = game.offered.map((d) => d.name);
  const chosen = Math.max(0, names.indexOf(names.includes(wanted) ? wanted : lexicon.default_dice));
  fill($("dice"), game.offered.map((d, index) => [String(index), `${d.name} (${d.size})`]), String(chosen));
}

async function start() {
  const asked = new URLSearchParams(location.search);  // ?lexicon=NAME&dice=NAME&rules=NAME&seed=N: the first round's
  try {
    const info = await api("/api/lexicons");
    game.lexicons = info.lexicons;
    game.cells = info.limits.cells;
    fill($("lexicon"), info.lexicons.map((l) => [l.name, `${l.language.title}: ${l.name} (${l.words} words)`]),
         asked.get("lexicon") || info.default);
    if (!chosenLexicon()) $("lexicon").value = info.default;
    $("lexicon-choice").hidden = info.lexicons.length < 2;
    offerDice(asked.get("dice"));
    game.ruleSets = info.rules;
    offerRules(asked.get("rules"));
  } catch (err) {
    showError(err);
    return;
  }
  $("lexicon").addEventListener("change", () => offerDice(chosenDice()?.name));
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    if (game.playing && !confirm("End this round and start a new one? Its words will be lost.")) return;
    showError(null);
    newRound();
  });
  $("entry").addEventListener("submit", (event) => {
    event.preventDefault();
    submit($("word").value);
    $("word").value = "";
  });
  $("end-round").addEventListener("click", finish);
  const grid = $("grid");
  grid.addEventListener("pointerdown", startTrace);
  grid.addEventListener("pointermove", moveTrace);
  grid.addEventListener("pointerup", endTrace);
  grid.addEventListener("pointercancel", endTrace);
  newRound(linkSeed(asked.get("seed")));
}

start();
