"""Rooms, the daily board and the results database through Starlette's test client (HTTP and WebSocket): three
players play one room to the end (a word found by two cancelled, or not with the rule off), a word after the end
is refused by the server's clock (injected: no sleeping), a player who reconnects gets their words back, every
kind of bad message closes only its own connection, every limit is refused in one line (a room's refusal with its
code and params too, each code said by every catalogue of the page), and the finished rounds and daily results
outlive the application that wrote them."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from string import Formatter

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server import start_server

from boggle_dawg.server.app import create_app
from boggle_dawg.server.catalog import Catalog
from boggle_dawg.server.models import ERRORS, DailyOut, DailyResultsOut, ErrorOut, JoinedOut, KeptRoundOut, ResultsOut, RoomOut
from boggle_dawg.server.results import DATABASE_FILE, SCHEMA_VERSION, open_results
from boggle_dawg.server.rooms import CODE_ALPHABET, CODE_LENGTH, Alarms
from boggle_dawg.server.served import Limits, PlayLimits, close_served, open_served
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.dice_sets import load_dice, roll
from boggle_dawg.solver.errors import DawgError

from support import REPO

WORDS = ["tea", "eat", "ate", "tee", "teas", "seat", "east", "eats", "sate", "quest", "quiet", "quite", "suite",
         "tees", "teat", "state", "taste", "tests", "test", "set", "sea"]
DENSE = "seat/tase/quit/eats"  # holds most of WORDS
START = 1_750_000_000.0  # 2025-06-15 15:06:40 UTC


class Clock:
    """The server's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


class DictStore:
    """A RoomStore that keeps each state as JSON text, as a shared store (Redis) would: what the service keeps
    must be plain data, read back whole, and changed only through `update`."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.lock = threading.Lock()

    def get(self, code):
        text = self.texts.get(code)
        return None if text is None else json.loads(text)

    def put(self, code, state):
        self.texts[code] = json.dumps(state)

    def update(self, code, change):
        with self.lock:
            state = json.loads(self.texts[code])
            result = change(state)
            self.texts[code] = json.dumps(state)
            return result

    def delete(self, code):
        self.texts.pop(code, None)

    def codes(self):
        return list(self.texts)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    source = tmp_path_factory.mktemp("words") / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    out = tmp_path_factory.mktemp("build") / "en"
    build_lexicon(source, parse_charset("26"), out)
    lexicons = open_served([out], None, jobs=1)
    yield lexicons
    close_served(lexicons)


@pytest.fixture
def clock():
    return Clock()


def app_for(served, clock, results=None, store=None, **limits) -> TestClient:
    return TestClient(create_app(served, Limits(), (), PlayLimits(**limits), results, clock, store))


@pytest.fixture
def client(served, clock):
    return app_for(served, clock)


def error(response, status: int, *fragments: str) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) <= {"error", "code", "params"} and "\n" not in body["error"], body
    ErrorOut.model_validate(body)
    for fragment in fragments:
        assert fragment in body["error"], (fragment, body["error"])
    return body["error"]


def make_room(client, name="Ann", **settings) -> dict:
    response = client.post("/api/rooms", json={"name": name, "board": DENSE, "seconds": 60, **settings})
    assert response.status_code == 200, response.text
    return JoinedOut.model_validate(response.json()).model_dump()


def join(client, code: str, name: str) -> dict:
    response = client.post(f"/api/rooms/{code}/players", json={"name": name})
    assert response.status_code == 200, response.text
    return response.json()


@contextmanager
def connected(client, joined: dict):
    """A player's connection, past its hello and welcome; the welcome is `socket.welcome`."""
    with client.websocket_connect(f"/api/rooms/{joined['code']}/socket") as socket:
        socket.send_json({"kind": "hello", "token": joined["player"]["token"]})
        socket.welcome = until(socket, "welcome")
        yield socket


def until(socket, kind: str, **fields) -> dict:
    """The first message of `kind` (with these fields) not yet taken; those passed over are kept for later."""
    backlog = socket.__dict__.setdefault("backlog", [])

    def wanted(message: dict) -> bool:
        return message["kind"] == kind and all(message.get(k) == v for k, v in fields.items())

    for at, message in enumerate(backlog):
        if wanted(message):
            return backlog.pop(at)
    for _ in range(50):
        message = socket.receive_json()
        if wanted(message):
            return message
        backlog.append(message)
    raise AssertionError(f"no {kind} message")


def closed(socket) -> tuple[int, str]:
    """The code and reason the server closed the connection with (past the messages still queued)."""
    for _ in range(50):
        try:
            socket.receive_json()
        except WebSocketDisconnect as gone:
            return gone.code, gone.reason
    raise AssertionError("not closed")


