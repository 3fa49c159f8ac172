"""Rooms: several players on one board at the same time, against the server's clock, compared at the end.

A room is made with its settings (lexicon, rules, dice or a board, size, time, the cancel rule) by a player, its
creator; others join it by its code with a name, each getting a secret token that is the only way to act for
them. The creator starts the round (or it starts itself once `auto_start` players are in); the server keeps its
start and end, judges each word as `POST /api/round` does (catalog.Judge: solver/game.py's Round), refuses a word
that comes after the end, and at the end sums the round up: every player's words side by side, a word found by
two players or more cancelled for all of them (Boggle's rule; off as a setting), the words nobody found. The
finished round is written to the results database at once. A rematch deals a new board (or the same given one)
to the same room and players.

A room's state is plain data (JSON's types only) in a `RoomStore`; this module keeps it in the process's memory
(`MemoryRoomStore`), and a shared store (Redis) may hold it instead when one process is not enough. Everything a
room's players should learn is pushed to their connections through the `Hub` (live.py).
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import itertools
import logging
import secrets
import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Protocol, TypeVar

from ..solver.board import parse_size
from ..solver.dice_sets import random_seed, roll
from ..solver.errors import DawgError
from ..solver.game import Outcome
from .catalog import Catalog, Judge, cut, shown_word
from .live import Close, Hub, Link, message_text
from .models import ERRORS, board_json
from .results import Results
from .served import PlayLimits

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud or typed from a phone without doubt
CODE_LENGTH = 8  # 31**8, about 8.5e11 codes: not found by guessing
TOKEN_BYTES = 24  # secrets.token_urlsafe: 32 characters
SWEEP_SECONDS = 60.0  # how often idle rooms are looked for
SWEEP = "sweep"  # the sweep's alarm (rooms' alarms are their codes, in capitals)
WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"  # a round's phases
EXPIRED = 4001  # the close code of a room's connections when the room is dropped
TOO_LATE = ("too_late", "too late: the round is over")  # the verdict of a word after the end

log = logging.getLogger(__name__)
T = TypeVar("T")


class RoomError(DawgError):
    """A request about a room that cannot be done: a bad value (400). Its `code` (models.ERRORS) and `params` say
    it to a page, which says it in its player's language; its message is the code's English line."""

    status = 400

    def __init__(self, code: str, **params: str | int) -> None:
        self.code = code
        self.params = {name: cut(value) if isinstance(value, str) else value for name, value in params.items()}
        super().__init__(ERRORS[code].format(**self.params))


def said(err: DawgError) -> dict:
    """An error as the API sends it (an HTTP answer, a WebSocket's `error`): its line, and a room's refusal's code
    and params."""
    if isinstance(err, RoomError):
        return {"error": str(err), "code": err.code, "params": err.params}
    return {"error": str(err)}


class NoSuchRoom(RoomError):
    status = 404


class NotAllowed(RoomError):
    """A token that is no player's of the room, or an act that is the creator's."""

    status = 403


class NotNow(RoomError):
    """Not in the round's phase, a name taken, the room full."""

    status = 409


class TooManyConnections(RoomError):
    """A player with as many connections open as a player may have."""

    status = 429


class ServerFull(RoomError):
    """As many rooms open as the server holds."""

    status = 503


class RoomStore(Protocol):
    """Where the rooms' states live, each a plain-data dict (JSON's types only) under its room's code.

    `update` is the one way to change a state: it applies `change` to the state as one atomic step (a lock in
    one process; a Redis store would WATCH the key and retry, or run a script) and returns what `change`
    returns. `get` gives a state to read, not to change. A missing room is a KeyError."""

    def get(self, code: str) -> dict | None: ...

    def put(self, code: str, state: dict) -> None: ...

    def update(self, code: str, change: Callable[[dict], T]) -> T: ...

    def delete(self, code: str) -> None: ...

    def codes(self) -> list[str]: ...


class MemoryRoomStore:
    """The rooms of one process, in its memory."""

    def __init__(self) -> None:
        self._states: dict[str, dict] = {}
        self._lock = threading.Lock()

    def get(self, code: str) -> dict | None:
        return self._states.get(code)

    def put(self, code: str, state: dict) -> None:
        with self._lock:
            self._states[code] = state

    def update(self, code: str, change: Callable[[dict], T]) -> T:
        with self._lock:
            return change(self._states[code])

    def delete(self, code: str) -> None:
        with self._lock:
            self._states.pop(code, None)

    def codes(self) -> list[str]:
        with self._lock:
            return list(self._states)


class Alarms:
    """One thread that runs an action when its time comes (seconds from now, on the monotonic clock): a round
    ends, and is written and pushed, even when no player sends anything. Setting a key's alarm again moves it."""

    def __init__(self) -> None:
        self._due: dict[str, tuple[float, Callable[[], None]]] = {}
        self._heap: list[tuple[float, int, str]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def set(self, key: str, seconds: float, action: Callable[[], None]) -> None:
        when = time.monotonic() + max(seconds, 0.0)
        with self._wake:
            self._due[key] = (when, action)
            heapq.heappush(self._heap, (when, next(self._order), key))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="room-alarms", daemon=True)
                self._thread.start()
            self._wake.notify()

    def ensure(self, key: str, seconds: float, action: Callable[[], None]) -> None:
        """Set `key`'s alarm unless one is set (a repeating chore, not moved by each call)."""
        with self._wake:
            if key in self._due:
                return
        self.set(key, seconds, action)

    def cancel(self, key: str) -> None:
        with self._wake:
            self._due.pop(key, None)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    self._wake.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                when, _, key = heapq.heappop(self._heap)
                due = self._due.get(key)
                if due is None or due[0] != when:
                    continue  # moved or cancelled
                del self._due[key]
            try:
                due[1]()
            except Exception:  # a bug: logged with its traceback; the other rooms' alarms still ring
                log.exception("room alarm %s", key)


def player_name(text: str, most: int) -> str:
    """A player's name as kept and shown (as data: pages escape it): every kind of space an ordinary one (a
    no-break space typed on a phone), trimmed, printable, not empty."""
    name = "".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in text).strip()
    if not name:
        raise RoomError("name_empty")
    if len(name) > most:
        raise RoomError("name_too_long", length=len(name), most=most)
    if not name.isprintable():
        raise RoomError("name_not_printable", name=name)
    return name


