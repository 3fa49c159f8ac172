"""Rooms, shared links, the daily board, solving a board and the page's languages in a real Chromium (Debian's,
driven by Playwright) against a real server: three players in three browser contexts play one room to the end
(a word found by two struck through), a player reloading mid-round rejoins with their words, a word sent after
the server's end is refused on the page, a link opened in a new context shows the same board, the daily board
is played, submitted and listed best first, the German page speaks German and shows "gläsern" as written, and
says the server's refusals in German.

The server runs in this process (uvicorn on a thread, as `dawg-solve serve` runs it) so that its clock can be
moved: rounds end when the test says, not after real minutes. Skips when Chromium or Playwright is absent,
except under CI.

`ROOMS_SCREENSHOTS=docs python -m pytest tests/test_rooms_browser.py -k three_players` writes the end screen
at a phone's and a desktop's size (docs/rooms-phone.png, docs/rooms-desktop.png).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import httpx2
import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, need

from boggle_dawg.server.served import Limits, PlayLimits, close_served, open_served

pytestmark = pytest.mark.slow  # a real Chromium against a real server: seconds each

ENGLISH = ["tea", "eat", "ate", "tee", "teas", "seat", "east", "eats", "sate", "quest", "quiet", "quite", "suite",
           "tees", "teat", "state", "taste", "tests", "test", "set", "sea", "seats", "tease", "sates", "etui"]
DENSE = "seat/tase/quit/eats"  # holds most of ENGLISH
GERMAN = ["gläsern", "Glas", "Gras", "Straße", "rasen", "Nase", "Ehre", "leer"]
GLAESERN = "glaenresxxxxxxxx"  # gläsern (played as glaesern) along its rows, and Glas
BOB = "<img src=x onerror=1>"  # a name that is markup: shown as typed
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
WAIT_MS = 10_000  # the longest a page may take to show what a test waits for
SCREENSHOTS = os.environ.get("ROOMS_SCREENSHOTS")  # a folder for the end screen's pictures (docs/)


class SkewClock:
    """The server's clock: this machine's, moved by the test (`skew` seconds ahead)."""

    def __init__(self) -> None:
        self.skew = 0.0

    def __call__(self) -> float:
        return time.time() + self.skew


@dataclass
class Live:
    url: str
    clock: SkewClock
    app: object

    def end_round(self, code: str) -> None:
        """The round's time is up by the server's clock, and its alarm rings (as it would, `seconds` later)."""
        state = httpx2.get(f"{self.url}/api/rooms/{code}", timeout=10).json()
        self.clock.skew += state["ends"] - state["now"] + 1
        self.app.state.rooms.settle(code)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """English and German lexicons served by the application in this process, on uvicorn, on a free port."""
    import uvicorn

    from boggle_dawg import build_lexicon
    from boggle_dawg.server.app import create_app

    root = tmp_path_factory.mktemp("live")
    build_lexicon(ENGLISH, out=root / "en", language="en")
    build_lexicon(GERMAN, out=root / "de", language="de")
    served = open_served([root / "en", root / "de"], None, jobs=1)
    clock = SkewClock()
    app = create_app(served, Limits(), (), PlayLimits(), None, clock)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)
    server = uvicorn.Server(uvicorn.Config(app, ws="websockets-sansio", lifespan="off", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    host, port = listening.getsockname()
    yield Live(f"http://{host}:{port}", clock, app)
    server.should_exit = True
    thread.join(10)
    close_served(served)


@pytest.fixture(scope="module")
def chromium():
    need(shutil.which(CHROMIUM) is not None, f"{CHROMIUM} not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def contexts(chromium):
    """contexts(viewport) -> a page in a browser context of its own (its own storage: another player)."""
    made, errors = [], []

    def open_page(viewport=PHONE):
        context = chromium.new_context(viewport=viewport)
        made.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_page
    for context in made:
        context.close()
    assert errors == []  # no script failed on any page


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


# --- helpers that play as a person does ----------------------------------------------------------


def make_room(page, live: Live, name: str, board: str = DENSE, cancel: bool = True, seconds: str = "60") -> str:
    page.goto(f"{live.url}/?view=room&lexicon=en")
    page.fill("#room-name", name)
    page.fill("#room-board", board)
    page.select_option("#seconds", seconds)
    if not cancel:
        page.uncheck("#room-cancel")
    page.click("#room-make")
    page.wait_for_url("**/?room=*")
    expect(page.locator("#room-players li")).to_have_count(1)
    return page.text_content("#room-code")


def join_room(page, live: Live, code: str, name: str) -> None:
    page.goto(f"{live.url}/?room={code}")
    page.fill("#joining-name", name)
    page.click("#room-join button")
    expect(page.locator("#room-players .you")).to_have_count(1)


def say(page, word: str) -> str:
    """Type a word and wait for the server's verdict on it, as the page shows it (the word as written)."""
    page.eval_on_selector("#answer", "answer => { answer.textContent = ''; }")  # the next verdict's, not the last
    page.fill("#word", word)
    page.press("#word", "Enter")
    answer = page.locator("#answer")
    expect(answer).to_contain_text(re.compile(f"^{re.escape(word)}:", re.IGNORECASE))
    return answer.text_content()


