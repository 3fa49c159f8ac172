"""Kill worker, run in a subprocess by test_build_atomic.py: SIGKILL builds while they write.

Usage: python build_kill_worker.py WORK_DIR SEED RANDOM_TRIALS CONCURRENT_ROUNDS

It compiles three small word lists (A, B, C) once, builds A into WORK_DIR/out,
then runs trials, each in forked children that call `compiler.write.write_files`
exactly as a build does:

- step: for every file-system step that writing B over A takes (each call of
  os.mkdir/open/close/fsync/rename/replace/unlink/rmdir, builtins.open,
  fcntl.flock and write.py's own directory exchange), a child that SIGKILLs
  itself just before that step;
- random: a child that the worker SIGKILLs after a random delay within the
  time one write takes;
- concurrent: four children released at once, two writing B and two C.

After each trial it opens the output in every format and reports whether it
holds exactly A, B or C (the same one in all formats); after a kill it builds
A again and reports what that left besides the output. One
JSON object per line on stdout.
"""

from __future__ import annotations

import builtins
import fcntl
import json
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import boggle_dawg.compiler.write
from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.lexicon import open_lexicon

LISTS = {
    "A": ["cat", "cats", "dog", "dogs", "quit", "quiet", "zebra", "tea", "teas", "ten", "tent", "tents"],
    "B": ["ant", "ants", "bee", "bees", "cow", "cows", "quay", "quest", "stent", "net", "nets"],
    "C": ["eel", "eels", "fox", "foxes", "gnu", "gnus", "aqua", "equal", "rat", "rats", "tar", "tars"],
}
RACERS = ("B", "C", "B", "C")
STEP_FUNCTIONS = [(os, name) for name in ("mkdir", "open", "close", "fsync", "rename", "replace", "unlink",
                                          "rmdir")] + [(builtins, "open"), (fcntl, "flock")]


def compiled(work: Path, key: str) -> dict[str, bytes]:
    """The files of a build of list `key`, by name (built once beside the output)."""
    source = work / f"{key}.txt"
    source.write_text("\n".join(LISTS[key]) + "\n")
    out = build_lexicon(source, parse_charset("26"), work / f"compiled-{key}").out_dir
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def held(out: Path, expected: dict[str, list[str]]) -> str:
    """Which list the output holds in every format ('A', 'B', 'C'), or what is wrong with it."""
    seen = set()
    for fmt in FORMATS:
        try:
            words = open_lexicon(out, fmt).word_list()
        except DawgError as err:
            return f"{fmt}: {err}"
        seen.add(next((key for key, want in expected.items() if words == want), f"{fmt}: other words"))
    return seen.pop() if len(seen) == 1 else f"mixed {sorted(seen)}"


def leftovers(out: Path, names: set[str]) -> list[str]:
    """Anything beside the output, and anything in it but the build's `names`."""
    extra = [p.name for p in out.parent.iterdir() if p.name != out.name]
    if out.is_dir():
        extra += [f"{out.name}/{p.name}" for p in out.iterdir() if p.name not in names]
    return sorted(extra)


def count_steps(kill_at: int) -> Callable[[], int]:
    """In a child: count file-system steps, SIGKILL ourselves just before step `kill_at` (0: never)."""
    count = 0

    def counted(fn):
        def step(*args, **kwargs):
            nonlocal count
            count += 1
            if count == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kwargs)
        return step

    for module, name in STEP_FUNCTIONS:
        setattr(module, name, counted(getattr(module, name)))
    if hasattr(boggle_dawg.compiler.write, "_exchange"):
        boggle_dawg.compiler.write._exchange = counted(boggle_dawg.compiler.write._exchange)
    return lambda: count


def child(body) -> int:
    """Fork; the child runs body() and exits 0 (1 on an exception); returns the child's pid."""
    pid = os.fork()
    if pid == 0:
        try:
            body()
        except BaseException as err:  # noqa: BLE001 - report anything, then die without cleanup
            print(json.dumps({"child_error": repr(err)}), flush=True)
            os._exit(1)
        os._exit(0)
    return pid


def wait(pid: int) -> str:
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit {os.WEXITSTATUS(status)}"


def timed(body) -> float:
    started = time.perf_counter()
    body()
    return time.perf_counter() - started


def main() -> None:
    work, seed, random_trials, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    files = {key: compiled(work, key) for key in LISTS}
    names = set(files["A"])
    expected = {key: sorted(set(words)) for key, words in LISTS.items()}
    out = work / "parent" / "out"
    write = boggle_dawg.compiler.write.write_files

    def reset() -> dict:
        write(out, files["A"])
        return {"reset_holds": held(out, expected), "after_reset": leftovers(out, names)}

    reset()
    read_fd, write_fd = os.pipe()

    def count_only():
        steps = count_steps(0)
        write(out, files["B"])
        os.write(write_fd, str(steps()).encode())

    status = wait(child(count_only))
    steps = int(os.read(read_fd, 64))
    write_seconds = min(timed(lambda: wait(child(lambda: write(out, files["B"])))) for _ in range(3))
    print(json.dumps({"kind": "count", "steps": steps, "status": status, "seconds": write_seconds}), flush=True)

    for kill_at in range(1, steps + 1):
        reset()

        def killed_write(kill_at=kill_at):
            count_steps(kill_at)
            write(out, files["B"])

        status = wait(child(killed_write))
        report = {"kind": "step", "kill_at": kill_at, "status": status, "holds": held(out, expected),
                  "left": leftovers(out, names)}
        print(json.dumps({**report, **reset()}), flush=True)

    for trial in range(random_trials):
        reset()
        delay = rng.uniform(0, write_seconds)
        pid = child(lambda: write(out, files["B"]))
        time.sleep(delay)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        status = wait(pid)
        report = {"kind": "random", "trial": trial, "delay": delay, "status": status,
                  "holds": held(out, expected), "left": leftovers(out, names)}
        print(json.dumps({**report, **reset()}), flush=True)

    for trial in range(rounds):
        reset()
        gate_read, gate_write = os.pipe()

        def racer(key, gate=gate_read):
            os.read(gate, 1)
            write(out, files[key])

        pids = [child(lambda key=key: racer(key)) for key in RACERS]
        os.write(gate_write, b"go" * len(RACERS))
        statuses = [wait(pid) for pid in pids]
        os.close(gate_read)
        os.close(gate_write)
        print(json.dumps({"kind": "concurrent", "trial": trial, "statuses": statuses, "holds": held(out, expected),
                          "left": leftovers(out, names)}), flush=True)


if __name__ == "__main__":
    main()