def start(socket, number: int = 1) -> dict:
    """Start the round and wait until the server has (so that the test's clock moves after the start)."""
    socket.send_json({"kind": "start"})
    return until(socket, "state", phase="playing", round=number)


def say(socket, word: str) -> dict:
    socket.send_json({"kind": "word", "word": word})
    return until(socket, "verdict")


@pytest.mark.parametrize("store", [None, DictStore], ids=["memory", "plain-data"])
@pytest.mark.parametrize("cancel", [True, False])
def test_three_players_play_a_room_to_the_end(served, clock, cancel, store):
    client = app_for(served, clock, store=store() if store else None)
    ann = make_room(client, cancel=cancel)
    code = ann["code"]
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET) and ann["link"] == f"/?room={code}"
    bob, cy = join(client, code, "Bob"), join(client, code, "Cy")
    assert len({ann["player"]["token"], bob["player"]["token"], cy["player"]["token"]}) == 3
    with connected(client, ann) as a, connected(client, bob) as b, connected(client, cy) as c:
        assert a.welcome["player"] == {"id": 1, "name": "Ann", "creator": True} and a.welcome["words"] == []
        state = until(a, "state", phase="waiting")
        assert state["board"] is None  # not shown before the start
        start(a)
        playing = until(c, "state", phase="playing")
        assert (playing["started"], playing["ends"], playing["now"]) == (START, START + 60, START)
        assert playing["board"]["board"] == "seattasequiteats"
        assert [(v["verdict"], v["points"]) for v in (say(a, "seat"), say(a, "suite"))] == [("accepted", 1), ("accepted", 2)]
        assert say(b, "SEAT ")["word"] == "seat" and say(b, "seat")["verdict"] == "repeated"
        assert [say(c, w)["verdict"] for w in ("eats", "zzz", "se", "tese")] == \
            ["accepted", "not_on_board", "too_short", "not_in_dictionary"]
        seen = until(b, "state", phase="playing")  # counts and points, not which words
        while [p["words"] for p in seen["players"]] != [2, 1, 1]:
            seen = until(b, "state", phase="playing")
        assert [(p["name"], p["words"], p["score"], p["connected"]) for p in seen["players"]] == \
            [("Ann", 2, 3, True), ("Bob", 1, 1, True), ("Cy", 1, 1, True)]
        assert "suite" not in json.dumps(seen)  # no one's words before the end
        clock.now += 60
        late = say(c, " SATE")
        assert (late["verdict"], late["word"], late["points"], late["words"]) == ("too_late", "sate", 0, 1)
        results = until(a, "results")
        ResultsOut.model_validate(results)
        scores = {p["name"]: p["score"] for p in results["players"]}
        words = {p["name"]: [(w["word"], w["cancelled"]) for w in p["words"]] for p in results["players"]}
        if cancel:
            assert results["cancelled"] == ["seat"] and scores == {"Ann": 2, "Bob": 0, "Cy": 1}
            assert words == {"Ann": [("seat", True), ("suite", False)], "Bob": [("seat", True)], "Cy": [("eats", False)]}
        else:
            assert results["cancelled"] == [] and scores == {"Ann": 3, "Bob": 1, "Cy": 1}
        lexicon = served["en"].lexicon
        answers = {f.word: f for f in lexicon.words(DENSE)}
        missed = [m["word"] for m in results["missed"]]
        assert missed == sorted(set(answers) - {"seat", "suite", "eats"}, key=lambda w: (-answers[w].points, w))
        assert all(m["path"] == list(answers[m["word"]].path) for m in results["missed"])
        assert results["maximum"] == lexicon.score(DENSE) and results["word_count"] == len(answers)
        assert until(b, "results") == results and until(c, "results") == results
    room = RoomOut.model_validate(client.get(f"/api/rooms/{code}").json())
    assert room.phase == "finished" and room.results.cancelled == results["cancelled"]
    kept = KeptRoundOut.model_validate(client.get(f"/api/rooms/{code}/rounds/1").json())
    assert (kept.board, kept.cancel, kept.started, kept.ended) == ("seattasequiteats", cancel, START, START + 60)
    assert [(p.name, p.score) for p in kept.players] == list(scores.items())
    assert kept.cancelled == results["cancelled"]


def test_a_word_after_the_end_is_refused_by_the_servers_clock(client, clock):
    ann = make_room(client, seconds=30)
    with connected(client, ann) as a:
        a.send_json({"kind": "word", "word": "seat"})
        assert until(a, "error")["error"] == "word: the round has not started"
        start(a)
        clock.now += 29.75
        assert say(a, "seat")["verdict"] == "accepted"
        clock.now += 0.25
        assert say(a, "east")["verdict"] == "too_late"
        assert until(a, "results")["players"][0]["words"][0]["word"] == "seat"
        assert say(a, "sate")["verdict"] == "too_late"  # and after it is written up


