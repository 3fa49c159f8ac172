"""Rooms under load and under fire, on loopback, against a real `dawg-solve serve` process (issue 31).

Run from the repository root:
    python benchmarks/rooms_bench.py           # writes benchmarks/results/rooms.md (about 15 minutes)
    python benchmarks/rooms_bench.py --quick   # smoke run: few rooms, few seconds; prints the tables

Three measurements, each on a server of its own (the shipped default lexicon, or the build given by --lexicon;
its results database in a temporary --data directory):
  (a) load: --rooms rooms (100) of --players players (4), each room on a board of its own (classic dice, rolled
      with a fixed seed through GET /api/roll); every player sends words over the room's WebSocket at --rate words a
      second (1) for --seconds (60), on a fixed schedule at a random phase: real words of the board (from POST
      /api/solve) and non-words (paths of the board that spell no word, letters not on it). Each word's verdict
      latency (sent -> its verdict received, on the sending client's clock), verdicts a second, the server's CPU
      seconds and peak RSS, the clients' CPU, and dropped words (sent without a verdict: must be 0). Each room's
      round then ends on the server's clock, and its results are checked against the verdicts its players got
      (each player's accepted words in order, the cancel rule, the scores).
  (b) bad messages: one measured room (--players players, 5 words a second each, --flood-seconds) plays alone,
      then again on the same board with the same words while a process of its own opens 1,000 WebSocket
      connections (--bad), each sending one bad message (malformed JSON, a frame over the size limit, a wrong type,
      an unknown kind, a binary frame, not an object, no hello first, another player's token on a connection, a
      token of the measured room in another room, a stranger's token in the measured room), spread over the round,
      16 at a time at most: the close code of each against the one docs/server.md gives, and the measured room's
      latencies and results with and without.
  (c) rooms a process holds: (a) again with --steps rooms (25, 50, 100, 150, 200, 300) for --step-seconds (30)
      each, a fresh server each (stopping after a step where the server judged under 90% of the words offered);
      the largest count whose verdict p99 stays under 50 ms with nothing dropped.
  (d) the room service's CPU a word in the benchmark's own process (no WebSocket), with 100, 256 and 300 rooms
      playing: past catalog.JUDGES_KEPT (256) boards in play, each word solves its board again.
  (e) the load of (a) for --gc-seconds (40) on the server as it is and on one with gc.freeze() after its start-up
      (the proposed fix for the stalls of (a) and (c)), in turn, twice, each with its full garbage collections
      logged.
The players are asyncio tasks of the `websockets` package's client, spread over --client-procs processes (2);
the flood is a process of its own. All share the machine's cores with the server: the clients' CPU is reported
beside the server's, and the load average before and after each table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from contextlib import AsyncExitStack
from pathlib import Path

from common import REPO, SOLVER_CLI, Conditions, load_average, publish

TARGET_P99_MS = 50.0
SLOW_S = TARGET_P99_MS / 1e3  # a verdict slower than this is counted, and in which second it fell
FLOOD_RATE = 5.0  # words a second a player of the measured room sends (the server allows 10, in bursts of 20)
FLOOD_CONCURRENCY = 16  # bad connections open at once
ROOM_MARGIN_S = 6  # a round lasts this much longer than its players send, so that every word is on time
GRACE_S = 15.0  # the most a client waits for the verdicts still missing, then for the results
SEED = 31
SPAWN = multiprocessing.get_context("spawn")

# The bad messages of (b): (kind, what the connection does first, the close code docs/server.md gives)
# "hello" means a hello with an attacker's own token first (answered welcome), then the bad message.
BAD_KINDS = [
    ("malformed JSON", None, 1007),
    ("frame over the size limit (64 KiB)", None, 1009),
    ("wrong type (word: 5)", None, 1008),
    ("unknown kind", None, 1008),
    ("binary frame", None, 1003),
    ("not an object", None, 1008),
    ("no hello first", None, 1008),
    ("another player's token on a connection", "hello", 4003),
    ("the measured room's token in another room", None, 4003),
    ("a stranger's token in the measured room", None, 4003),
]


# --- the server ------------------------------------------------------------------------------------------------


# `dawg-solve serve` run by `python -c GC_WATCH serve ...` for (e): the same command, with a gc callback that logs each
# full (generation 2) collection's start and length (perf_counter: CLOCK_MONOTONIC, the benchmark's clock too), and,
# with ROOMS_BENCH_GC_FREEZE set, the proposed fix: gc.freeze() once the application is made (after the lexicons are
# opened and warmed), so that full collections no longer walk the start-up's objects.
GC_WATCH = """
import gc, os, runpy, sys, time
log = open(os.environ["ROOMS_BENCH_GC_LOG"], "w", buffering=1)
began = [0.0]
def pause(phase, info):
    if phase == "start":
        began[0] = time.perf_counter()
    elif info["generation"] == 2:
        log.write(f"{began[0]:.6f} {time.perf_counter() - began[0]:.6f}\\n")
gc.callbacks.append(pause)
if os.environ.get("ROOMS_BENCH_GC_FREEZE"):
    import boggle_dawg.server.app as app
    made = app.create_app
    def create_app(*args, **kwargs):
        application = made(*args, **kwargs)
        gc.collect()
        gc.freeze()
        return application
    app.create_app = create_app
