// Rooms: several players on one board at the same time, against the server's clock (docs/server.md, "Rooms").
//
// `?view=room` makes a room or joins one by its code; `?room=CODE` is a room's link. Joining gives a secret
// token, kept in this browser for that room only (localStorage), so a reload or a lost connection rejoins
// the same round: the WebSocket's `welcome` gives back the player's words. Everything else comes from the
// server over the room's WebSocket: who is in and how far each has got (`state`), each word's `verdict`
// (a word that arrives after the end is refused there, whatever this page's clock says), and at the end
// every player's words side by side (`results`). The page counts down by the server's clock: `ends` less
// the server's `now`, corrected by how far this machine's clock is from it.
"use strict";

import {$, api, clock, el, stored} from "./common.js";
import {clearBoard, currentBoard, drawBoard, markPath, wordList} from "./board.js";
import {onLanguage, say, showError, t} from "./i18n.js";
import {showScore, showVerdict, setFound, addFound} from "./play.js";
import {chosenDice, chosenLexicon, chosenRules, chosenSeconds, lexiconNamed, rulesTitle} from "./settings.js";

const RETRY_MOST_MS = 10_000;  // the longest wait between two tries to reconnect
const GONE = new Set([4001, 4004]);  // the room is closed, or never was
const NOT_YOURS = 4003;  // the token kept is no player's of this room

const room = {
  code: null,
  token: null,
  me: null,  // {id, name, creator}, from the welcome
  state: null,  // the last `state`
  results: null,  // the round's `results`, once it is over
  shown: null,  // the results on the page
  round: null,  // the round number the page shows
  offset: 0,  // the server's clock less this machine's, in seconds
  socket: null,
  refusal: null,  // an `error` that was the connection's last message: a close that follows is for it
  retries: 0,
  ticker: null,
  language: null,  // the room lexicon's language (the grid's lang)
  dictionary: null,  // its dictionary's URL template
};

const tokenKey = (code) => `boggle-room:${code}`;
const NAME = "boggle-name";  // the name last used, offered again

// --- making and joining ---------------------------------------------------------------------

function remember(joined) {
  stored.set(tokenKey(joined.code), {token: joined.player.token, id: joined.player.id, name: joined.player.name});
  stored.set(NAME, joined.player.name);
}

async function makeRoom(event) {
  event.preventDefault();
  showError(null);
  const lexicon = chosenLexicon();
  const body = {name: $("room-name").value, lexicon: lexicon.name, rules: chosenRules(), seconds: chosenSeconds(),
                cancel: $("room-cancel").checked};
  const board = $("room-board").value.trim();
  if (board) {
    body.board = board;
    if ($("room-size").value.trim()) body.size = $("room-size").value.trim();
  } else {
    const dice = chosenDice();
    if (!dice) return showError({key: "play.no_dice"});
    Object.assign(body, {dice: dice.name, size: dice.size});
  }
  try {
    const joined = await api("/api/rooms", body);
    remember(joined);
    location.assign(joined.link);
  } catch (err) {
    showError(err);
  }
}

async function joinByCode(event) {
  event.preventDefault();
  showError(null);
  const code = $("join-code").value.trim().toUpperCase();
  if (!code) return;
  if (stored.get(tokenKey(code))) return location.assign(`/?room=${encodeURIComponent(code)}`);
  try {
    const joined = await api(`/api/rooms/${encodeURIComponent(code)}/players`, {name: $("join-name").value});
    remember(joined);
    location.assign(joined.link);
  } catch (err) {
    showError(err);
  }
}

// --- one room ---------------------------------------------------------------------------------

// The room a link names, as anyone with its code sees it: its lexicon picks the page's language.
export async function peekRoom(code) {
  try {
    return await api(`/api/rooms/${encodeURIComponent(code)}`);
  } catch (err) {
    return {error: err};
  }
}