def test_the_round_ends_when_looked_at_after_its_time(client, clock):
    """No player need send anything: the first look at the room after the end writes the round up."""
    ann = make_room(client, seconds=10)
    with connected(client, ann) as a:
        start(a)
    clock.now += 11
    assert client.get(f"/api/rooms/{ann['code']}").json()["phase"] == "finished"
    assert client.get(f"/api/rooms/{ann['code']}/rounds").json()["rounds"][0]["number"] == 1


class _Listener:
    """A connection that reads nothing (the room's hub pushes to it)."""

    def push(self, message) -> None:
        pass


def test_a_state_told_before_a_player_came_back_never_arrives_after_the_one_that_says_so(client, monkeypatch):
    """States are computed and sent one at a time: one computed before Bob came back (sent late here) reaches
    Ann before the one computed after, so the last she sees has him in."""
    rooms = client.app.state.rooms
    ann = make_room(client)
    bob = join(client, ann["code"], "Bob")
    with connected(client, ann) as a:
        until(a, "state")  # Ann's own arrival
        public, computed = rooms._public, threading.Event()

        def late(state: dict) -> dict:  # the first state computed from here on is sent a while after
            view = public(state)
            if not computed.is_set():
                computed.set()
                time.sleep(0.3)
            return view

        monkeypatch.setattr(rooms, "_public", late)
        away = threading.Thread(target=rooms._tell_state, args=(ann["code"],))
        away.start()
        assert computed.wait(10)
        rooms.hub.attach(ann["code"], bob["player"]["id"], _Listener())  # Bob comes back meanwhile
        rooms._tell_state(ann["code"])
        away.join()
        assert [until(a, "state")["players"][1]["connected"] for _ in range(2)] == [False, True]


def test_a_player_who_reconnects_gets_their_words_back(client, clock):
    ann = make_room(client)
    bob = join(client, ann["code"], "Bob")
    with connected(client, ann) as a:
        start(a)
        with connected(client, bob) as b:
            assert say(b, "tea")["verdict"] == "accepted" and say(b, "taste")["points"] == 2
        gone = until(a, "state")
        while (gone["players"][1]["words"], gone["players"][1]["connected"]) != (2, False):  # Ann sees Bob gone
            gone = until(a, "state")
        with connected(client, bob) as b:  # the page reloaded: the same round, the same words
            assert [(w["word"], w["points"]) for w in b.welcome["words"]] == [("tea", 1), ("taste", 2)]
            assert b.welcome["score"] == 3 and b.welcome["player"]["name"] == "Bob"
            assert say(b, "tea")["verdict"] == "repeated"
            back = until(a, "state")
            for _ in range(5):  # Bob's "taste" may have been told after his first connection closed: a second
                # state with him away, still queued for Ann before the one that says he is back
                if back["players"][1]["connected"]:
                    break
                back = until(a, "state")
            assert back["players"][1]["connected"] is True


BAD_MESSAGES = [
    ("not JSON", lambda s: s.send_text("{nope"), 1007, "malformed JSON"),
    ("a binary frame", lambda s: s.send_bytes(b"\x00\x01"), 1003, "JSON text"),
    ("a huge frame", lambda s: s.send_text(json.dumps({"kind": "word", "word": "a" * 2000})), 1009, "limit of 1024"),
    ("not an object", lambda s: s.send_text("[1, 2]"), 1008, "a JSON object with a kind"),
    ("an unknown kind", lambda s: s.send_json({"kind": "dance"}), 1008, "kind 'dance'"),
    ("a wrong type", lambda s: s.send_json({"kind": "word", "word": 5}), 1008, "word message: word: Input should be"),
    ("a field too many", lambda s: s.send_json({"kind": "word", "word": "tea", "x": 1}), 1008, "word message: x"),
    ("a lone surrogate", lambda s: s.send_text('{"kind": "word", "word": "te\\ud800a"}'), 1008, "lone surrogate"),
    ("deep nesting", lambda s: s.send_text("[" * 500 + "]" * 500), 1008, "a JSON object with a kind"),
    ("a second hello", lambda s: s.send_json({"kind": "hello", "token": "x"}), 1008, "said already"),
]


@pytest.mark.parametrize("send, code, reason", [case[1:] for case in BAD_MESSAGES], ids=[c[0] for c in BAD_MESSAGES])
def test_a_bad_message_closes_only_its_connection(client, send, code, reason):
    ann = make_room(client)
    bob = join(client, ann["code"], "Bob")
    with connected(client, ann) as a:
        start(a)
        with connected(client, bob) as b:
            send(b)
            got = closed(b)
            assert got[0] == code and reason in got[1], got
        assert say(a, "seat")["verdict"] == "accepted"  # the other player plays on
        with connected(client, bob) as b:  # and the player may come back
            assert say(b, "tea")["verdict"] == "accepted"


