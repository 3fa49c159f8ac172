"""Shared fixtures: paths to ../shared test data, and builds cached for the whole session.

Tests that need ../shared skip with a reason when it is absent, except under
CI (CI=true), where its absence fails them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.build import build_lexicon
from solver.charset import parse_charset
from solver.defaults import default_word_list

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


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """built(name, charset="26") -> directory of a build made once per session."""
    cache: dict[tuple[str, str], Path] = {}

    def get(name: str, charset: str = "26") -> Path:
        key = (name, charset)
        if key not in cache:
            out = tmp_path_factory.mktemp(f"{name}-{charset}")
            build_lexicon(word_list_path(name), parse_charset(charset), out)
            cache[key] = out
        return cache[key]

    return get


@pytest.fixture
def make_lexicon(tmp_path):
    """make_lexicon(words, charset="26") -> build directory of a small word list written here."""
    count = 0

    def make(words, charset: str = "26") -> Path:
        nonlocal count
        count += 1
        source = tmp_path / f"list{count}.txt"
        source.write_text("\n".join(words) + "\n")
        out = tmp_path / f"build{count}"
        build_lexicon(source, parse_charset(charset), out)
        return out

    return make


def run_cli(*args: str, stdin: str | None = None, env: dict | None = None, timeout: float = 120):
    """Run `python -m <module> args` as a user would; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=REPO)


def assert_clean_error(proc, *fragments: str) -> None:
    """A failed command: non-zero exit, one line on stderr naming the problem, no traceback."""
    assert proc.returncode not in (0,) and proc.returncode > 0, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