def board_of(page) -> str:
    return page.get_attribute("#grid", "data-board")


def column_words(page, player: int) -> list[tuple[str, bool]]:
    """A player's words on the end screen: (the word as shown, struck through)."""
    return page.eval_on_selector_all(f"#room-columns section[data-player='{player}'] li",
                                     "items => items.map(i => [i.querySelector('button span, button s').textContent, "
                                     "i.querySelector('s') !== null])")


# --- the tests ---------------------------------------------------------------------------------


def test_three_players_play_a_room_to_the_end(live, contexts):
    ann, bob, cy = contexts(PHONE), contexts(DESKTOP), contexts(PHONE)
    code = make_room(ann, live, "Ann")
    expect(ann.locator("#room-link")).to_have_value(f"{live.url}/?room={code}")
    join_room(bob, live, code, "Bob")
    join_room(cy, live, code, "Cy")
    for page in (ann, bob, cy):
        expect(page.locator("#room-players .name")).to_have_text(["Ann", "Bob", "Cy"])
    expect(bob.locator("#room-wait")).to_have_text("Waiting for Ann to start the round.")
    assert bob.is_hidden("#room-start") and ann.is_visible("#room-start")

    ann.click("#room-start")
    for page in (ann, bob, cy):
        expect(page.locator("#grid")).to_have_attribute("data-board", "seattasequiteats")
        expect(page.locator("#play")).to_be_visible()
    assert ann.text_content("#timer") in ("1:00", "0:59", "0:58")
    assert say(ann, "seat") == "seat: +1 point" and say(ann, "suite") == "suite: +2 points"
    assert say(bob, "SEAT") == "seat: +1 point"
    assert say(cy, "eats") == "eats: +1 point"
    assert say(cy, "zzz") == "zzz: not on the board"
    expect(ann.locator("#room-players .counts")).to_have_text(["2 words, 3 points", "1 word, 1 point",
                                                               "1 word, 1 point"])  # before the cancel rule
    expect(ann.locator("#found li")).to_have_count(2)

    live.end_round(code)
    results = httpx2.get(f"{live.url}/api/rooms/{code}", timeout=10).json()["results"]
    for page in (ann, bob, cy):
        expect(page.locator("#room-results")).to_be_visible()
        expect(page.locator("#room-columns h3 .score")).to_have_text(["2 points", "0 points", "1 point"])
        expect(page.locator("#room-players .counts")).to_have_count(0)  # the scores are the results' now
        assert column_words(page, 1) == [["seat", True], ["suite", False]]
        assert column_words(page, 2) == [["seat", True]]
        assert column_words(page, 3) == [["eats", False]]
        assert page.eval_on_selector_all("#room-missed button", "bs => bs.map(b => b.dataset.word)") == \
            [m["word"] for m in results["missed"]]
    assert results["missed"][0]["points"] >= results["missed"][-1]["points"]  # best first

    link = ann.locator("#room-missed li a.dictionary").first  # a plain link, opened only when clicked
    first = results["missed"][0]["word"]
    assert (link.get_attribute("href"), link.get_attribute("target"), link.get_attribute("rel")) == \
        (f"https://en.wiktionary.org/wiki/{first}", "_blank", "noopener noreferrer")
    ann.click(f"#room-missed button[data-word='{first}']")
    on_path = ann.eval_on_selector_all("#grid .cell.on-path", "cells => cells.map(c => Number(c.dataset.cell))")
    assert sorted(on_path) == sorted(results["missed"][0]["path"])
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        ann.screenshot(path=str(Path(SCREENSHOTS) / "rooms-phone.png"), full_page=True)
        bob.screenshot(path=str(Path(SCREENSHOTS) / "rooms-desktop.png"))

    assert bob.is_hidden("#room-rematch")
    ann.click("#room-rematch")  # the room and its players kept; a new round waits for its start
    for page in (ann, bob, cy):
        expect(page.locator("#room-title")).to_have_text(f"Room {code}, round 2")
        expect(page.locator("#room-results")).to_be_hidden()
    expect(bob.locator("#room-wait")).to_have_text("Waiting for Ann to start the round.")
    ann.click("#room-start")
    expect(cy.locator("#play")).to_be_visible()
    expect(cy.locator("#found li")).to_have_count(0)