def test_another_players_token_and_a_bad_first_message_are_refused(client):
    ann = make_room(client)
    other = make_room(client, name="Zoe")
    bob = join(client, ann["code"], "Bob")
    with connected(client, ann) as a:
        start(a)
        with connected(client, bob) as b:  # acting with Ann's token on Bob's connection
            b.send_json({"kind": "word", "word": "seat", "token": ann["player"]["token"]})
            assert closed(b) == (4003, "token: not this connection's player (a connection acts for the player of "
                                       "its hello only)")
        for hello, code, reason in [({"kind": "hello", "token": other["player"]["token"]}, 4003, "not a player's of room"),
                                    ({"kind": "word", "word": "seat"}, 1008, "the first message says whose"),
                                    ({"kind": "hello"}, 1008, "hello message: token: Field required")]:
            with client.websocket_connect(f"/api/rooms/{ann['code']}/socket") as s:
                s.send_json(hello)
                got = closed(s)
                assert got[0] == code and reason in got[1], got
        with client.websocket_connect("/api/rooms/NOSUCH22/socket") as s:
            s.send_json({"kind": "hello", "token": ann["player"]["token"]})
            assert closed(s)[0] == 4004
        assert say(a, "seat")["verdict"] == "accepted"
        bob_as_ann = {**bob, "player": {**bob["player"], "token": ann["player"]["token"]}}
        with connected(client, bob_as_ann) as b:  # a token is the player: Ann's token is Ann, whatever the name
            assert b.welcome["player"]["name"] == "Ann"
            b.send_json({"kind": "start"})
            assert "running already" in until(b, "error")["error"]
        with connected(client, bob) as b:
            b.send_json({"kind": "rematch"})
            assert until(b, "error")["error"] == "rematch: only the room's creator starts a rematch"


def test_message_rate_and_connections_are_limited(served, clock):
    client = app_for(served, clock, message_burst=3, messages_per_second=1, connections=1)
    ann = make_room(client)
    bob = join(client, ann["code"], "Bob")
    with connected(client, ann) as a:
        a.send_json({"kind": "start"})  # the hello and this: 2 of 3
        with connected(client, bob) as b:
            say(b, "tea")
            say(b, "eat")
            b.send_json({"kind": "word", "word": "ate"})
            assert closed(b) == (1008, "more than 1 messages a second (bursts of 3), this server's limit")
        clock.now += 1  # one more message allowed a second
        assert say(a, "seat")["verdict"] == "accepted"
        with client.websocket_connect(f"/api/rooms/{ann['code']}/socket") as again:  # a second tab of Ann's
            again.send_json({"kind": "hello", "token": ann["player"]["token"]})
            assert closed(again) == (1008, "player 1: 1 connections open already, this server's limit a player")


def test_limits_on_rooms_players_and_names(served, clock):
    client = app_for(served, clock, rooms=2, players=3, name_chars=8, idle_minutes=5)
    ann = make_room(client)
    make_room(client, name="Ben")
    error(client.post("/api/rooms", json={"name": "Cy", "board": DENSE}), 503, "rooms: 2 open, this server's limit")
    code = ann["code"]
    for name, status, fragment in [("", 400, "name: empty"), ("   ", 400, "name: empty"),
                                   ("Ninechars", 400, "name: 9 characters, more than this server's limit of 8"),
                                   ("a\tb", 400, "only printable"), ("a\nb", 400, "only printable"),
                                   ("\u200bx", 400, "only printable"), (" ANN ", 409, "taken in room")]:
        error(client.post(f"/api/rooms/{code}/players", json={"name": name}), status, fragment)
    error(client.post(f"/api/rooms/{code}/players", content=b'{"name": "\\ud800"}',
                      headers={"content-type": "application/json"}), 400, "lone surrogate")
    error(client.post(f"/api/rooms/{code}/players", json={"name": 5}), 422, "name")
    join(client, code, "Bob")
    join(client, code, "Cy")
    error(client.post(f"/api/rooms/{code}/players", json={"name": "Dee"}), 409, "full (3 players")
    error(client.get("/api/rooms/NOSUCH22"), 404, "no such room")
    for settings, fragment in [({"seconds": 5}, "seconds"), ({"lexicon": "xx"}, "lexicon 'xx'"),
                               ({"rules": "chess"}, "rules 'chess'"), ({"board": "seat/zz"}, ""),
                               ({"dice": "classic"}, "board and dice"), ({"auto_start": 4}, "auto_start: 4 players")]:
        response = client.post("/api/rooms", json={"name": "Eve", "board": DENSE, **settings})
        assert response.status_code in (400, 422) and fragment in response.json()["error"], response.text
    clock.now += 5 * 60  # both rooms idle: dropped, and a new one may open
    error(client.get(f"/api/rooms/{code}"), 404, "no such room", "5 minutes")
    make_room(client)


