"""Shared fixtures: builds cached for the whole session, and small lexicons made per test.

The helpers the tests import (paths to ../shared, running the commands) are in support.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.charset import parse_charset

from support import word_list_path


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
