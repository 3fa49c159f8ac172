"""Results that last, against real `dawg-solve serve` processes (issue 31): a room played to the end over real
WebSockets and a daily result survive a SIGTERM and a SIGKILL of the server (each finished round is written in
one transaction as it ends: a new server on the same --data serves it), and a second server started on the same
--data while the first runs shares the database with it. And the boards in play are solved once each, however
many rooms play (a judge kept for each room the server holds, besides catalog.JUDGES_KEPT).

Each restart test waits for one real round (the shortest a room may have, 10 s) and starts one or two servers."""

from __future__ import annotations

import json
import signal
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest
from test_rooms import DENSE, WORDS
from test_server import start_server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from boggle_dawg.server.app import create_app
from boggle_dawg.server.catalog import JUDGES_KEPT
from boggle_dawg.server.served import PlayLimits, close_served, open_served
from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.dice_sets import load_dice, roll

pytestmark = pytest.mark.slow  # each test waits for a real 10-s round

ROUND_SECONDS = 10  # the shortest round a room may have
SERVICE_RESTART = 1012  # RFC 6455's close code for a server going down to come back
WAIT = 15.0  # the most a test waits for one message


@pytest.fixture
def lexicon(make_lexicon) -> str:
    return str(make_lexicon(WORDS))


def post(url: str, path: str, body: dict) -> dict:
    response = httpx2.post(f"{url}{path}", json=body, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def get(url: str, path: str, **params) -> dict:
    response = httpx2.get(f"{url}{path}", params=params, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def receive(socket: ClientConnection, kind: str, **fields) -> dict:
    """The next message of `kind` with these fields (those before it passed over)."""
    deadline = time.monotonic() + WAIT
    while (left := deadline - time.monotonic()) > 0:
        message = json.loads(socket.recv(left))
        if message["kind"] == kind and all(message.get(k) == v for k, v in fields.items()):
            return message
    raise AssertionError(f"no {kind} message within {WAIT} s")


def hello(url: str, joined: dict, stack: ExitStack) -> ClientConnection:
    socket = stack.enter_context(connect(f"{url.replace('http', 'ws', 1)}/api/rooms/{joined['code']}/socket",
                                         open_timeout=10))
    socket.send(json.dumps({"kind": "hello", "token": joined["player"]["token"]}))
    receive(socket, "welcome")
    return socket


class Room:
    """A room of two players on DENSE, connected over real WebSockets, its round started."""

    def __init__(self, url: str) -> None:
        self.ann = post(url, "/api/rooms", {"name": "Ann", "board": DENSE, "seconds": ROUND_SECONDS})
        self.code = self.ann["code"]
        self.bob = post(url, f"/api/rooms/{self.code}/players", {"name": "Bob"})
        self.sockets = ExitStack()
        self.a, self.b = hello(url, self.ann, self.sockets), hello(url, self.bob, self.sockets)
        self.a.send(json.dumps({"kind": "start"}))
        self.playing = receive(self.a, "state", phase="playing")

    def say(self, socket: ClientConnection, word: str) -> dict:
        socket.send(json.dumps({"kind": "word", "word": word}))
        return receive(socket, "verdict")

    def play(self) -> None:
        """Ann and Bob find words, one of them both (cancelled at the end), and one that is none."""
        assert [self.say(self.a, w)["verdict"] for w in ("seat", "suite", "zzz")] == \
            ["accepted", "accepted", "not_on_board"]
        assert [self.say(self.b, w)["verdict"] for w in ("seat", "eats", "tea")] == ["accepted"] * 3

    def results(self) -> dict:
        """The round's results, pushed by the server when its time is up (after it wrote them)."""
        results = receive(self.a, "results")
        assert receive(self.b, "results") == results
        return results

    def close(self) -> None:
        self.sockets.close()


def kept_as_played(kept: dict, results: dict, playing: dict) -> None:
    """A round as the database gives it back is the round the players were told of."""
    assert (kept["number"], kept["board"], kept["started"], kept["ended"], kept["cancel"]) == \
        (1, playing["board"]["board"], playing["started"], playing["ends"], True)
    assert (kept["maximum"], kept["word_count"], kept["cancelled"]) == \
        (results["maximum"], results["word_count"], results["cancelled"]) and kept["cancelled"] == ["seat"]
    assert kept["players"] == [{"name": p["name"], "score": p["score"],
                                "words": [{k: w[k] for k in ("word", "points", "cancelled")} for w in p["words"]]}
                               for p in results["players"]]
    assert [(p["name"], p["score"]) for p in kept["players"]] == [("Ann", 2), ("Bob", 2)]


def daily_result(url: str) -> dict:
    """Submit Ann's words on today's board (every word the board holds, one twice, and a non-word); the day's
    results as listed then."""
    day = get(url, "/api/daily")
    words = [w["word"] for w in post(url, "/api/solve", {"board": day["board"]["board"]})["words"]]
    submitted = post(url, "/api/daily", {"name": "Ann", "words": [*words, *words[:1], "qqqq"]})
    assert submitted["results"] == 1 and submitted["date"] == day["date"]
    listed = get(url, "/api/daily/results", date=day["date"])
    assert listed["results"][0]["name"] == "Ann" and listed["results"][0]["score"] == submitted["score"]
    return listed


def stop(proc, sig: int) -> str:
    """Send `sig` and wait for the process to end; what it wrote on stderr after its address."""
    proc.send_signal(sig)
    try:
        proc.wait(15)
    finally:
        proc.kill()
    rest = proc.stderr.read()
    proc.stderr.close()
    return rest


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_finished_rounds_and_daily_results_survive_the_server(lexicon, tmp_path, sig):
    """SIGTERM (the players still connected: their connections closed with 1012, status 0) or SIGKILL the moment the round's
    results arrive: a new server on the same --data serves the finished round and the day's results as they were."""
    data = str(tmp_path / "data")
    proc, url = start_server(lexicon, "--data", data)
    try:
        daily = daily_result(url)
        room = Room(url)
        room.play()
        results = room.results()  # pushed after the round's transaction committed
        if sig == signal.SIGTERM:
            kept_before = get(url, f"/api/rooms/{room.code}/rounds/1")
            started = time.monotonic()
            rest = stop(proc, sig)
            assert proc.returncode == 0 and time.monotonic() - started < 10, rest
            assert "Traceback" not in rest and rest.rstrip().endswith("stopped"), rest
            for socket in (room.a, room.b):  # the players' connections were closed, not left hanging
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        socket.recv(WAIT)
                assert closed.value.rcvd.code == SERVICE_RESTART  # uvicorn's, as it shuts down
        else:
            stop(proc, sig)  # at once: nothing flushed, no shutdown
            assert proc.returncode == -signal.SIGKILL
            kept_before = None
        room.close()
    finally:
        proc.kill()
        proc.wait()
    again, url = start_server(lexicon, "--data", data)
    try:
        kept = get(url, f"/api/rooms/{room.code}/rounds/1")
        kept_as_played(kept, results, room.playing)
        if kept_before is not None:
            assert kept == kept_before
        assert get(url, f"/api/rooms/{room.code}/rounds")["rounds"] == [kept]
        assert get(url, "/api/daily/results", date=daily["daily"]["date"]) == daily
        assert get(url, "/api/daily")["seed"] == daily["daily"]["seed"]  # the day's board kept, not dealt anew
        assert httpx2.get(f"{url}/api/rooms/{room.code}", timeout=10).status_code == 404  # rooms are in memory
        assert post(url, "/api/rooms", {"name": "Cy", "board": DENSE})["code"] != room.code
    finally:
        stop(again, signal.SIGTERM)
        assert again.returncode == 0


def test_a_second_server_on_the_same_data_shares_it(lexicon, tmp_path):
    """The database is SQLite in WAL mode, each write one short transaction: a second `dawg-solve serve` on the
    same --data starts while the first runs (no lock held between writes), and each serves what the other wrote:
    a round finished on the first, daily results submitted to either. Open rooms stay each server's own."""
    data = str(tmp_path / "data")
    first, url = start_server(lexicon, "--data", data)
    second = None
    try:
        daily_result(url)
        room = Room(url)
        room.play()
        second, url2 = start_server(lexicon, "--data", data)  # while the round is played on the first
        other = Room(url2)  # rooms are each server's own; the database is both's
        assert httpx2.get(f"{url}/api/rooms/{other.code}", timeout=10).status_code == 404
        results = room.results()
        kept_as_played(get(url2, f"/api/rooms/{room.code}/rounds/1"), results, room.playing)
        submitted = post(url2, "/api/daily", {"name": "Bob", "words": ["qqqq"]})
        assert submitted["results"] == 2
        assert sorted(r["name"] for r in get(url, "/api/daily/results")["results"]) == ["Ann", "Bob"]
        assert get(url, "/api/daily") == get(url2, "/api/daily")
        room.close()
        other.close()
    finally:
        for proc in (first, second):
            if proc is not None:
                stop(proc, signal.SIGTERM)
                assert proc.returncode == 0
    assert (Path(data) / "server.sqlite3").exists()


def test_each_rooms_board_is_solved_once_however_many_rooms_play(make_lexicon, monkeypatch):
    """A room's round judges every word on its board's answers, solved once when the round starts. With more rooms
    playing than the catalog keeps judges (its least recently used dropped), words sent in turn by the rooms'
    players each solved their board anew: about ten times a word's CPU (0.14 ms a word at 250 rooms, 1.4 ms at
    300, in one process with the shipped lexicon). The catalog now keeps a judge for each room the server holds
    (PlayLimits.rooms) besides JUDGES_KEPT."""
    served = open_served([make_lexicon(WORDS)], None, jobs=1)
    try:
        one = next(iter(served.values()))
        solved: Counter = Counter()
        solve = one.words

        def counted(board, *args, **kwargs):
            solved[board.notation] += 1
            return solve(board, *args, **kwargs)

        monkeypatch.setattr(one, "words", counted)
        rooms = create_app(served).state.rooms
        count = JUDGES_KEPT + 44
        assert count <= PlayLimits().rooms  # the server holds this many rooms by default
        boards = list(dict.fromkeys(b.notation for b in roll(load_dice("classic"), Shape(4, 4), 31, 2 * count)))
        codes = [rooms.create(f"P{n}", None, None, None, None, board, 600, True, None)["code"]
                 for n, board in enumerate(boards[:count])]
        for code in codes:
            rooms.start(code, 1)
        assert len(solved) == count and set(solved.values()) == {1}  # each board solved as its round started
        for _ in range(2):  # every room's player sends a word, the rooms in turn
            for code in codes:
                rooms.submit(code, 1, "seat")
        assert set(solved.values()) == {1}, f"{sum(solved.values()) - count} boards solved again for {2 * count} words"
    finally:
        close_served(served)