def test_every_refusal_says_its_code_and_params_beside_its_line(served, clock):
    """Each refusal of models.ERRORS, over HTTP and over the WebSocket (an act refused; a hello refused, and a room
    closed as idle, just before the close), carries its code and params beside its English line, unchanged: a
    page says it in its player's language."""
    client = app_for(served, clock, rooms=2, players=3, name_chars=8, idle_minutes=5, connections=1, daily_results=1)
    seen = set()

    def said(body: dict, line: str, code: str, **params) -> None:
        assert (body["error"], body["code"], body["params"]) == (line, code, params), body
        seen.add(code)

    def http(response, status: int, line: str, code: str, **params) -> None:
        assert response.status_code == status, response.text
        said(ErrorOut.model_validate(response.json()).model_dump(), line, code, **params)

    def refused(socket, about: str | None, line: str, code: str, **params) -> None:
        message = until(socket, "error")
        assert message["about"] == about and set(message) == {"kind", "about", "error", "code", "params"}, message
        said(message, line, code, **params)

    ann = make_room(client)
    code = ann["code"]
    make_room(client, name="Ben")
    http(client.post("/api/rooms", json={"name": "Cy", "board": DENSE}), 503,
         "rooms: 2 open, this server's limit; try again later", "server_full", rooms=2)
    http(client.post("/api/rooms", json={"name": "Cy", "board": DENSE, "dice": "classic"}), 400,
         "board and dice: give one (a board is played every round; dice roll a new one)", "board_and_dice")
    http(client.post("/api/rooms", json={"name": "Cy", "board": DENSE, "auto_start": 4}), 400,
         "auto_start: 4 players, more than this server's limit of 3 a room", "auto_start_over", players=4, most=3)
    players = f"/api/rooms/{code}/players"
    http(client.post(players, json={"name": " "}), 400, "name: empty; a player needs a name", "name_empty")
    http(client.post(players, json={"name": "Ninechars"}), 400,
         "name: 9 characters, more than this server's limit of 8", "name_too_long", length=9, most=8)
    http(client.post(players, json={"name": "a\tb"}), 400,
         "name 'a\\tb': only printable characters (no control characters, tabs or line breaks)",
         "name_not_printable", name="a\tb")
    http(client.post(players, json={"name": " ANN "}), 409, f"name 'ANN': taken in room {code}; choose another",
         "name_taken", name="ANN", room=code)
    http(client.post(players, json={"name": "\u00a0ann\u2009"}), 409,  # no-break and thin spaces trimmed
         f"name 'ann': taken in room {code}; choose another", "name_taken", name="ann", room=code)
    bob = join(client, code, "Bob")
    join(client, code, "Cy")
    http(client.post(players, json={"name": "Dee"}), 409, f"room {code}: full (3 players, this server's limit)",
         "room_full", room=code, players=3)
    http(client.get("/api/rooms/nosuch22"), 404,
         "room 'NOSUCH22': no such room (a room closes after 5 minutes without activity, and when the server "
         "restarts)", "no_such_room",
         room="NOSUCH22", minutes=5)
    http(client.get(f"/api/rooms/{code}/rounds/9"), 404, f"room '{code}' round 9: no such finished round",
         "no_such_round", room=code, round=9)
    huge = 10 ** 22  # past SQLite's integers: in no room either
    http(client.get(f"/api/rooms/{code}/rounds/{huge}"), 404, f"room '{code}' round {huge}: no such finished round",
         "no_such_round", room=code, round=huge)
    client.post("/api/daily", json={"name": "Ann", "words": []})
    http(client.post("/api/daily", json={"name": "Bob", "words": []}), 409,
         "daily board 2025-06-15: 1 results kept already, this server's limit", "daily_full", day="2025-06-15",
         results=1)
    http(client.post("/api/daily", json={"name": "Bob", "words": [], "date": "2025-06-13"}), 409,
         "daily board 2025-06-13: closed (a day's board takes results until 60 minutes after its end, UTC)",
         "daily_closed", day="2025-06-13", minutes=60)

    with connected(client, ann) as a, connected(client, bob) as b:
        a.send_json({"kind": "word", "word": "seat"})
        refused(a, "word", "word: the round has not started", "round_not_started")
        b.send_json({"kind": "start"})
        refused(b, "start", "start: only the room's creator starts a round", "creator_starts")
        start(a)
        a.send_json({"kind": "start"})
        refused(a, "start", "start: the round is running already", "round_running")
        a.send_json({"kind": "rematch"})
        refused(a, "rematch", "rematch: the round is not over yet", "round_not_over")
        b.send_json({"kind": "rematch"})
        refused(b, "rematch", "rematch: only the room's creator starts a rematch", "creator_rematches")
        clock.now += 60
        say(a, "seat")  # too late: a verdict (too_late), not an error; the round ends
        a.send_json({"kind": "start"})
        refused(a, "start", "start: the round is over; ask for a rematch", "round_over")
        for path, token, close, line, why, params in [
                (code, ann["player"]["token"], 1008,
                 "player 1: 1 connections open already, this server's limit a player", "too_many_connections",
                 {"player": 1, "connections": 1}),
                (code, "nobody's", 4003, f"token: not a player's of room {code} (join it for one)", "not_a_player",
                 {"room": code}),
                ("NOSUCH22", "nobody's", 4004,
                 "room 'NOSUCH22': no such room (a room closes after 5 minutes without activity, and when the "
                 "server restarts)", "no_such_room",
                 {"room": "NOSUCH22", "minutes": 5})]:
            with client.websocket_connect(f"/api/rooms/{path}/socket") as socket:
                socket.send_json({"kind": "hello", "token": token})
                refused(socket, "hello", line, why, **params)
                assert closed(socket) == (close, line)
        clock.now += 5 * 60
        client.app.state.rooms.sweep()
        line = f"room {code} closed after 5 minutes without activity"
        refused(a, None, line, "room_expired", room=code, minutes=5)
        assert closed(a) == (4001, line)
    assert seen == set(ERRORS)