def token_digest(token: str) -> str:
    """What a room keeps of a token: its hash, so that a state read (or a shared store) gives no one's away."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def link_of(code: str) -> str:
    return f"/?room={code}"


class Rooms:
    """The room service: every act on a room, the clock, and what the players are told (through `hub`)."""

    def __init__(self, catalog: Catalog, results: Results, limits: PlayLimits, clock: Callable[[], float] = time.time,
                 store: RoomStore | None = None) -> None:
        self.catalog = catalog
        self.results = results
        self.limits = limits
        self.clock = clock
        self.store: RoomStore = MemoryRoomStore() if store is None else store
        self.hub = Hub(limits.connections)
        self.alarms = Alarms()
        self._opening = threading.Lock()
        self._telling = threading.Lock()  # `_tell_state`'s

    # --- making and joining rooms (HTTP)

    def create(self, name: str, lexicon: str | None, rules: str | None, dice: str | None, size: str | None,
               board: str | None, seconds: int, cancel: bool, auto_start: int | None) -> dict:
        """A new room with its creator in it: what `join` answers."""
        name = player_name(name, self.limits.name_chars)
        one = self.catalog.lexicon(lexicon)
        chosen_rules = self.catalog.rules(rules, one)
        if board is not None:
            if dice is not None:
                raise RoomError("board_and_dice")
            given = self.catalog.board(board, size, one)
            board, size = given.notation, str(given.shape)
        else:
            shape = parse_size(size) if size else None
            chosen_dice = self.catalog.dice(one, dice, shape)
            size, dice = str(chosen_dice.shape(shape)), chosen_dice.name
        if auto_start is not None and auto_start > self.limits.players:
            raise RoomError("auto_start_over", players=auto_start, most=self.limits.players)
        settings = {"lexicon": one.name, "rules": rules, "rules_name": chosen_rules.name, "dice": dice, "size": size,
                    "board": board, "seconds": seconds, "cancel": cancel, "auto_start": auto_start}
        now = self.clock()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        state = {"code": "", "created": now, "touched": now, "settings": settings,
                 "players": [{"id": 1, "name": name, "token": token_digest(token), "creator": True, "words": []}],
                 "round": self._deal(settings, 1)}
        with self._opening:
            if len(self.store.codes()) >= self.limits.rooms:
                self.sweep()
                if len(self.store.codes()) >= self.limits.rooms:
                    raise ServerFull("server_full", rooms=self.limits.rooms)
            code = self._new_code()
            state["code"] = code
            self.store.put(code, state)
        self.alarms.ensure(SWEEP, SWEEP_SECONDS, self._sweep_again)
        self._start_if_full(code)  # auto_start 1: its creator is enough
        return self._joined(code, state["players"][0], token)

    def join(self, code: str, name: str) -> dict:
        name = player_name(name, self.limits.name_chars)
        token = secrets.token_urlsafe(TOKEN_BYTES)

        def add(state: dict) -> dict:
            players = state["players"]
            if any(p["name"].casefold() == name.casefold() for p in players):
                raise NotNow("name_taken", name=name, room=state["code"])
            if len(players) >= self.limits.players:
                raise NotNow("room_full", room=state["code"], players=self.limits.players)
            player = {"id": max(p["id"] for p in players) + 1, "name": name, "token": token_digest(token),
                      "creator": False, "words": []}
            players.append(player)
            state["touched"] = self.clock()
            return player

        player = self._update(code, add)
        self._tell_state(code)
        self._start_if_full(code)
        return self._joined(code, player, token)

    def view(self, code: str) -> dict:
        """The room as anyone with its code sees it (no one's words before the end; the board once it is played)."""
        self.settle(code)
        state = self._state(code)
        return {**self._public(state), "results": state["round"]["results"]}

    # --- acting in a room (WebSocket)

    def player(self, code: str, token: str) -> int:
        """The player whose token this is."""
        state = self._state(code)
        digest = token_digest(token)
        for player in state["players"]:
            if hmac.compare_digest(player["token"], digest):
                return player["id"]
        raise NotAllowed("not_a_player", room=code)

    def connect(self, code: str, player: int, link: Link) -> None:
        """A connection of `player` opened: tell it their words so far (a player back after a reload finds the
        round where they left it) and everyone who is in."""
        self.settle(code)
        state = self._touch(code)
        if not self.hub.attach(code, player, link):
            raise TooManyConnections("too_many_connections", player=player, connections=self.limits.connections)
        mine = self._seat(state, player)
        welcome = {"kind": "welcome", "player": {"id": player, "name": mine["name"], "creator": mine["creator"]},
                   "words": self._words(state, mine["words"]), "score": sum(p for _, p in mine["words"]),
                   "results": state["round"]["results"]}
        link.push(message_text(welcome))
        self._tell_state(code)

    def disconnect(self, code: str, link: Link) -> None:
        self.hub.detach(code, link)
        if self.store.get(code) is not None:
            self._tell_state(code)

    def start(self, code: str, player: int | None) -> None:
        """Start the waiting round: by its creator, or by itself (`player` None) once `auto_start` are in."""
        state = self._state(code)
        self._judge(state)  # solved before the clock starts, outside the store's lock

        def begin(state: dict) -> bool:
            if player is not None and not self._seat(state, player)["creator"]:
                raise NotAllowed("creator_starts")
            phase = state["round"]["phase"]
            if phase != WAITING:
                if player is None:
                    return False
                raise NotNow("round_running" if phase == PLAYING else "round_over")
            now = self.clock()
            state["round"].update(phase=PLAYING, started=now, ends=now + state["settings"]["seconds"])
            state["touched"] = now
            return True

        if self._update(code, begin):
            self.alarms.set(code, state["settings"]["seconds"], lambda: self._due(code))
            self._tell_state(code)

    def submit(self, code: str, player: int, text: str) -> None:
        """Judge a word of `player`'s (as `POST /api/round` does), keep it if it scores, and tell them; a word
        after the round's end is refused, whatever the page showed."""
        judge = self._judge(self._state(code))

        def judged(state: dict):
            now = self.clock()
            round_ = state["round"]
            if round_["phase"] == WAITING:
                raise NotNow("round_not_started")
            if round_["phase"] == FINISHED or now >= round_["ends"]:
                return None, self._finish(state) if round_["phase"] == PLAYING else None
            seat = self._seat(state, player)
            verdict = judge.game(dict(seat["words"])).submit(text)
            if verdict.outcome is Outcome.ACCEPTED:
                seat["words"].append([verdict.word, verdict.points])
            state["touched"] = now
            return verdict, None

        verdict, record = self._update(code, judged)
        if record is not None:
            self._finished(code, record)
        state = self._state(code)
        seat = self._seat(state, player)
        one = self.catalog.lexicon(state["settings"]["lexicon"])
        word = one.lexicon.language.game_form(text.strip()) if verdict is None else verdict.word
        name, said = TOO_LATE if verdict is None else (verdict.outcome.name.lower(), verdict.outcome.value)
        self.hub.send(code, {"kind": "verdict", "word": word, "shown": shown_word(one, word), "verdict": name,
                             "text": said, "points": 0 if verdict is None else verdict.points,
                             "words": len(seat["words"]), "score": sum(p for _, p in seat["words"])}, player)
        if verdict is not None and verdict.outcome is Outcome.ACCEPTED:
            self._tell_state(code)

    def rematch(self, code: str, player: int) -> None:
        """A new round in the room, for the same players: a new roll of the dice, or the same given board."""
        self.settle(code)
        state = self._state(code)
        dealt = self._deal(state["settings"], state["round"]["number"] + 1)

        def again(state: dict) -> None:
            if not self._seat(state, player)["creator"]:
                raise NotAllowed("creator_rematches")
            if state["round"]["phase"] != FINISHED:
                raise NotNow("round_not_over")
            state["round"] = dealt
            for seat in state["players"]:
                seat["words"] = []
            state["touched"] = self.clock()

        self._update(code, again)
        self._tell_state(code)
        self._start_if_full(code)

    # --- time

    def settle(self, code: str) -> None:
        """End the round if its time is up (and write it, and tell the players): called before every act on a
        room, and by the round's alarm."""
        state = self.store.get(code)
        if state is None or state["round"]["phase"] != PLAYING or self.clock() < state["round"]["ends"]:
            return

        def end(state: dict) -> dict | None:
            over = state["round"]["phase"] == PLAYING and self.clock() >= state["round"]["ends"]
            return self._finish(state) if over else None

        try:
            record = self.store.update(code, end)
        except KeyError:
            return
        if record is not None:
            self._finished(code, record)

    def sweep(self) -> None:
        """Drop the rooms idle for `idle_minutes` (a round being played is not idle), ending and writing their
        rounds first, and close their connections."""
        for code in self.store.codes():
            self._expired(code)

    # --- inside

    def _sweep_again(self) -> None:
        self.sweep()
        if self.store.codes():
            self.alarms.set(SWEEP, SWEEP_SECONDS, self._sweep_again)

    def _due(self, code: str) -> None:
        """The round's alarm: end it, or, if the clock says it is early (a clock set back), ring again at the end."""
        self.settle(code)
        state = self.store.get(code)
        if state is not None and state["round"]["phase"] == PLAYING:
            self.alarms.set(code, state["round"]["ends"] - self.clock(), lambda: self._due(code))

    def _expired(self, code: str) -> bool:
        state = self.store.get(code)
        if state is None:
            return True
        idle = self.clock() - state["touched"]
        playing = state["round"]["phase"] == PLAYING and self.clock() < state["round"]["ends"]
        if playing or idle < self.limits.idle_minutes * 60:
            return False
        self.settle(code)
        self.store.delete(code)
        self.alarms.cancel(code)
        gone = RoomError("room_expired", room=code, minutes=self.limits.idle_minutes)
        self.hub.send(code, {"kind": "error", "about": None, **said(gone)})  # for the page, in its language
        self.hub.close(code, Close(EXPIRED, str(gone)))
        return True

    def _state(self, code: str) -> dict:
        state = self.store.get(code)
        if state is None or self._expired(code):
            raise self._no_such_room(code)
        return state

    def _update(self, code: str, change: Callable[[dict], T]) -> T:
        self._state(code)
        try:
            return self.store.update(code, change)
        except KeyError:
            raise self._no_such_room(code) from None

    def _no_such_room(self, code: str) -> NoSuchRoom:
        return NoSuchRoom("no_such_room", room=code, minutes=self.limits.idle_minutes)

    def _touch(self, code: str) -> dict:
        def touch(state: dict) -> dict:
            state["touched"] = self.clock()
            return state

        return self._update(code, touch)

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if self.store.get(code) is None and not self.results.room_used(code):
                return code

    @staticmethod
    def _seat(state: dict, player: int) -> dict:
        return next(p for p in state["players"] if p["id"] == player)

    def _deal(self, settings: dict, number: int) -> dict:
        """Round `number`'s board, not yet shown: the given board, or a new roll of the dice."""
        board, seed = settings["board"], None
        if board is None:
            one = self.catalog.lexicon(settings["lexicon"])
            seed = random_seed()
            shape = parse_size(settings["size"])
            board = next(roll(self.catalog.dice(one, settings["dice"], shape), shape, seed)).notation
        return {"number": number, "phase": WAITING, "board": board, "seed": seed, "started": None, "ends": None,
                "results": None}

    def _judge(self, state: dict) -> Judge:
        settings = state["settings"]
        one = self.catalog.lexicon(settings["lexicon"])
        board = self.catalog.board(state["round"]["board"], settings["size"], one)
        return self.catalog.judge(one, self.catalog.rules(settings["rules"], one), board)

    def _words(self, state: dict, words: list) -> list[dict]:
        one = self.catalog.lexicon(state["settings"]["lexicon"])
        return [{"word": w, "shown": shown_word(one, w), "points": p} for w, p in words]

    def _public(self, state: dict) -> dict:
        settings, round_ = state["settings"], state["round"]
        present = self.hub.present(state["code"])
        board = None
        if round_["phase"] != WAITING:
            one = self.catalog.lexicon(settings["lexicon"])
            board = board_json(self.catalog.board(round_["board"], settings["size"], one)).model_dump()
        return {"code": state["code"], "link": link_of(state["code"]), "phase": round_["phase"],
                "round": round_["number"], "started": round_["started"], "ends": round_["ends"], "now": self.clock(),
                "settings": {"lexicon": settings["lexicon"], "rules": settings["rules_name"], "dice": settings["dice"],
                             "size": settings["size"], "seconds": settings["seconds"], "cancel": settings["cancel"],
                             "auto_start": settings["auto_start"]},
                "board": board,
                "players": [{"id": p["id"], "name": p["name"], "creator": p["creator"], "connected": p["id"] in present,
                             "words": len(p["words"]), "score": sum(points for _, points in p["words"])}
                            for p in state["players"]]}

    def _joined(self, code: str, player: dict, token: str) -> dict:
        return {"code": code, "link": link_of(code), "player": {"id": player["id"], "name": player["name"],
                                                                "token": token},
                "room": self.view(code)}

    def _tell_state(self, code: str) -> None:
        """Everyone in the room: its state now. Computed and sent under one lock: connections open and
        close on other threads than the acts that tell, and a state computed before a player came or
        went must not reach anyone after the one computed since."""
        with self._telling:
            state = self.store.get(code)
            if state is not None:
                self.hub.send(code, {"kind": "state", **self._public(state)})

    def _start_if_full(self, code: str) -> None:
        state = self._state(code)
        wanted = state["settings"]["auto_start"]
        if wanted is not None and state["round"]["phase"] == WAITING and len(state["players"]) >= wanted:
            self.start(code, None)

    def _finish(self, state: dict) -> dict:
        """End the round (inside the store's update): every player's words side by side with the cancel rule
        applied, the words nobody found best first, kept in the state; the record for the database."""
        settings, round_ = state["settings"], state["round"]
        judge = self._judge(state)
        one = self.catalog.lexicon(settings["lexicon"])
        found_by = Counter(word for p in state["players"] for word, _ in p["words"])
        cancelled = sorted(w for w, n in found_by.items() if settings["cancel"] and n > 1)
        players = []
        for seat in state["players"]:
            words = [{"word": w, "shown": shown_word(one, w), "points": p, "cancelled": w in cancelled,
                      "path": judge.paths[w]} for w, p in seat["words"]]
            players.append({"id": seat["id"], "name": seat["name"], "words": words,
                            "score": sum(w["points"] for w in words if not w["cancelled"])})
        summary = judge.game().summary()  # every answer missed: the board's maximum, best first
        missed = [{"word": w, "shown": shown_word(one, w), "points": p, "path": judge.paths[w]}
                  for w, p in summary.missed if w not in found_by]
        round_["phase"] = FINISHED
        round_["results"] = {"round": round_["number"], "cancel": settings["cancel"], "players": players,
                             "cancelled": cancelled, "missed": missed, "maximum": summary.maximum,
                             "word_count": summary.word_count}
        state["touched"] = self.clock()
        return {"room": state["code"], "number": round_["number"], "lexicon": one.name,
                "rules": settings["rules_name"], "dice": settings["dice"], "seed": round_["seed"],
                "board": round_["board"], "size": settings["size"], "seconds": settings["seconds"],
                "cancel": settings["cancel"], "started": round_["started"], "ended": round_["ends"],
                "maximum": summary.maximum, "word_count": summary.word_count,
                "players": [{"name": p["name"], "score": p["score"],
                             "words": [{k: w[k] for k in ("word", "points", "cancelled")} for w in p["words"]]}
                            for p in players]}

    def _finished(self, code: str, record: dict) -> None:
        """A round just ended: write it (its one transaction), then tell the players."""
        self.alarms.cancel(code)
        try:
            self.results.save_round(record)
        except Exception:  # the disk full, the file gone: the players still get their results
            log.exception("room %s round %s: not written to the results database", code, record["number"])
        state = self.store.get(code)
        if state is not None:
            self.hub.send(code, {"kind": "results", **state["round"]["results"]})
            self._tell_state(code)