def test_a_player_reloading_mid_round_rejoins_with_their_words(live, contexts):
    ann, bob = contexts(), contexts()
    code = make_room(ann, live, "Ann")
    join_room(bob, live, code, BOB)
    expect(ann.locator("#room-players .name")).to_have_text(["Ann", BOB])  # a name is data: shown as typed,
    assert ann.locator("#room-players img").count() == 0 and bob.locator("#room-players img").count() == 0  # not markup
    ann.click("#room-start")
    expect(bob.locator("#play")).to_be_visible()
    say(bob, "seat")
    say(bob, "suite")
    bob.reload()  # the token is kept for this room: the same player, the same round
    expect(bob.locator("#found li")).to_have_count(2)
    assert bob.eval_on_selector_all("#found li span:first-child", "s => s.map(e => e.textContent)") == \
        ["suite", "seat"]
    expect(bob.locator("#score")).to_have_text("3 points")
    assert bob.is_hidden("#room-join")
    expect(bob.locator("#room-players .you")).to_have_count(1)
    assert say(bob, "seat") == "seat: already found"
    onlooker = contexts()  # the link opened, no seat taken: a word asks for one
    onlooker.goto(f"{live.url}/?room={code}")
    expect(onlooker.locator("#room-join")).to_be_visible()
    onlooker.fill("#word", "seat")
    onlooker.press("#word", "Enter")
    expect(onlooker.locator("#error")).to_have_text("Join the room with a name to play.")
    assert say(bob, "east") == "east: +1 point"
    expect(ann.locator("#room-players .counts")).to_have_text(["0 words, 0 points", "3 words, 4 points"])
    expect(ann.locator("#room-players li.away")).to_have_count(0)


def test_a_late_word_is_refused_by_the_servers_clock(live, contexts):
    live.clock.skew += 3600  # the server's clock an hour from this machine's: the page counts down by the server's
    page = contexts()
    make_room(page, live, "Ann")
    page.click("#room-start")
    expect(page.locator("#play")).to_be_visible()
    assert page.text_content("#timer") in ("1:00", "0:59", "0:58")
    assert say(page, "seat") == "seat: +1 point"
    live.clock.skew += 61  # the round is over by the server's clock; the page, told nothing, still counts down
    assert page.text_content("#timer") != "0:00"
    assert say(page, "east") == "east: too late: the round is over"
    expect(page.locator("#room-results")).to_be_visible()  # the late word ended the round on the server
    assert column_words(page, 1) == [["seat", False]]
    expect(page.locator("#answer")).to_have_text("east: too late: the round is over")


def test_a_link_opened_in_a_new_context_shows_the_same_board(live, contexts):
    first, second = contexts(), contexts(DESKTOP)
    # a roll of the dice: the address gains the lexicon, dice, rules and seed
    first.goto(f"{live.url}/?lexicon=en")
    first.wait_for_url("**seed=*")
    assert "dice=classic" in first.url and "rules=standard" in first.url
    second.goto(first.url)
    expect(second.locator("#grid")).to_have_attribute("data-board", board_of(first))
    assert second.text_content("#origin") == first.text_content("#origin")
    # a given board, under other rules
    first.goto(f"{live.url}/?lexicon=en&rules=big&board={DENSE}")
    expect(first.locator("#grid")).to_have_attribute("data-board", "seattasequiteats")
    second.goto(first.url)
    expect(second.locator("#grid")).to_have_attribute("data-board", "seattasequiteats")
    assert second.input_value("#rules") == "big"
    # a board solved
    first.goto(f"{live.url}/?view=solve&lexicon=en")
    first.fill("#solve-board", "SEAT\nTASE\nQUIT\nEATS")
    first.click("#solve-form button")
    first.wait_for_url("**board=seattasequiteats*")
    second.goto(first.url)
    expect(second.locator("#solve-words li")).to_have_count(first.locator("#solve-words li").count())
    assert board_of(second) == "seattasequiteats"
    # the daily board: the address names its day
    first.goto(f"{live.url}/?view=daily&lexicon=en")
    first.wait_for_url("**date=*")
    second.goto(first.url)
    expect(second.locator("#grid")).to_have_attribute("data-board", board_of(first))
    # a room: covered by test_three_players_play_a_room_to_the_end (the others open its link)