def test_every_code_has_its_text_in_every_catalogue():
    """Every code a refusal can carry (models.ERRORS) has its text, `error.<code>`, in each catalogue of the page,
    naming only params the code has; no catalogue keeps the text of a code there is not."""
    params = {code: {field for _, field, _, _ in Formatter().parse(line) if field} for code, line in ERRORS.items()}
    catalogues = sorted((REPO / "boggle_dawg" / "server" / "static" / "i18n").glob("*.json"))
    assert len(catalogues) == 7
    for path in catalogues:
        texts = {key.removeprefix("error."): text for key, text in json.loads(path.read_text(encoding="utf-8")).items()
                 if key.startswith("error.")}
        assert set(texts) == set(ERRORS), (path.name, set(texts) ^ set(ERRORS))
        for code, text in texts.items():
            assert set(re.findall(r"\{(\w+)\}", text)) <= params[code], (path.name, code, text)


def test_an_idle_room_is_dropped_its_rounds_kept_and_its_connections_closed(served, clock):
    client = app_for(served, clock, idle_minutes=1)
    ann = make_room(client, seconds=10)
    with connected(client, ann) as a:
        start(a)
        clock.now += 11
        assert say(a, "seat")["verdict"] == "too_late"
        clock.now += 61
        client.app.state.rooms.sweep()  # the alarm's sweep, run now
        assert closed(a) == (4001, f"room {ann['code']} closed after 1 minutes without activity")
    error(client.get(f"/api/rooms/{ann['code']}"), 404)
    assert client.get(f"/api/rooms/{ann['code']}/rounds/1").json()["number"] == 1


def test_names_are_kept_and_returned_verbatim(client, clock):
    name = '<script>alert("x")</script> & Ünï'
    ann = make_room(client, name=name[:24])
    assert ann["player"]["name"] == name[:24] and ann["room"]["players"][0]["name"] == name[:24]
    with connected(client, ann) as a:
        assert a.welcome["player"]["name"] == name[:24]
        start(a)
        clock.now += 61
        say(a, "seat")
        assert until(a, "results")["players"][0]["name"] == name[:24]
    assert client.get(f"/api/rooms/{ann['code']}/rounds/1").json()["players"][0]["name"] == name[:24]


def test_rematch_keeps_the_room_and_its_players(client, clock):
    ann = make_room(client, board=None, dice="classic")
    bob = join(client, ann["code"], "Bob")
    boards = []
    with connected(client, ann) as a, connected(client, bob) as b:
        for number in (1, 2):
            start(a, number)
            boards.append(until(b, "state", phase="playing", round=number)["board"]["board"])
            say(b, "tea")
            a.send_json({"kind": "rematch"})
            assert until(a, "error")["error"] == "rematch: the round is not over yet"
            clock.now += 61
            say(a, "seat")
            assert until(b, "results")["round"] == number
            a.send_json({"kind": "rematch"})
            again = until(b, "state", phase="waiting", round=number + 1)
            assert [(p["name"], p["words"]) for p in again["players"]] == [("Ann", 0), ("Bob", 0)]
    rounds = client.get(f"/api/rooms/{ann['code']}/rounds").json()["rounds"]
    assert [r["number"] for r in rounds] == [1, 2] and [r["board"] for r in rounds] == boards
    assert all(r["dice"] == "classic" and r["board"] == next(roll(load_dice("classic"), None, r["seed"])).notation
               for r in rounds)
    given = make_room(client)  # a given board is played again
    with connected(client, given) as a:
        for number in (1, 2):
            assert start(a, number)["board"]["board"] == "seattasequiteats"
            clock.now += 61
            say(a, "seat")
            a.send_json({"kind": "rematch"})