sys.argv[0] = "dawg-solve"
runpy.run_module("boggle_dawg.dawg_solve", run_name="__main__")
"""


class Server:
    """`dawg-solve serve --port 0` with its results database in a temporary directory; its stderr kept (and read
    as it comes, so that the pipe never fills). `gc_log`: run through GC_WATCH, logging full collections there
    (and with gc.freeze() after start-up if `freeze`)."""

    def __init__(self, lexicon: str | None, gc_log: Path | None = None, freeze: bool = False) -> None:
        self.data = tempfile.TemporaryDirectory(prefix="rooms-bench-")
        self.gc_log = gc_log
        start = SOLVER_CLI if gc_log is None else [sys.executable, "-c", GC_WATCH]
        command = [*start, "serve", *([lexicon] if lexicon else []), "--port", "0", "--data", self.data.name]
        env = dict(os.environ)
        if gc_log is not None:
            env["ROOMS_BENCH_GC_LOG"] = str(gc_log)
            if freeze:
                env["ROOMS_BENCH_GC_FREEZE"] = "1"
        self.proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
        self.log: list[str] = []
        for line in self.proc.stderr:
            self.log.append(line)
            found = re.search(r"at (http://\S+)/ ", line)
            if found:
                self.url = found[1]
                break
        else:
            sys.exit(f"the server did not start (status {self.proc.wait()}): {''.join(self.log)[-500:]}")
        self.reader = threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True)
        self.reader.start()
        self.rss_started = rss(self.proc.pid)["VmRSS"]

    def full_collections(self, start: float, end: float) -> list[float]:
        """The lengths in seconds of the server's full collections that began between `start` and `end`."""
        if self.gc_log is None:
            return []
        pauses = [line.split() for line in self.gc_log.read_text().splitlines()]
        return [float(length) for began, length in pauses if start <= float(began) <= end]

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def stop(self) -> tuple[int, list[str]]:
        """SIGTERM; its status and the lines it logged after starting (uvicorn's warnings, tracebacks)."""
        self.proc.terminate()
        status = self.proc.wait(30)
        self.reader.join(10)
        self.data.cleanup()
        return status, [line.rstrip() for line in self.log[1:] if not line.startswith("dawg-solve: stopped")]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far, all its threads (psutil, else Linux's /proc)."""
    try:
        import psutil

        times = psutil.Process(pid).cpu_times()
        return times.user + times.system
    except ImportError:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (the peak so far) of a process, in bytes (Linux's /proc)."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) * 1024
    return found


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


# --- rooms made over HTTP --------------------------------------------------------------------------------------


def boards_for(url: str, count: int, seed: int) -> list[dict]:
    """`count` classic boards rolled from `seed`, each with its words (POST /api/solve): {board, faces, words}."""
    import httpx2

    with httpx2.Client(timeout=60) as client:
        rolled = client.get(f"{url}/api/roll", params={"dice": "classic", "seed": seed, "count": count}).json()
        boards = []
        for board in rolled["boards"]:
            solved = client.post(f"{url}/api/solve", json={"board": board["board"]}).json()
            boards.append({"board": board["board"], "faces": board["faces"], "rows": board["rows"],
                           "cols": board["cols"], "words": [w["word"] for w in solved["words"]]})
    return boards


def make_rooms(url: str, boards: list[dict], players: int, seconds: int, names: str = "P") -> list[dict]:
    """A room on each board, its creator and `players - 1` more joined: {code, board, players: [{id, token}]}."""
    import httpx2

    def one(board: dict) -> dict:
        with httpx2.Client(timeout=60) as client:
            made = client.post(f"{url}/api/rooms", json={"name": f"{names}1", "board": board["board"],
                                                         "seconds": seconds})
            if made.status_code != 200:
                sys.exit(f"POST /api/rooms answered {made.status_code}: {made.text[:200]}")
            made = made.json()
            seats = [made["player"]]
            for n in range(2, players + 1):
                joined = client.post(f"{url}/api/rooms/{made['code']}/players", json={"name": f"{names}{n}"})
                if joined.status_code != 200:
                    sys.exit(f"joining a room answered {joined.status_code}: {joined.text[:200]}")
                seats.append(joined.json()["player"])
        return {"code": made["code"], "board": board, "players": seats}

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(one, boards))


def word_plan(board: dict, count: int, rng: random.Random) -> list[str]:
    """What one player sends: 60% real words of the board (repeats and words of other players' too: repeated and
    cancelled), 20% paths of the board that spell no word (not in the dictionary), 20% letters not on it."""
    real, faces, rows, cols = board["words"], board["faces"], board["rows"], board["cols"]
    known = set(real)
    plan = []
    while len(plan) < count:
        pick = rng.random()
        if pick < 0.6 and real:
            plan.append(rng.choice(real))
        elif pick < 0.8:
            cell, path = rng.randrange(rows * cols), []
            while len(path) < rng.randint(3, 6):
                path.append(cell)
                r, c = divmod(cell, cols)
                steps = [(r + dr) * cols + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                         if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols and
                         (r + dr) * cols + c + dc not in path]
                if not steps:
                    break
                cell = rng.choice(steps)
            word = "".join(faces[i] for i in path)
            if word not in known and len(word) >= 3:
                plan.append(word)
        else:
            plan.append("".join(rng.choice("bcdfghjklmnpvwxz") for _ in range(rng.randint(3, 7))))
    return plan


# --- the players (client processes) ----------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Seat:
    """One player's connection: the words they send, when, and what came back."""

    def __init__(self, room: dict, index: int, plan: list[str]) -> None:
        self.room, self.index, self.plan = room, index, plan
        self.token = room["players"][index]["token"]
        self.pending: deque[tuple[float, str]] = deque()
        self.latencies: list[tuple[float, float]] = []  # (sent at, seconds)
        self.accepted: list[tuple[str, int]] = []
        self.kinds: Counter = Counter()
        self.verdicts: Counter = Counter()
        self.mismatched = 0
        self.playing = asyncio.Event()
        self.results: dict | None = None
        self.got_results = asyncio.Event()
        self.closed: str | None = None
        self.ends = 0.0

    def take(self, message: dict) -> None:
        kind = message["kind"]
        self.kinds[kind] += 1
        if kind == "verdict":
            now = time.perf_counter()
            if not self.pending:
                self.mismatched += 1
                return
            sent, word = self.pending.popleft()
            self.latencies.append((sent, now - sent))
            self.verdicts[message["verdict"]] += 1
            if message["word"] != word:
                self.mismatched += 1
            if message["verdict"] == "accepted":
                self.accepted.append((message["word"], message["points"]))
        elif kind == "state" and message["phase"] == "playing":
            self.ends = message["ends"]
            self.playing.set()
        elif kind == "results":
            self.results = message
            self.got_results.set()


async def read(socket, seat: Seat) -> None:
    from websockets.exceptions import ConnectionClosed

    try:
        async for raw in socket:
            seat.take(json.loads(raw))
        seat.closed = f"{socket.close_code} {socket.close_reason}" if seat.results is None else None
    except ConnectionClosed as err:
        seat.closed = f"{err.rcvd.code if err.rcvd else 'no close frame'}"


async def send_words(socket, seat: Seat, rate: float, rng: random.Random) -> None:
    await seat.playing.wait()
    start = time.perf_counter() + rng.random() / rate
    for n, word in enumerate(seat.plan):
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        seat.pending.append((time.perf_counter(), word))
        await socket.send(json.dumps({"kind": "word", "word": word}))


def room_results_agree(seats: list[Seat]) -> bool:
    """Whether the results the server sent are those its verdicts imply: each player's accepted words in order,
    a word accepted for two players or more cancelled for all (the rule is on), the scores after it."""
    results = seats[0].results
    if results is None or any(s.results != results for s in seats):
        return False
    found = Counter(word for s in seats for word, _ in s.accepted)
    cancelled = sorted(w for w, n in found.items() if n > 1)
    expected = [[(w, p, found[w] > 1) for w, p in s.accepted] for s in seats]
    got = [[(w["word"], w["points"], w["cancelled"]) for w in p["words"]] for p in results["players"]]
    scores = [sum(p for _, p, gone in words if not gone) for words in expected]
    return (got == expected and results["cancelled"] == cancelled and
            [p["score"] for p in results["players"]] == scores)


async def play_rooms(url: str, rooms: list[dict], rate: float, count: int, seed: int, ready, go, playing,
                     drained) -> dict:
    from websockets.asyncio.client import connect

    socket_url = url.replace("http", "ws", 1)
    seats: list[tuple[Seat, object]] = []
    readers = []
    async with AsyncExitStack() as stack:
        for r, room in enumerate(rooms):
            for i in range(len(room["players"])):
                seat = Seat(room, i, word_plan(room["board"], count, random.Random(seed * 1_000_003 + r * 100 + i)))
                socket = await stack.enter_async_context(
                    connect(f"{socket_url}/api/rooms/{room['code']}/socket", proxy=None, ping_interval=None,
                            open_timeout=60, close_timeout=5))
                await socket.send(json.dumps({"kind": "hello", "token": seat.token}))
                while json.loads(await socket.recv())["kind"] != "welcome":
                    pass
                seats.append((seat, socket))
                readers.append(asyncio.create_task(read(socket, seat)))
        compression = ",".join(e.name for e in seats[0][1].protocol.extensions) or "none"
        ready.put(os.getpid())
        await asyncio.to_thread(go.wait)
        cpu, wall = cpu_self(), time.perf_counter()
        for seat, socket in seats:
            if seat.index == 0:
                await socket.send(json.dumps({"kind": "start"}))
        await asyncio.wait_for(asyncio.gather(*(seat.playing.wait() for seat, _ in seats)), 60)
        if playing is not None:
            playing.set()
        rng = random.Random(seed)
        await asyncio.gather(*(send_words(socket, seat, rate, rng) for seat, socket in seats))
        deadline = time.perf_counter() + GRACE_S
        while any(seat.pending for seat, _ in seats) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        played = time.perf_counter()
        cpu_play = cpu_self() - cpu
        drained.put(played)
        ends = max(seat.ends for seat, _ in seats)
        try:
            await asyncio.wait_for(asyncio.gather(*(seat.got_results.wait() for seat, _ in seats)),
                                   max(ends - time.time(), 0) + GRACE_S)
        except TimeoutError:
            pass
        deadline = time.perf_counter() + GRACE_S  # words still queued at the server when the round ended: too_late
        while any(seat.pending for seat, _ in seats) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
    for task in readers:
        task.cancel()
    by_room: dict[str, list[Seat]] = {}
    for seat, _ in seats:
        by_room.setdefault(seat.room["code"], []).append(seat)
    every = [seat for seat, _ in seats]
    return {"latencies": [x for s in every for x in s.latencies],
            "sent": sum(len(s.plan) for s in every), "verdicts": sum(len(s.latencies) for s in every),
            "dropped": sum(len(s.pending) for s in every), "mismatched": sum(s.mismatched for s in every),
            "outcomes": sum((s.verdicts for s in every), Counter()), "kinds": sum((s.kinds for s in every), Counter()),
            "closed": Counter(s.closed for s in every if s.closed), "first": wall, "played": played,
            "cpu_play": cpu_play, "cpu_all": cpu_self(), "rooms_agree": sum(room_results_agree(s) for s in by_room.values()),
            "rooms": len(by_room), "results": {code: s[0].results for code, s in by_room.items()},
            "compression": compression}


def client_main(url, rooms, rate, count, seed, ready, go, playing, drained, out) -> None:
    out.put(asyncio.run(play_rooms(url, rooms, rate, count, seed, ready, go, playing, drained)))


def run_rooms(server: Server, rooms: list[dict], rate: float, seconds: float, procs: int, seed: int,
              playing=None) -> dict:
    """Play `rooms` from `procs` client processes (rooms dealt in turn); what they measured, merged, with the
    server's CPU over the play and its peak RSS."""
    count = max(1, round(rate * seconds))
    procs = max(1, min(procs, len(rooms)))
    ready, drained, out, go = SPAWN.Queue(), SPAWN.Queue(), SPAWN.Queue(), SPAWN.Event()
    workers = [SPAWN.Process(target=client_main, args=(server.url, rooms[p::procs], rate, count, seed + p, ready, go,
                                                       playing, drained, out), daemon=True)
               for p in range(procs)]
    for worker in workers:
        worker.start()
    for _ in workers:
        ready.get(timeout=600)
    rss_ready = rss(server.proc.pid)["VmRSS"]
    late: list[float] = []
    done = threading.Event()

    def probe() -> None:
        """How late a 10 ms sleep of this (otherwise idle) process wakes: the machine's stalls, not the server's."""
        while not done.is_set():
            asleep = time.perf_counter()
            time.sleep(0.01)
            late.append(time.perf_counter() - asleep - 0.01)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    cpu, started = server.cpu(), time.perf_counter()
    go.set()
    for _ in workers:
        drained.get(timeout=600)
    cpu = server.cpu() - cpu
    wall = time.perf_counter() - started
    done.set()
    prober.join()
    parts = [out.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join(30)
    merged = {"latencies": [x for p in parts for x in p["latencies"]], "server_cpu": cpu, "wall": wall,
              "span": max(p["played"] for p in parts) - min(p["first"] for p in parts),
              "client_cpu": [p["cpu_play"] for p in parts], "rss_ready": rss_ready, "rss": rss(server.proc.pid),
              "rooms": len(rooms), "players": sum(len(r["players"]) for r in rooms), "rate": rate,
              "compression": parts[0]["compression"], "results": {k: v for p in parts for k, v in p["results"].items()},
              "probe_late": sum(x > SLOW_S for x in late), "probe_max": max(late, default=0.0),
              "window": (min(p["first"] for p in parts), max(p["played"] for p in parts))}
    for key in ("sent", "verdicts", "dropped", "mismatched", "rooms_agree"):
        merged[key] = sum(p[key] for p in parts)
    for key in ("outcomes", "kinds", "closed"):
        merged[key] = sum((p[key] for p in parts), Counter())
    return merged


def summary(run: dict) -> dict:
    """Latency percentiles (ms), verdicts a second, and the verdicts over 50 ms with the one-second windows (by
    the time the word was sent) they fell in: a few windows is a few stalls of everything at once (a full
    garbage collection of the server's, the machine's other work), many is a server that is not keeping up."""
    ms = [seconds * 1e3 for _, seconds in run["latencies"]]
    first = min((t for t, _ in run["latencies"]), default=0.0)
    slow = [t for t, seconds in run["latencies"] if seconds > SLOW_S]
    return {"p50": percentile(ms, 0.5), "p95": percentile(ms, 0.95), "p99": percentile(ms, 0.99),
            "max": max(ms) if ms else float("nan"), "rate": run["verdicts"] / run["span"] if run["span"] else 0,
            "slow": len(slow), "windows": len({int(t - first) for t in slow})}


def stalls(run: dict) -> str:
    s = summary(run)
    return (f"{s['slow']:,} verdicts over {SLOW_S * 1e3:g} ms ({s['slow'] / max(run['verdicts'], 1):.1%}), sent in "
            f"{s['windows']} one-second windows; the benchmark's own 10 ms sleeps woke over {SLOW_S * 1e3:g} ms late "
            f"{run['probe_late']} times (at most {run['probe_max'] * 1e3:.0f} ms late)")


# --- the flood of bad messages ---------------------------------------------------------------------------------


async def flood(url: str, count: int, spread: float, measured: dict, strangers: list[dict], start, window) -> dict:
    """`count` connections, the kinds of BAD_KINDS in turn, the n-th opened no sooner than n * spread / count seconds
    after the start (so that the flood lasts as long as the measured room plays) and FLOOD_CONCURRENCY at most at
    once, each closed by the server: {kind: Counter of close codes}, a close reason of each, and the time it took."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    socket_url = url.replace("http", "ws", 1)
    victim = measured["players"][1]["token"]
    closes: dict[str, Counter] = {kind: Counter() for kind, _, _ in BAD_KINDS}
    reasons: dict[str, str] = {}
    tokens = [(room["code"], p["token"]) for room in strangers for p in room["players"]]

    async def one(n: int) -> None:
        kind, first, _ = BAD_KINDS[n % len(BAD_KINDS)]
        own_code, own_token = tokens[n % len(tokens)]
        code = measured["code"] if kind == "a stranger's token in the measured room" else own_code
        try:
            async with connect(f"{socket_url}/api/rooms/{code}/socket", proxy=None, ping_interval=None,
                               open_timeout=60, close_timeout=10, compression=None) as socket:
                if first == "hello":
                    await socket.send(json.dumps({"kind": "hello", "token": own_token}))
                    while json.loads(await socket.recv())["kind"] != "welcome":
                        pass
                bad = {
                    "malformed JSON": "{nope",
                    "frame over the size limit (64 KiB)": json.dumps({"kind": "word", "word": "a" * 65536}),
                    "wrong type (word: 5)": json.dumps({"kind": "word", "word": 5}),
                    "unknown kind": json.dumps({"kind": "dance"}),
                    "binary frame": b"\x00\x01\x02",
                    "not an object": "[1, 2, 3]",
                    "no hello first": json.dumps({"kind": "word", "word": "seat"}),
                    "another player's token on a connection": json.dumps({"kind": "word", "word": "seat",
                                                                          "token": victim}),
                    "the measured room's token in another room": json.dumps({"kind": "hello", "token": victim}),
                    "a stranger's token in the measured room": json.dumps({"kind": "hello", "token": own_token}),
                }[kind]
                try:
                    await socket.send(bad)
                    async with asyncio.timeout(30):
                        while True:
                            await socket.recv()
                except ConnectionClosed:
                    pass
                got = socket.protocol.close_rcvd
                closes[kind][got.code if got else "no close frame"] += 1
                if got:
                    reasons.setdefault(f"{kind} {got.code}", got.reason)
        except (OSError, TimeoutError) as err:
            closes[kind][type(err).__name__] += 1

    await asyncio.to_thread(start.wait)
    began = time.perf_counter()
    queue = iter(range(count))

    async def worker() -> None:
        for n in queue:
            delay = began + n * spread / count - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await one(n)

    await asyncio.gather(*(worker() for _ in range(FLOOD_CONCURRENCY)))
    ended = time.perf_counter()
    window.put((began, ended))
    return {"closes": {k: dict(v) for k, v in closes.items()}, "reasons": reasons, "seconds": ended - began,
            "cpu": cpu_self()}


def flood_main(url, count, spread, measured, strangers, start, window, out) -> None:
    out.put(asyncio.run(flood(url, count, spread, measured, strangers, start, window)))


# --- the sections ----------------------------------------------------------------------------------------------


def latency_row(label: str, run: dict) -> str:
    s = summary(run)
    return (f"| {label} | {run['verdicts']:,} | {s['p50']:.1f} | {s['p95']:.1f} | {s['p99']:.1f} | {s['max']:.1f} | "
            f"{s['rate']:,.0f} | {run['dropped']} |")


def words_a_second(rate: float) -> str:
    return f"{rate:g} word{'' if rate == 1 else 's'} a second"


def mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def load_section(args, conditions: Conditions) -> tuple[list[str], dict]:
    load_before = load_average()
    server = Server(args.lexicon)
    boards = boards_for(server.url, args.rooms, SEED)
    rooms = make_rooms(server.url, boards, args.players, int(args.seconds) + ROOM_MARGIN_S)
    print(f"  {len(rooms)} rooms made; playing {args.seconds:g} s", file=sys.stderr)
    run = run_rooms(server, rooms, args.rate, args.seconds, args.client_procs, SEED)
    status, log = server.stop()
    s = summary(run)
    print(f"  p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms, {s['rate']:,.0f} verdicts/s, dropped {run['dropped']}",
          file=sys.stderr)
    outcomes = ", ".join(f"{n:,} {k}" for k, n in run["outcomes"].most_common())
    cpu_clients = sum(run["client_cpu"])
    lines = [
        f"## Load: {run['rooms']} rooms of {args.players} players, {words_a_second(args.rate)} each, "
        f"{args.seconds:g} s", "",
        f"{run['players']:,} WebSocket connections from {len(run['client_cpu'])} client processes (asyncio, the "
        f"`websockets` client; compression negotiated: {run['compression']}), each player sending "
        f"{round(args.rate * args.seconds)} words at {args.rate:g} a second: {run['sent']:,} words offered at "
        f"{run['players'] * args.rate:,.0f} a second. Each room on its own classic board (seed {SEED}).", "",
        "| | verdicts | p50 ms | p95 ms | p99 ms | max ms | verdicts/s | dropped |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        latency_row("send -> verdict", run), "",
        f"- Verdicts: {outcomes}; verdicts not for the word sent: {run['mismatched']}.",
        f"- Dropped (sent, and no verdict by the end: {GRACE_S:g} s after the last send, the round's results and "
        f"{GRACE_S:g} s more): **{run['dropped']}**.",
        f"- Stalls: {stalls(run)}.",
        f"- Server CPU over the play ({run['wall']:.1f} s, from the start signal to the last verdict): "
        f"{run['server_cpu']:.1f} s ({run['server_cpu'] / run['wall']:.2f} of a core; "
        f"{run['server_cpu'] / max(run['verdicts'], 1) * 1e3:.2f} ms a verdict, the state pushed to the room "
        f"after each accepted word included).",
        f"- Server RSS: {mib(server.rss_started)} once started, {mib(run['rss_ready'])} with the rooms made and "
        f"connected, peak (VmHWM) {mib(run['rss']['VmHWM'])}.",
        f"- Clients' CPU over the play: {', '.join(f'{c:.1f} s' for c in run['client_cpu'])} "
        f"({cpu_clients:.1f} s in all, {cpu_clients / run['wall']:.2f} of a core).",
        f"- Rounds ended by the server's clock: {run['rooms_agree']} of {run['rooms']} rooms' results exactly as "
        f"their verdicts imply (words in order, the cancel rule, the scores); messages received: "
        + ", ".join(f"{n:,} {k}" for k, n in run["kinds"].most_common()) + "; connections closed early: "
        + (", ".join(f"{n} x {k}" for k, n in run["closed"].items()) or "none") + ".",
        f"- The server stopped on SIGTERM with status {status}; it logged "
        + (f"{len(log)} lines: `{log[0][:200]}`" if log else "nothing") + ".",
        "", conditions.note(load_before, load_average()), ""]
    return lines, run


def flood_section(args, conditions: Conditions) -> tuple[list[str], bool]:
    load_before = load_average()
    server = Server(args.lexicon)
    board = boards_for(server.url, 1, SEED + 1)[0]
    seconds = int(args.flood_seconds) + ROOM_MARGIN_S
    measured = make_rooms(server.url, [board, board], args.players, seconds, names="M")
    strangers = make_rooms(server.url, boards_for(server.url, 2, SEED + 2), 8, 600, names="X")
    print(f"  the measured room alone, {args.flood_seconds:g} s", file=sys.stderr)
    alone = run_rooms(server, [measured[0]], FLOOD_RATE, args.flood_seconds, 1, SEED)
    fds_before = descriptors(server.proc.pid)
    start, window, out = SPAWN.Event(), SPAWN.Queue(), SPAWN.Queue()
    spread = max(args.flood_seconds - 2, 1)
    attacker = SPAWN.Process(target=flood_main, args=(server.url, args.bad, spread, measured[1], strangers, start,
                                                      window, out), daemon=True)
    attacker.start()
    print(f"  again, with {args.bad:,} bad connections", file=sys.stderr)
    cpu = server.cpu()
    under = run_rooms(server, [measured[1]], FLOOD_RATE, args.flood_seconds, 1, SEED, playing=start)
    began, ended = window.get(timeout=600)
    attack = out.get(timeout=600)
    attacker.join(30)
    cpu = server.cpu() - cpu
    fds_after = descriptors(server.proc.pid)
    status, log = server.stop()
    during = {**under, "latencies": [(t, s) for t, s in under["latencies"] if began <= t <= ended]}
    during["verdicts"], during["dropped"] = len(during["latencies"]), 0
    during["span"] = ended - began
    results = [r["results"][m["code"]] for r, m in ((alone, measured[0]), (under, measured[1]))]
    kept = [None if r is None else ([(p["name"], p["score"], p["words"]) for p in r["players"]], r["cancelled"],
                                    r["maximum"]) for r in results]
    same = kept[0] is not None and kept[0] == kept[1]
    expected = {kind: code for kind, _, code in BAD_KINDS}
    as_expected = all(set(closes) == {expected[kind]} for kind, closes in attack["closes"].items())
    lines = [
        f"## {args.bad:,} bad WebSocket messages while a measured room plays", "",
        f"The measured room: {args.players} players on one board, {words_a_second(FLOOD_RATE)} each for "
        f"{args.flood_seconds:g} s, first alone, then on the same board with the same words (a new room) while "
        f"{args.bad:,} connections from a process of their own, spread over {spread:g} s and at most "
        f"{FLOOD_CONCURRENCY} at a time, each send one bad message; the flood took {attack['seconds']:.1f} s "
        f"({args.bad / attack['seconds']:,.0f} connections a second; the attacking process used "
        f"{attack['cpu']:.1f} s of CPU). \"during the flood\" is the measured "
        f"room's words sent between the flood's first and last connection.", "",
        "| measured room | verdicts | p50 ms | p95 ms | p99 ms | max ms | verdicts/s | dropped |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        latency_row("alone", alone), latency_row("with the flood (whole round)", under),
        latency_row("during the flood", during), "",
        f"- The measured room's results with the flood are {'identical to' if same else 'NOT the same as'} its "
        f"results alone (each player's words, points, cancelled words and scores); each run's results as its "
        f"verdicts imply: {alone['rooms_agree'] + under['rooms_agree']} of 2; dropped {alone['dropped']} and "
        f"{under['dropped']}; its connections closed early: "
        + (", ".join(f"{n} x {k}" for k, n in (alone["closed"] + under["closed"]).items()) or "none") + ".",
        f"- Stalls, alone: {stalls(alone)}; with the flood: {stalls(under)}.",
        f"- Server CPU over the flooded round: {cpu:.1f} s; its open descriptors {fds_before} before the flood, "
        f"{fds_after} after; stopped with status {status}, having logged "
        + (f"{len(log)} lines: `{log[0][:200]}`" if log else "nothing") + ".", "",
        "How the server closed each bad connection (expected: the close code docs/server.md gives):", "",
        "| bad message | connections | closed with | expected | as expected | reason (first seen) |",
        "|---|---:|---|---:|---|---|"]
    for kind, _, code in BAD_KINDS:
        closes = attack["closes"][kind]
        reason = attack["reasons"].get(f"{kind} {code}", "").replace("|", "\\|")
        lines.append(f"| {kind} | {sum(closes.values()):,} | "
                     f"{', '.join(f'{n:,} x {c}' for c, n in closes.items())} | {code} | "
                     f"{'yes' if set(closes) == {code} else 'NO'} | {reason[:90]} |")
    lines += ["", f"Every bad connection closed with the expected code: {'yes' if as_expected else 'NO'}.", "",
              conditions.note(load_before, load_average()), ""]
    s_alone, s_during = summary(alone), summary(during)
    print(f"  alone p99 {s_alone['p99']:.1f} ms, during the flood p99 {s_during['p99']:.1f} ms; results same: {same}; "
          f"closes as expected: {as_expected}", file=sys.stderr)
    return lines, as_expected and same


def steps_section(args, conditions: Conditions) -> tuple[list[str], int | None]:
    load_before = load_average()
    lines = [f"## Rooms one process holds: verdict p99 under {TARGET_P99_MS:g} ms", "",
             f"{args.players} players a room, {words_a_second(args.rate)} each, {args.step_seconds:g} s a step, a "
             f"fresh server each step, {args.client_procs} client processes; the steps stop after one where the server "
             f"judged fewer than 90% of the words offered a second (it no longer keeps up). A p99 over "
             f"{TARGET_P99_MS:g} ms with the slow verdicts in one or two one-second windows is a stall of "
             f"everything at once (see (e)), not a server falling behind.", "",
             "| rooms | players | verdicts | p50 ms | p95 ms | p99 ms | max ms | verdicts/s | dropped | over 50 ms "
             "(1-s windows) | server CPU (cores) | peak RSS | clients' CPU (cores) | load (1 min) before |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    held = None
    for count in args.steps:
        step_load = load_average()[0]
        server = Server(args.lexicon)
        rooms = make_rooms(server.url, boards_for(server.url, count, SEED), args.players,
                           int(args.step_seconds) + ROOM_MARGIN_S)
        run = run_rooms(server, rooms, args.rate, args.step_seconds, args.client_procs, SEED)
        server.stop()
        s = summary(run)
        ok = s["p99"] < TARGET_P99_MS and run["dropped"] == 0
        if ok:
            held = count
        lines.append(f"| {count} | {run['players']:,} | {run['verdicts']:,} | {s['p50']:.1f} | {s['p95']:.1f} | "
                     f"{s['p99']:.1f} | {s['max']:.1f} | {s['rate']:,.0f} | {run['dropped']} | "
                     f"{s['slow']:,} ({s['windows']}) | {run['server_cpu']:.1f} s "
                     f"({run['server_cpu'] / run['wall']:.2f}) | {mib(run['rss']['VmHWM'])} | "
                     f"{sum(run['client_cpu']):.1f} s ({sum(run['client_cpu']) / run['wall']:.2f}) | {step_load:.2f} |")
        print(f"  {count} rooms: p50 {s['p50']:.1f} ms, p99 {s['p99']:.1f} ms, {s['rate']:,.0f} verdicts/s, "
              f"dropped {run['dropped']}", file=sys.stderr)
        offered = run["players"] * args.rate
        if run["dropped"] or run["verdicts"] / run["wall"] < 0.9 * offered:
            lines.append(f"| (stopped: fewer than 90% of the {offered:,.0f} words a second offered judged) "
                         f"| | | | | | | | | | | | | |")
            break
    lines += ["", f"The largest count whose verdict p99 stayed under {TARGET_P99_MS:g} ms with nothing dropped: "
              + (f"**{held} rooms** ({held * args.players:,} players, {held * args.players * args.rate:,.0f} words "
                 f"a second offered)" if held else "**none of the counts tried**") + ".", "",
              conditions.note(load_before, load_average()), ""]
    return lines, held


class Unread:
    """A connection that drops what it is sent: the room service's own cost, without the WebSockets'."""

    def push(self, item) -> None:
        pass


def judges_section(args, conditions: Conditions) -> list[str]:
    """(d): the room service's CPU a word (Rooms.submit called in this process, no WebSocket) with as many rooms
    playing, on boards of their own, as the catalog keeps judges, and more: past JUDGES_KEPT each word solves its
    board again."""
    from boggle_dawg.server.app import create_app
    from boggle_dawg.server.catalog import JUDGES_KEPT
    from boggle_dawg.server.served import close_served, open_served

    load_before = load_average()
    served = open_served([args.lexicon], None, jobs=1)
    one = next(iter(served.values()))
    lines = [f"## The room service's CPU a word, by rooms playing (catalog.JUDGES_KEPT = {JUDGES_KEPT})", "",
             "`Rooms.submit` called in the benchmark's own process (no WebSocket, no thread hand-over: the judging, "
             "the state and the verdict made and queued), each room on a board of its own with its creator "
             "playing, one word a room in turn; CPU time of the benchmark's process.", "",
             "| rooms playing | words | CPU ms a word |", "|---:|---:|---:|"]
    for count in (100, JUDGES_KEPT, JUDGES_KEPT + 44):
        rooms = create_app(served).state.rooms
        codes, words = [], {}
        for n in range(count):
            code = rooms.create(f"P{n}", None, None, "classic", None, None, 600, True, None)["code"]
            rooms.connect(code, 1, Unread())
            rooms.start(code, 1)
            codes.append(code)
            words[code] = [f.word for f in one.words(one.lexicon.board(rooms.store.get(code)["round"]["board"]))]
        rng, total = random.Random(SEED), 3 * max(count, 1000)
        cpu = time.process_time()
        for n in range(total):
            code = codes[n % count]
            rooms.submit(code, 1, rng.choice(words[code] or ["zzz"]))
        cpu = (time.process_time() - cpu) / total * 1e3
        lines.append(f"| {count} | {total:,} | {cpu:.2f} |")
        print(f"  {count} rooms: {cpu:.2f} ms a word", file=sys.stderr)
    close_served(served)
    return [*lines, "", f"Past {JUDGES_KEPT} rooms playing at once (the server allows 1,000 by default), the judges "
            f"kept are those of the {JUDGES_KEPT} boards used last, and words sent by the rooms in turn each solve "
            f"their board again (tests/test_rooms_restart.py has the failing test, marked xfail).", "",
            conditions.note(load_before, load_average()), ""]


def gc_section(args, conditions: Conditions) -> tuple[list[str], str]:
    """(e): the load of (a) for --gc-seconds on the server as it is and on one with gc.freeze() after start-up (both
    through GC_WATCH, which logs the server's full collections), in turn, twice, each a fresh server."""
    load_before = load_average()
    lines = ["## Full garbage collections: the server as it is, and with gc.freeze() after start-up", "",
             f"{args.rooms} rooms of {args.players} players, {words_a_second(args.rate)} each, "
             f"{args.gc_seconds:g} s, the two servers in turn, twice, a fresh one each time, started by "
             "`python -c GC_WATCH serve ...` (benchmarks/rooms_bench.py: the same command, with a `gc.callbacks` "
             "hook logging each full collection's length; for the second, `gc.freeze()` once the application is "
             "made, the lexicons opened and warmed: the proposed fix). A full collection walks every object the "
             "process holds, the start-up's included (numba, pydantic, FastAPI: about 150,000 objects), and holds "
             "the GIL, so every room's verdicts wait for it. The lengths are wall time: on a loaded machine a "
             "collection also waits for a core.", "",
             "| server | verdicts | p50 ms | p99 ms | max ms | over 50 ms (1-s windows) | full collections while "
             "playing | their lengths, ms |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    found = []
    with tempfile.TemporaryDirectory(prefix="rooms-bench-gc-") as logs:
        for n, (label, freeze) in enumerate([("as it is", False), ("gc.freeze() after start-up", True)] * 2):
            gc_log = Path(logs) / f"gc-{n}.log"
            server = Server(args.lexicon, gc_log, freeze)
            rooms = make_rooms(server.url, boards_for(server.url, args.rooms, SEED), args.players,
                               int(args.gc_seconds) + ROOM_MARGIN_S)
            run = run_rooms(server, rooms, args.rate, args.gc_seconds, args.client_procs, SEED)
            server.stop()
            pauses = server.full_collections(*run["window"])
            s = summary(run)
            lines.append(f"| {label} | {run['verdicts']:,} | {s['p50']:.1f} | {s['p99']:.1f} | {s['max']:.1f} | "
                         f"{s['slow']:,} ({s['windows']}) | {len(pauses)} | "
                         f"{', '.join(f'{p * 1e3:.0f}' for p in pauses) or '-'} |")
            print(f"  {label}: p99 {s['p99']:.1f} ms; full collections {[round(p * 1e3) for p in pauses]} ms",
                  file=sys.stderr)
            lengths = ", ".join(f"{p * 1e3:.0f} ms" for p in pauses) or "none"
            found.append(f"{label}: p99 {s['p99']:.1f} ms, full collections while playing: {lengths}")
    return [*lines, "", conditions.note(load_before, load_average()), ""], "; ".join(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lexicon", default=None, help="a build directory to serve (default: the shipped lexicon)")
    parser.add_argument("--rooms", type=int, default=None, help="rooms of (a) (default 100; 8 with --quick)")
    parser.add_argument("--players", type=int, default=4, help="players a room (default 4)")
    parser.add_argument("--rate", type=float, default=1.0, help="words a second each player sends (default 1)")
    parser.add_argument("--seconds", type=float, default=None, help="how long they send in (a) (default 60; 5 quick)")
    parser.add_argument("--client-procs", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--bad", type=int, default=None, help="bad connections of (b) (default 1,000; 100 quick)")
    parser.add_argument("--flood-seconds", type=float, default=None,
                        help="how long the measured room of (b) sends (default 20; 5 quick)")
    parser.add_argument("--steps", type=lambda s: [int(x) for x in s.split(",")], default=None,
                        help="room counts of (c), comma-separated (default 25,50,100,150,200,300; 4,8 quick)")
    parser.add_argument("--step-seconds", type=float, default=None, help="each step's time (default 30; 5 quick)")
    parser.add_argument("--gc-seconds", type=float, default=None,
                        help="how long each server of (e) plays (default 40; 5 quick)")
    parser.add_argument("--only", choices=("load", "flood", "steps", "judges", "gc"), default=None,
                        help="one measurement only")
    parser.add_argument("--quick", action="store_true", help="smoke run; prints the tables instead of writing them")
    parser.add_argument("--out", default=None, help="results file (default benchmarks/results/rooms.md; --quick: none)")
    args = parser.parse_args()
    args.results = "rooms.md"
    quick = args.quick
    args.rooms = args.rooms or (8 if quick else 100)
    args.seconds = args.seconds or (5.0 if quick else 60.0)
    args.bad = args.bad or (100 if quick else 1_000)
    args.flood_seconds = args.flood_seconds or (5.0 if quick else 20.0)
    args.steps = args.steps or ([4, 8] if quick else [25, 50, 100, 150, 200, 300])
    args.step_seconds = args.step_seconds or (5.0 if quick else 30.0)
    args.gc_seconds = args.gc_seconds or (5.0 if quick else 40.0)

    conditions = Conditions()
    subprocess.run([*SOLVER_CLI, "qaiutestabcdefgh"], check=True, capture_output=True)  # the default lexicon built
    sections: list[str] = []
    findings: list[str] = []
    if args.only in (None, "load"):
        print("load:", file=sys.stderr)
        lines, run = load_section(args, conditions)
        sections += lines
        s = summary(run)
        findings.append(f"{run['rooms']} rooms x {args.players} players at {words_a_second(args.rate)} each: verdict p50 "
                        f"{s['p50']:.1f} ms, p99 {s['p99']:.1f} ms, {s['rate']:,.0f} verdicts/s, dropped "
                        f"{run['dropped']}, server {run['server_cpu'] / run['wall']:.2f} of a core, peak RSS "
                        f"{mib(run['rss']['VmHWM'])}")
    if args.only in (None, "flood"):
        print("bad messages:", file=sys.stderr)
        lines, fine = flood_section(args, conditions)
        sections += lines
        verdict = "every connection closed as documented, the measured room's results unaffected" if fine else \
            "NOT as expected (see below)"
        findings.append(f"{args.bad:,} bad messages: {verdict}")
    if args.only in (None, "steps"):
        print("steps:", file=sys.stderr)
        lines, held = steps_section(args, conditions)
        sections += lines
        findings.append(f"rooms one process holds at a verdict p99 under {TARGET_P99_MS:g} ms (of "
                        f"{', '.join(map(str, args.steps))} tried): {held or 'none'}")
    if args.only in (None, "judges"):
        print("judges:", file=sys.stderr)
        lines = judges_section(args, conditions)
        sections += lines
        findings.append("the room service's CPU a word: " + ", ".join(
            f"{row.split('|')[3].strip()} ms with {row.split('|')[1].strip()} rooms playing" for row in lines
            if row.startswith("| ") and row.split("|")[1].strip().isdigit()))
    if args.only in (None, "gc"):
        print("full collections:", file=sys.stderr)
        lines, found = gc_section(args, conditions)
        sections += lines
        findings.append(f"the server's full garbage collections, {found}")
    conditions.finish()
    served = f"the build {args.lexicon}" if args.lexicon else "the shipped default lexicon, sowpods"
    text = "\n".join([
        "# Rooms benchmark", "", conditions.header(), "",
        f"A real `dawg-solve serve` on 127.0.0.1 ({served}; default limits: 10 messages a second a connection, "
        f"1,024-byte messages), its "
        f"results in a temporary `--data` directory; the players in client processes on the same machine, sharing "
        f"its {os.cpu_count()} cores with the server and with whatever else runs there (see the load averages: "
        f"the machine was shared and loaded, so the latencies hold waits for a core). Latency is a word's, from "
        f"just before the client sends it to its verdict parsed by the same client (its event loop's delays "
        f"included).", "",
        "In short:", "", *[f"- {f}." for f in findings], "",
        *sections,
        "Reproduce: `" + shlex.join(["python", *sys.argv]) + "` from the repository root.", ""])
    publish(args, text)


if __name__ == "__main__":
    main()
