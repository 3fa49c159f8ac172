"""Helpers for the command-line tests: a small lexicon, random boards, and a run with stderr on a
pseudo-terminal and stdout on a pipe (as `dawg-solve ... > out.txt` typed at a terminal: progress
displays switch on, and stdout must still receive every result)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
WORDS = ["cat", "cats", "act", "acts", "scat", "tea", "teas", "eat", "eats", "seat", "east", "sate", "set",
         "rest", "star", "rats", "tars", "arts", "tsar", "near", "earn", "tone", "note", "stone", "notes"]


def build_small_lexicon(folder: Path) -> Path:
    """WORDS compiled into folder/out (a second or so: small enough for any test module)."""
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    source = folder / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    build_lexicon(source, parse_charset("26"), folder / "out")
    return folder / "out"


def random_boards(count: int, seed: int = 5) -> list[str]:
    """4x4 boards in notation over the letters of WORDS (so that they score)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("aceinorst"))
    return ["".join(row) for row in letters[rng.integers(0, len(letters), (count, 16))]]


@dataclass
class TerminalRun:
    returncode: int
    stdout: str
    screen: str  # everything drawn on the terminal (stderr), escape codes included


@dataclass
class Terminal:
    """A child running with stderr on a pseudo-terminal: `master` is the terminal's other end (what
    is written there is typed), `screen` what has been drawn so far."""

    proc: subprocess.Popen
    master: int
    screen: bytearray

    def text(self) -> str:
        return self.screen.decode("utf-8", "replace")


@contextmanager
def on_terminal(*args: str, typed: bool = False) -> Iterator[Terminal]:
    """`python -m args` with stderr a terminal and stdout a pipe; stdin is the terminal too when
    `typed`, else a pipe. The child is killed if still running at the end."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", *args], stdin=slave if typed else subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=slave, cwd=REPO, env=env)
    os.close(slave)
    screen = bytearray()

    def drain() -> None:  # read the terminal as it is drawn, so the child never blocks on it
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child has gone: the terminal reads as closed
                return
            if not chunk:
                return
            screen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield Terminal(proc, master, screen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
        os.close(master)


def run_with_terminal_stderr(*args: str, stdin: str | None = None, timeout: float = 120) -> TerminalRun:
    """`python -m args` with stderr a terminal and stdout a pipe; stdin from `stdin` or empty."""
    with on_terminal(*args) as terminal:
        stdout, _ = terminal.proc.communicate(input=(stdin or "").encode(), timeout=timeout)
    return TerminalRun(terminal.proc.returncode, stdout.decode(), terminal.text())
