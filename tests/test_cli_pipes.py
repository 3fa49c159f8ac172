"""A closed output pipe (`... | head -3`) ends every command quietly with status 141
(128 + SIGPIPE), the status a shell reports for a tool killed by SIGPIPE."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clitools import build_small_lexicon, random_boards
from support import REPO

CLOSED_PIPE = 141


def run_into_closed_pipe(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """`python -m args` whose stdout's reader has gone before the first write."""
    proc = subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO)
    proc.stdout.close()  # nobody reads stdout: every write fails with EPIPE
    _, stderr = proc.communicate(input=stdin.encode(), timeout=120)
    return subprocess.CompletedProcess(args, proc.returncode, "", stderr.decode())


@pytest.fixture(scope="module")
def lexicon(tmp_path_factory):
    return str(build_small_lexicon(tmp_path_factory.mktemp("pipes")))


def _boards(count: int) -> str:
    return "\n".join(random_boards(count, seed=3)) + "\n"


@pytest.mark.parametrize("command", [
    ("solve", "{lex}", "serstaplrtesienq", "--paths"),
    ("roll", "--count", "100000", "--seed", "1"),
    ("solve", "{lex}", "--boards", "-", "-q"),
    ("solve", "{lex}", "--boards", "-", "-q", "--json", "--line-numbers"),
    ("rearrange", "{lex}", "catsteasnotestar", "--rounds", "2", "--seed", "1", "-q"),
    ("search", "{lex}", "--rounds", "2", "--seed", "1", "-q"),
    ("prove", "{lex}", "--size", "2x2", "--min-score", "1", "-q"),
])
def test_dawg_solve_exits_quietly_into_a_closed_pipe(lexicon, command):
    proc = run_into_closed_pipe("boggle_dawg.dawg_solve", *[a.format(lex=lexicon) for a in command], stdin=_boards(20000))
    assert (proc.returncode, proc.stderr) == (CLOSED_PIPE, "")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full, a device whose writes fail, on this system")
@pytest.mark.parametrize("command", [  # the one-board path (no typer), a batch, and typer's commands of both programs
    ("boggle_dawg.dawg_solve", "{lex}", "serstaplrtesienq", "--json"),
    ("boggle_dawg.dawg_solve", "solve", "{lex}", "--boards", "-", "-q"),
    ("boggle_dawg.dawgc_cli", "info", "{lex}"),
])
def test_a_full_disk_under_stdout_is_one_line(lexicon, command):
    """Standard output that refuses writes (/dev/full: 'No space left on device') ends a command with one
    line and status 1, not a traceback."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", *[a.format(lex=lexicon) for a in command]], stdout=full,
                              stderr=subprocess.PIPE, input=_boards(100), text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1 and proc.stderr.splitlines()[-1].endswith(
        "error: standard output: No space left on device"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_dawgc_words_exits_quietly_into_a_closed_pipe(lexicon):
    proc = run_into_closed_pipe("boggle_dawg.dawgc_cli", "words", lexicon)
    assert (proc.returncode, proc.stderr) == (CLOSED_PIPE, "")


def test_head_closes_the_pipe_in_a_shell_pipeline(lexicon):
    script = (f'set -o pipefail; "{sys.executable}" -m boggle_dawg.dawg_solve roll --count 100000 --seed 1 | head -3; '
              f'echo "status ${{PIPESTATUS[0]}}"')
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120,
                          check=False)
    lines = proc.stdout.splitlines()
    assert len(lines) == 4 and lines[3] == f"status {CLOSED_PIPE}", proc.stdout
    assert proc.stderr == ""