async function joinThis(event) {
  event.preventDefault();
  showError(null);
  try {
    const joined = await api(`/api/rooms/${encodeURIComponent(room.code)}/players`, {name: $("joining-name").value});
    remember(joined);
    room.token = joined.player.token;
    $("room-join").hidden = true;
    connect();
  } catch (err) {
    showError(err);
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${encodeURIComponent(room.code)}/socket`);
  room.socket = socket;
  socket.addEventListener("open", () => socket.send(JSON.stringify({kind: "hello", token: room.token})));
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    if (room.socket === socket) closed(event);
  });
}

function closed(event) {
  room.socket = null;
  if (GONE.has(event.code) || event.code === NOT_YOURS) {
    stored.remove(tokenKey(room.code));
    stopTicker();
    say($("room-note"), event.code === NOT_YOURS ? "room.not_yours" : "room.gone");
    showError(whyClosed(event));
    if (event.code === NOT_YOURS) offerToJoin();  // this browser's seat is gone: it may take a new one
    return;
  }
  // lost, or refused for a while (too many messages, too many tabs): try again, waiting longer each time
  const wait = Math.min(RETRY_MOST_MS, 500 * 2 ** room.retries);
  room.retries += 1;
  say($("room-note"), "room.reconnecting");
  const why = whyClosed(event);
  if (why) showError(why);
  setTimeout(connect, wait);
}

// Why the server closed the connection: the refusal it sent just before, which has a code (said in the
// page's language), else the close's reason (English); nothing for a connection lost.
function whyClosed(event) {
  return event.reason ? room.refusal || event.reason : null;
}

function send(message) {
  if (!room.token) {  // looking on: a seat is taken by joining
    showError({key: "room.join_first"});
    return;
  }
  if (!room.socket || room.socket.readyState !== WebSocket.OPEN) {
    showError({key: "room.not_connected"});
    return;
  }
  room.socket.send(JSON.stringify(message));
}

function receive(message) {
  room.refusal = message.kind === "error" ? message : null;
  switch (message.kind) {
    case "welcome":
      room.me = message.player;
      room.retries = 0;
      say($("room-note"), null);
      showError(null);
      setFound(message.words);
      showScore(message.score);
      room.results = message.results;
      break;
    case "state":
      takeState(message);
      break;
    case "verdict":
      showVerdict(message);
      showScore(message.score);
      if (message.verdict === "accepted") addFound(message);
      break;
    case "results":
      room.results = message;
      showResults();
      break;
    case "error":
      showError(message);
      break;
    default:
      break;  // a kind this page does not know yet: nothing to show
  }
}

// --- what the page shows ----------------------------------------------------------------------

// A state from the server: its clock's offset from this machine's (its `now` as it was sent: the time the
// message took is the offset's error, a fraction of a second), then what it shows.
function takeState(state) {
  room.offset = state.now - Date.now() / 1000;
  showState(state);
}

function creatorName(state) {
  return state.players.find((p) => p.creator)?.name ?? "";
}

function showState(state) {
  const fresh = room.round !== state.round;
  room.state = state;
  if (fresh) {  // a new round (a rematch): the last one's words and verdicts go
    room.round = state.round;
    if (room.results && room.results.round !== state.round) room.results = null;
    showVerdict(null);
    if (state.phase === "waiting") {
      setFound([]);
      showScore(0);
    }
  }
  $("room-title").textContent = t("room.title", {code: state.code, n: state.round});
  $("room-code").textContent = state.code;
  $("room-link").value = new URL(state.link, location.href).href;
  showSettings(state.settings);
  showPlayers(state);
  const creator = room.me?.creator;
  $("room-start").hidden = !(creator && state.phase === "waiting");
  $("room-rematch").hidden = !(creator && state.phase === "finished");
  $("room-wait").hidden = creator || state.phase === "playing";
  $("room-wait").textContent = state.phase === "waiting" ? t("room.wait_start", {name: creatorName(state)})
    : t("room.wait_rematch", {name: creatorName(state)});
  $("room-share").hidden = state.phase === "playing";
  if (state.board) {
    if (currentBoard()?.board !== state.board.board || fresh) drawBoard(state.board);
    $("grid").lang = room.language;
  } else {
    clearBoard();
  }
  $("board-side").hidden = !state.board;
  $("play").hidden = state.phase !== "playing";
  $("word").disabled = state.phase !== "playing";
  if (state.phase === "playing") {
    startTicker();
  } else {
    stopTicker();
    $("timer").textContent = clock(state.phase === "waiting" ? state.settings.seconds : 0);
  }
  if (state.phase === "finished" && room.results) {
    if (room.shown !== room.results) showResults();  // once: a later state (a player leaving) keeps the word chosen
  } else {
    $("room-results").hidden = true;
  }
}

function showSettings(settings) {
  const parts = [lexiconNamed(settings.lexicon)?.language.title ?? settings.lexicon,
                 settings.dice ? `${settings.dice} (${settings.size})` : t("room.given_board", {size: settings.size}),
                 rulesTitle(settings.rules), t("setup.minutes", {n: settings.seconds / 60}),
                 settings.cancel ? t("room.cancel_on") : t("room.cancel_off")];
  $("room-settings").textContent = parts.join(" · ");
}

// Who is in; while the round is played, how far each has got (the end's scores are the results', after the
// cancel rule).
function showPlayers(state) {
  const counting = state.phase === "playing";
  $("room-players").replaceChildren(...state.players.map((player) => {
    const item = el("li", {className: player.connected ? "" : "away", data: {player: player.id}},
                    el("span", {className: "name"}, player.name));
    if (player.id === room.me?.id) item.append(el("span", {className: "you"}, t("room.you")));
    if (player.creator) item.append(el("span", {className: "host", title: t("room.host")}, "★"));
    if (!player.connected) item.append(el("span", {className: "away-note"}, t("room.away")));
    if (counting) {
      item.append(el("span", {className: "counts"}, t("room.counts", {words: t("count.words", {n: player.words}),
                                                                     points: t("count.points", {n: player.score})})));
    }
    return item;
  }));
}

function tick() {
  const state = room.state;
  const left = state.ends - (Date.now() / 1000 + room.offset);
  $("timer").textContent = clock(left);
  $("timer").classList.toggle("low", left <= 10);
  // at 0 the page waits for the server's results: the server ends the round, and judges a word sent late
}

function startTicker() {
  if (room.ticker === null) room.ticker = setInterval(tick, 250);
  tick();
}

function stopTicker() {
  clearInterval(room.ticker);
  room.ticker = null;
  $("timer").classList.remove("low");
}

// The end: every player's words side by side (a cancelled word struck through), the words nobody found.
function showResults() {
  const results = room.results;
  if (!results) return;
  room.shown = results;
  $("play").hidden = true;
  $("room-results").hidden = false;
  markPath([], "on-path");
  const mine = results.players.find((p) => p.id === room.me?.id);
  if (mine) showScore(mine.score);  // after the cancel rule
  if ($("answer").classList.contains("accepted")) showVerdict(null);  // a refusal stays: a late word's, say
  const best = Math.max(...results.players.map((p) => p.score));
  $("room-columns").replaceChildren(...results.players.map((player) => {
    const list = el("ul", {className: "words"});
    wordList(list, player.words, {struck: (w) => w.cancelled});
    const heading = el("h3", {}, el("span", {className: "name"}, player.name),
                       el("span", {className: "score"}, t("count.points", {n: player.score})));
    return el("section", {className: player.score === best && best > 0 ? "player best" : "player",
                          data: {player: player.id}}, heading, list);
  }));
  $("room-cancelled-note").hidden = !results.cancel;
  $("room-maximum").textContent = t("room.maximum", {points: t("count.points", {n: results.maximum}),
                                                     words: t("count.words", {n: results.word_count})});
  wordList($("room-missed"), results.missed, {dictionary: room.dictionary});
}

onLanguage(() => {
  room.shown = null;  // the results' texts written again
  if (room.state) showState(room.state);
});

// --- the view -----------------------------------------------------------------------------------

// `peeked`: the room as GET /api/rooms/CODE gave it (app.js asked first, for the language), or {error}.
export function roomView(asked, peeked) {
  $("room-panel").hidden = false;
  const code = (asked.get("room") || "").toUpperCase();
  $("room-create").addEventListener("submit", makeRoom);
  $("join-form").addEventListener("submit", joinByCode);
  $("room-start").addEventListener("click", () => send({kind: "start"}));
  $("room-rematch").addEventListener("click", () => send({kind: "rematch"}));
  $("room-copy").addEventListener("click", copyLink);
  $("room-name").value = $("join-name").value = $("joining-name").value = stored.get(NAME) || "";
  if (!code) {  // make a room, or join one by its code
    $("room-setup").hidden = false;
    $("board-side").hidden = true;
    return null;
  }
  $("setup").hidden = true;  // the room's settings are its own
  $("board-side").hidden = true;
  room.code = code;
  if (peeked.error) {
    showError(peeked.error);
    say($("room-note"), peeked.error.status === 404 ? "room.gone" : null);
    return null;
  }
  const language = lexiconNamed(peeked.settings.lexicon)?.language;
  room.language = language?.name ?? "en";
  room.dictionary = language?.dictionary ?? null;
  $("room-info").hidden = false;
  room.state = null;
  room.results = peeked.results;
  takeState(peeked);
  const kept = stored.get(tokenKey(code));
  if (kept?.token) {
    room.token = kept.token;
    connect();
  } else {
    offerToJoin();
  }
  return {
    active: () => room.state?.phase === "playing",
    submit(text) {
      const word = text.trim();
      if (word) send({kind: "word", word});
    },
  };
}

function offerToJoin() {
  room.token = null;
  $("room-join").hidden = false;
  say($("joining-title"), "room.join_named", {code: room.code});
  $("room-join").addEventListener("submit", joinThis);  // (added once: the same listener again is no second one)
}

async function copyLink() {
  const link = $("room-link");
  try {
    await navigator.clipboard.writeText(link.value);
    $("room-copy").textContent = t("room.copied");
  } catch {
    link.select();  // no clipboard here (an http page on another machine): the link selected, to copy by hand
  }
}