def test_a_room_starts_itself_once_enough_players_are_in(client):
    ann = make_room(client, auto_start=2)
    with connected(client, ann) as a:
        assert until(a, "state")["phase"] == "waiting"
        join(client, ann["code"], "Bob")
        assert until(a, "state", phase="playing")["players"][1]["name"] == "Bob"
    solo = make_room(client, name="Solo\u00a0Player", auto_start=1)
    assert solo["room"]["phase"] == "playing"  # its creator is enough
    assert solo["player"]["name"] == "Solo Player"  # a no-break space is a space


def test_the_daily_board(client, clock, served):
    day = DailyOut.model_validate(client.get("/api/daily").json())
    assert day.date == "2025-06-15" and day.dice == "classic" and day.results == 0
    assert day.board.board == next(roll(load_dice("classic"), Shape(4, 4), day.seed)).notation
    assert client.get("/api/daily").json() == day.model_dump()  # the same all day
    big = client.get("/api/daily", params={"rules": "big"}).json()
    assert big["board"]["size"] == "5x5" and big["seed"] != day.seed
    clock.now += 86400
    assert client.get("/api/daily").json()["seed"] != day.seed
    clock.now -= 86400
    answers = served["en"].lexicon.words(day.board.board)
    best = answers[0].word if answers else "zzz"
    first = client.post("/api/daily", json={"name": "Ann", "words": [best, best, "qqq"]}).json()
    assert first["score"] == (answers[0].points if answers else 0) and first["results"] == 1
    assert [v["verdict"] for v in first["verdicts"]][1:] == ["repeated" if answers else "not_on_board", "not_on_board"]
    client.post("/api/daily", json={"name": "Bob", "words": []})
    listed = DailyResultsOut.model_validate(client.get("/api/daily/results").json())
    assert [r.name for r in listed.results] == ["Ann", "Bob"] and listed.daily.results == 2
    error(client.get("/api/daily", params={"date": "2025-06-16"}), 400, "still to come")
    error(client.get("/api/daily", params={"date": "June 1st"}), 400, "not a date")
    assert client.get("/api/daily/results", params={"date": "2025-06-14"}).json()["results"] == []