def test_solving_a_board_shows_each_words_path(live, contexts):
    page = contexts(DESKTOP)
    page.goto(f"{live.url}/?view=solve&lexicon=en&board={quote(DENSE)}")
    solved = httpx2.post(f"{live.url}/api/solve", json={"board": DENSE, "lexicon": "en"}, timeout=10).json()
    expect(page.locator("#solve-words li")).to_have_count(solved["word_count"])
    assert page.text_content("#solve-summary") == f"{solved['word_count']} words, {solved['score']} points"
    for found in (solved["words"][0], solved["words"][-1]):
        page.hover(f"#solve-words button[data-word='{found['word']}']")
        steps = page.eval_on_selector_all("#grid .cell.on-path", "cells => cells.map(c => [Number(c.dataset.cell), "
                                                                 "Number(c.dataset.step)])")
        assert sorted(steps, key=lambda s: s[1]) == [[cell, step + 1] for step, cell in enumerate(found["path"])]
    page.fill("#solve-board", "seat/ta")
    page.click("#solve-form button")
    expect(page.locator("#error")).to_contain_text("board")  # the server's one line, said on the page


def a_day_with_words(live: Live, least: int) -> tuple[datetime, list[str]]:
    """The first day from 2025-01-01 whose daily board (English, the word-count rules) holds `least` words or
    more (the test's lexicon is small), and those words."""
    day = datetime(2025, 1, 1, 12, tzinfo=UTC)
    for _ in range(200):
        daily = httpx2.get(f"{live.url}/api/daily", params={"lexicon": "en", "rules": "words",
                                                              "date": day.date().isoformat()}, timeout=10).json()
        words = [w["word"] for w in httpx2.post(f"{live.url}/api/solve", json={
            "board": daily["board"]["board"], "lexicon": "en", "rules": "words"}, timeout=10).json()["words"]]
        if len(words) >= least:
            return day, words
        day += timedelta(days=1)
    raise AssertionError(f"no daily board with {least} words")


def test_the_daily_board_is_played_submitted_and_listed_best_first(live, contexts):
    day, words = a_day_with_words(live, 2)
    skew = live.clock.skew
    live.clock.skew = day.timestamp() - time.time()  # that day is today, by the server's clock
    try:
        first, second = contexts(), contexts()
        for page, name, found in ((first, "Ann", words[:1]), (second, "Bob", words[:2])):
            page.goto(f"{live.url}/?view=daily&lexicon=en&rules=words")
            page.wait_for_url(f"**date={day.date().isoformat()}*")
            for word in found:
                say(page, word)
            page.click("#end-round")
            expect(page.locator("#daily-submit")).to_be_visible()
            if name == "Bob":  # the answers were shown: a reload offers his words to submit, not a second try
                page.reload()
                expect(page.locator("#daily-submit")).to_be_visible()
                assert page.is_hidden("#play")
            page.fill("#daily-name", name)
            page.click("#daily-submit button")
            points = f"{len(found)} point" + ("" if len(found) == 1 else "s")
            expect(page.locator("#daily-note")).to_have_text(f"Your result is in: {points}.")
        expect(second.locator("#daily-list .name")).to_have_text(["Bob", "Ann"])  # best first
        expect(second.locator("#daily-list .score")).to_have_text(["2 points", "1 point"])
        first.reload()  # played here already: its results, not a second try
        expect(first.locator("#daily-list li")).to_have_count(2)
        assert first.is_hidden("#play")
        first.goto(f"{live.url}/?view=daily&lexicon=en&rules=words&date=2024-12-31")  # a day gone: its results
        expect(first.locator("#daily-note")).to_have_text("This board's day is over: here are its results.")
    finally:
        live.clock.skew = skew


