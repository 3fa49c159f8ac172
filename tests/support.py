"""Helpers the tests share: where the ../shared data is, and running the commands as a user would.

Tests that need ../shared skip with a reason when it is absent, except under
CI (CI=true), where its absence fails them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from boggle_dawg.defaults import default_word_list

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
IN_CI = os.environ.get("CI") == "true"


def shared_path(*parts: str) -> Path:
    """A file or directory under ../shared, or skip (fail under CI) when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if IN_CI:
            pytest.fail(f"{path} is missing; CI runs need the ../shared test data")
        pytest.skip(f"{path} not available (test data lives in ../shared)")
    return path


def word_list_path(name: str) -> Path:
    """'default' is the shipped list; any other name is ../shared/lexicons/<name>.txt."""
    return default_word_list() if name == "default" else shared_path("lexicons", f"{name}.txt")


def run_cli(*args: str, stdin: str | None = None, env: dict | None = None, timeout: float = 120):
    """Run `python -m <module> args` as a user would; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=REPO)


def sigint_default() -> None:
    """`preexec_fn` for a child that a test interrupts (SIGINT, Ctrl-C typed): a suite started in
    the background (`pytest &` in a script) has SIGINT ignored, which its children would inherit
    and, as programs started so must, keep, never seeing the interrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def assert_clean_error(proc, *fragments: str) -> None:
    """A failed command: non-zero exit, one line on stderr naming the problem, no traceback."""
    assert proc.returncode not in (0,) and proc.returncode > 0, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