def test_a_daily_round_past_midnight_is_judged_on_the_board_played(client, clock, served):
    played = client.get("/api/daily").json()
    answers = served["en"].lexicon.words(played["board"]["board"])[:3]
    words = [a.word for a in answers] or ["zzz"]
    midnight = (START // 86400 + 1) * 86400
    clock.now = midnight + 120  # the round ran two minutes past midnight
    assert client.get("/api/daily").json()["board"] != played["board"]
    late = client.post("/api/daily", json={"name": "Ann", "words": words, "date": played["date"]}).json()
    assert late["date"] == played["date"] == "2025-06-15" and late["score"] == sum(a.points for a in answers)
    assert [r["name"] for r in client.get("/api/daily/results", params={"date": "2025-06-15"}).json()["results"]] == ["Ann"]
    assert client.get("/api/daily/results").json()["results"] == []  # nothing filed under the next day
    clock.now = midnight + 3600
    error(client.post("/api/daily", json={"name": "Bob", "words": words, "date": "2025-06-15"}), 409,
          "daily board 2025-06-15: closed (a day's board takes results until 60 minutes after its end, UTC)")
    assert client.post("/api/daily", json={"name": "Bob", "words": [], "date": "2025-06-16"}).status_code == 200
    error(client.post("/api/daily", json={"name": "Cy", "words": [], "date": "2025-06-17"}), 400, "still to come")
    error(client.post("/api/daily", json={"name": "Cy", "words": [], "date": "2025-06-01"}), 409, "closed")


def test_daily_results_are_limited(served, clock):
    client = app_for(served, clock, daily_results=1)
    client.post("/api/daily", json={"name": "Ann", "words": []})
    error(client.post("/api/daily", json={"name": "Bob", "words": []}), 409, "1 results kept already")
    error(client.post("/api/daily", json={"name": " ", "words": []}), 400, "name: empty")


def test_results_survive_a_new_application_on_the_same_data(served, clock, tmp_path):
    results = open_results(tmp_path)
    client = app_for(served, clock, results)
    ann = make_room(client, name="Ann")
    with connected(client, ann) as a:
        start(a)
        say(a, "seat")
        clock.now += 61
        say(a, "east")
        played = until(a, "results")
    client.post("/api/daily", json={"name": "Ann", "words": ["tea"]})
    daily = client.get("/api/daily/results").json()
    results.close()
    again = app_for(served, clock, open_results(tmp_path))
    kept = again.get(f"/api/rooms/{ann['code']}/rounds/1").json()
    assert kept["players"] == [{"name": "Ann", "score": played["players"][0]["score"],
                                "words": [{"word": "seat", "points": 1, "cancelled": False}]}]
    assert again.get("/api/daily/results").json() == daily
    assert make_room(again)["code"] != ann["code"]


def test_bad_databases_are_one_clear_error(tmp_path):
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / DATABASE_FILE).write_bytes(b"this is no database, " * 100)
    with pytest.raises(DawgError, match="not an SQLite database"):
        open_results(tmp_path / "garbage")
    open_results(tmp_path / "newer").close()
    with sqlite3.connect(tmp_path / "newer" / DATABASE_FILE) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(DawgError, match=f"newer boggle-dawg \\(schema version {SCHEMA_VERSION + 1}"):
        open_results(tmp_path / "newer")
    (tmp_path / "locked").mkdir()
    holder = sqlite3.connect(tmp_path / "locked" / DATABASE_FILE, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(DawgError, match="locked by another program"):
            open_results(tmp_path / "locked", lock_seconds=0.1)
    finally:
        holder.close()
    (tmp_path / "file").write_text("")
    with pytest.raises(DawgError, match="cannot make the directory"):
        open_results(tmp_path / "file")


def test_serve_refuses_a_damaged_database_in_one_line(tmp_path):
    (tmp_path / DATABASE_FILE).write_bytes(b"\x00garbage" * 512)
    run = subprocess.run([sys.executable, "-m", "boggle_dawg.dawg_solve", "serve", "--data", str(tmp_path)], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stderr.startswith(f"dawg-solve: error: {tmp_path / DATABASE_FILE}: not an SQLite")
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_migrations_bring_an_empty_database_to_the_schema(tmp_path):
    open_results(tmp_path).close()
    with sqlite3.connect(tmp_path / DATABASE_FILE) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"rounds", "round_players", "round_words", "daily", "daily_results", "daily_words"}
    open_results(tmp_path).close()  # a second start finds it current


def test_alarms_ring_once_at_their_time():
    rung = threading.Event()
    calls = []
    alarms = Alarms()
    alarms.set("b", 0.2, lambda: calls.append("b"))
    alarms.cancel("b")
    alarms.set("a", 30, lambda: calls.append("early"))
    alarms.set("a", 0.3, lambda: (calls.append("a"), rung.set()))  # moved: only this one rings
    alarms.ensure("a", 60, lambda: calls.append("ensured"))  # one is set already: not moved
    assert rung.wait(5)
    assert calls == ["a"]


def test_the_judge_is_the_single_players(served):
    """A room's words are judged by the Round that POST /api/round uses, on answers solved once a board."""
    catalog = Catalog(served, Limits())
    one = served["en"]
    board = catalog.board(DENSE, None, one)
    judge = catalog.judge(one, one.lexicon.rules, board)
    assert catalog.judge(one, one.lexicon.rules, board) is judge
    game = judge.game({"seat": 1})
    assert game.submit("seat").outcome.name == "REPEATED" and judge.game().submit("seat").points == 1


def test_a_served_room_socket_outlives_the_request_deadlines(served, tmp_path):
    """`dawg-solve serve` bounds the time a client takes to send a request (server/protocol.py); a connection
    upgraded to a room's WebSocket owes no request, and stays open past those deadlines. uvicorn's websockets
    refuses a frame over the message limit itself."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    proc, url = start_server(str(served["en"].lexicon.path), "--timeout-headers", "1", "--timeout-body", "1",
                             "--data", str(tmp_path))
    try:
        request = urllib.request.Request(f"{url}/api/rooms", json.dumps({"name": "Ann", "board": DENSE}).encode(),
                                         {"content-type": "application/json"})
        ann = json.load(urllib.request.urlopen(request, timeout=10))
        with connect(f"{url.replace('http', 'ws', 1)}/api/rooms/{ann['code']}/socket") as socket:
            socket.send(json.dumps({"kind": "hello", "token": ann["player"]["token"]}))
            assert [json.loads(socket.recv(10))["kind"] for _ in range(2)] == ["welcome", "state"]
            time.sleep(2.5)  # past both deadlines
            socket.send(json.dumps({"kind": "start"}))
            assert json.loads(socket.recv(10))["phase"] == "playing"
            socket.send(json.dumps({"kind": "word", "word": "seat"}))
            assert json.loads(socket.recv(10))["verdict"] == "accepted"
            socket.send("x" * 2000)
            with pytest.raises(ConnectionClosed) as gone:
                while True:
                    socket.recv(10)
            assert gone.value.rcvd.code == 1009
    finally:
        proc.terminate()
        proc.wait(10)
