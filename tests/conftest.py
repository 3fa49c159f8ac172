"""Shared fixtures: builds cached for the whole run (all xdist workers), and small lexicons made per test.

The helpers the tests import (paths to ../shared, running the commands) are in support.py.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.charset import parse_charset

from support import word_list_path

# The files that take longest (`--durations=0`, benchmarks/results/suite.md), longest first. pytest-xdist
# (`--dist loadfile --no-loadscope-reorder`) hands files to its workers in collection order as each finishes
# one, so a long file collected last (test_readme.py, one test of a minute) would leave the other worker
# idle at the end; started first, the short files fill in behind them and the workers finish together.
LONGEST_FILES = ("test_readme.py", "test_cluster.py", "test_languages.py", "test_proof.py", "test_proof_driver.py",
                 "test_checkpoint_upgrades.py", "test_search.py", "test_cuda.py", "test_server.py",
                 "test_alphabets.py", "test_rooms_restart.py", "test_solver.py", "test_cli_solve.py",
                 "test_rooms_browser.py")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml's addopts): one worker more than the cores this process may use. Many tests
    wait (on a server, a subprocess, a Dask cluster, Chromium) and leave their core idle meanwhile; the
    extra worker fills it (benchmarks/results/suite.md)."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (LONGEST_FILES), every other in the order it was collected."""
    rank = {name: place for place, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    """built(name, charset="26") -> directory of a build made once per run of the suite.

    Under pytest-xdist each worker is a session of its own, and a full list takes seconds to build:
    the builds go to the folder the run's workers share, and a lock per build makes the first worker
    that needs it build it while the others wait for it (build_lexicon switches a build in whole).
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder; each worker's own is a folder in it
    root = root / "built"
    root.mkdir(exist_ok=True)

    def get(name: str, charset: str = "26") -> Path:
        out = root / f"{name}-{charset}"
        with open(root / f"{out.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not out.exists():
                build_lexicon(word_list_path(name), parse_charset(charset), out)
        return out

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
