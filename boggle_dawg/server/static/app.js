// The browser game's start: what the server serves, the page's language, and the view the address names.
//
// The address always names what the page shows, so that a link opens the same thing anywhere:
//   /?lexicon=&dice=&size=&rules=&seed=     a round on a roll of the dice (play.js)
//   /?lexicon=&rules=&board=&size=          a round on a given board
//   /?room=CODE                             a room (room.js); /?view=room makes or joins one
//   /?view=daily&lexicon=&rules=&date=      the daily board (daily.js)
//   /?view=solve&lexicon=&rules=&board=     every word of a board (solve.js)
// Each view is its own page load: the links between them are plain links.
"use strict";

import {$, fill} from "./common.js";
import {endTrace, traceWords} from "./board.js";
import {LANGUAGES, language, onLanguage, showError, startingLanguage, t, useLanguage} from "./i18n.js";
import {playView} from "./play.js";
import {peekRoom, roomView} from "./room.js";
import {dailyView} from "./daily.js";
import {solveView} from "./solve.js";
import {chosenLexicon, chosenRules, lexiconNamed, loadServed, offerMenus} from "./settings.js";

const VIEWS = ["play", "room", "daily", "solve"];

function viewOf(asked) {
  if (asked.get("room")) return "room";
  return VIEWS.includes(asked.get("view")) ? asked.get("view") : "play";
}

// The navigation's links carry the chosen lexicon and rules to the other views.
function pointNavigation(view) {
  const keep = {lexicon: chosenLexicon().name, rules: chosenRules()};
  for (const name of VIEWS) {
    const link = $(`nav-${name}`);
    link.href = `/?${new URLSearchParams(name === "play" ? keep : {view: name, ...keep})}`;
    if (name === view) link.setAttribute("aria-current", "page");
  }
}

function offerLanguages() {
  fill($("ui-language"), Object.entries(LANGUAGES), language());
  $("ui-language").addEventListener("change", () => useLanguage($("ui-language").value, true).catch(showError));
}

async function start() {
  const asked = new URLSearchParams(location.search);
  const view = viewOf(asked);
  document.body.dataset.view = view;
  let peeked = null;
  try {
    await loadServed();
    offerMenus(asked);
    if (view === "room" && asked.get("room")) peeked = await peekRoom(asked.get("room").toUpperCase());
    const lexicon = (peeked && !peeked.error && lexiconNamed(peeked.settings.lexicon)) || chosenLexicon();
    await useLanguage(startingLanguage(lexicon.language.name));
  } catch (err) {
    showError(err);
    return;
  }
  offerLanguages();
  for (const setting of document.querySelectorAll("#setup .setting")) {
    setting.hidden = !setting.classList.contains(`for-${view}`) || (setting.id === "lexicon-choice" && setting.hidden);
  }
  pointNavigation(view);
  $("end-round").hidden = view !== "play" && view !== "daily";  // a room ends by the server's clock
  for (const menu of ["lexicon", "rules"]) {
    $(menu).addEventListener("change", () => {
      pointNavigation(view);
      if (view === "daily") location.assign($("nav-daily").href);  // another lexicon or rules: another board
    });
  }
  if (view !== "play") $("setup").addEventListener("submit", (event) => event.preventDefault());
  onLanguage(() => {
    document.title = t("title");
  });
  document.title = t("title");

  const views = {play: playView, room: (a) => roomView(a, peeked), daily: dailyView, solve: solveView};
  const words = await views[view](asked);  // where typed and traced words go: {active(), submit(word)}, or null
  $("entry").addEventListener("submit", (event) => {
    event.preventDefault();
    if (words) words.submit($("word").value);
    $("word").value = "";
  });
  traceWords(() => Boolean(words && words.active()), (word) => words && words.submit(word));
  window.addEventListener("blur", endTrace);
}

start();