def test_the_german_page_speaks_german_and_shows_words_as_written(live, contexts):
    page = contexts()
    page.goto(f"{live.url}/?lexicon=de&board={GLAESERN}")
    expect(page.locator("#end-round")).to_have_text("Runde beenden")
    assert page.get_attribute("html", "lang") == "de" and page.input_value("#ui-language") == "de"
    assert page.text_content("#nav-room") == "Mit anderen spielen"
    assert say(page, "Glas") == "Glas: +1 Punkt"  # as written: a noun with its capital
    assert say(page, "zzz") == "zzz: nicht auf dem Brett"
    page.click("#end-round")
    missed = page.locator("#missed-words li")
    expect(missed.first).to_be_visible()
    shown = page.eval_on_selector_all("#missed-words button span:first-child", "s => s.map(e => e.textContent)")
    assert "gläsern" in shown and "glaesern" not in shown
    link = page.locator("#missed-words li", has_text="gläsern").locator("a.dictionary")
    assert link.get_attribute("href") == "https://de.wiktionary.org/wiki/gl%C3%A4sern"
    assert page.text_content("#your-words button span") == "Glas"

    page.select_option("#ui-language", "en")  # the switch: the page in English, kept for the next page
    expect(page.locator("#end-round")).to_have_text("End round")
    page.goto(f"{live.url}/?view=solve&lexicon=de&board={GLAESERN}")
    expect(page.locator("#solve-words li", has_text="gläsern")).to_have_count(1)
    assert page.text_content("#nav-room") == "Play with others"
    link = page.locator("#solve-words li", has_text="gläsern").locator("a.dictionary")
    assert link.get_attribute("href") == "https://de.wiktionary.org/wiki/gl%C3%A4sern"  # the lexicon's language


def test_the_servers_refusals_are_said_in_the_pages_language(live, contexts):
    """A refusal's code is said in the page's language: a name taken and a room full on joining (HTTP), a token
    that is no player's (the WebSocket's error before its close), here in German, the room's language; where the
    catalogue lacks the code, the server's English line is shown."""
    code = httpx2.post(f"{live.url}/api/rooms", json={"name": "Ann", "lexicon": "de", "board": GLAESERN},
                       timeout=10).json()["code"]
    page = contexts()
    page.goto(f"{live.url}/?room={code}")
    page.fill("#joining-name", "ann")
    page.click("#room-join button")
    expect(page.locator("#error")).to_have_text(f"Der Name „ann“ ist in Raum {code} schon vergeben; "
                                                "wähle einen anderen.")
    for number in range(2, PlayLimits().players + 1):
        httpx2.post(f"{live.url}/api/rooms/{code}/players", json={"name": f"P{number}"}, timeout=10)
    page.fill("#joining-name", "Zoe")
    page.click("#room-join button")
    expect(page.locator("#error")).to_have_text(f"Raum {code} ist voll: höchstens {PlayLimits().players} Spieler.")

    stranger = contexts()  # a token kept for the room that is no player's
    stranger.add_init_script(f"localStorage.setItem('boggle-room:{code}', JSON.stringify({{token: 'nobody'}}))")
    stranger.goto(f"{live.url}/?room={code}")
    expect(stranger.locator("#room-note")).to_have_text("Der Platz dieses Browsers im Raum gilt nicht mehr; "
                                                         "tritt mit einem Namen erneut bei.")
    expect(stranger.locator("#error")).to_have_text(f"Dieser Browser spielt nicht mehr in Raum {code} mit; tritt mit "
                                                    "einem Namen erneut bei.")
    expect(stranger.locator("#joining-title")).to_have_text(f"Raum {code} beitreten")  # offered at once
    expect(stranger.locator("#room-join")).to_be_visible()
    stranger.select_option("#ui-language", "en")  # what the page says of its own is said again
    expect(stranger.locator("#joining-title")).to_have_text(f"Join room {code}")
    expect(stranger.locator("#room-note")).to_have_text(re.compile("^This browser's "))

    older = contexts()  # a German catalogue without the code (a page older than its server): the English line
    german = httpx2.get(f"{live.url}/static/i18n/de.json", timeout=10).json()
    del german["error.room_full"]
    older.route("**/static/i18n/de.json", lambda route: route.fulfill(json=german))
    older.goto(f"{live.url}/?room={code}")
    expect(older.locator("#room-join button")).to_have_text("Beitreten")
    older.fill("#joining-name", "Zoe")
    older.click("#room-join button")
    expect(older.locator("#error")).to_have_text(f"room {code}: full ({PlayLimits().players} players, this server's "
                                                 "limit)")
