"""The batch drivers compiled ahead of time: the same scores as numba's drivers, a process that scores
batches without importing numba, and numba's drivers wherever there is none; and the same of the prover's kernels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from boggle_dawg.solver import aot, jit, user_cache
from boggle_dawg.solver.backends import cpu
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import compiled, entries, prove, prover, tree

from bruteforce import Reference
from support import REPO

WORDS = ["tea", "teas", "eat", "eats", "seat", "set", "sets", "test", "tests", "state", "taste", "east", "quest"]
FORMATS = ("trie", "dawg", "adtdawg")


def _boards(count: int, side: int = 4) -> list[str]:
    rng = np.random.default_rng(11)
    return ["".join(rng.choice(list("aestlq"), side * side)) for _ in range(count)]


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """A user cache of this test's own, and no driver loaded or built before it in this process."""
    monkeypatch.setenv("BOGGLE_DAWG_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(aot, "_loaded", {})
    return tmp_path / "cache"


@pytest.mark.parametrize("fmt", FORMATS)
def test_scores_as_numbas_drivers(make_lexicon, fmt, monkeypatch):
    lex = open_lexicon(make_lexicon(WORDS), fmt)
    batches = {side: _boards(600, side) for side in (3, 4, 5)}
    ahead = {(side, jobs): lex.score_many(texts, jobs=jobs).tolist() for side, texts in batches.items()
             for jobs in (1, 2)}
    monkeypatch.setattr(aot, "batch_driver", lambda walk, example: None)
    assert ahead == {(side, jobs): lex.score_many(texts, jobs=jobs).tolist() for side, texts in batches.items()
                     for jobs in (1, 2)}


@pytest.mark.slow
def test_a_batch_never_imports_numba(make_lexicon):
    """A fresh process scores its batches with the driver compiled ahead of time, on one thread or two."""
    directory = make_lexicon(WORDS)
    script = ("import sys, json\n"
              "from boggle_dawg.solver.lexicon import open_lexicon\n"
              f"lex = open_lexicon({str(directory)!r}, 'dawg')\n"
              f"scores = lex.score_many({_boards(300)!r}, jobs=int(sys.argv[1])).tolist()\n"
              "print(json.dumps([scores, 'numba' in sys.modules]))\n")

    def run(jobs: int) -> tuple[list[int], bool]:
        done = subprocess.run([sys.executable, "-c", script, str(jobs)], capture_output=True, text=True, check=True,
                              cwd=REPO)
        return tuple(json.loads(done.stdout))

    run(1)  # builds the driver if this user's cache has none yet (the build imports numba)
    (one_thread, numba_on_one), (two_threads, numba_on_two) = run(1), run(2)
    assert not numba_on_one and not numba_on_two
    assert one_thread == two_threads


def test_a_failed_build_leaves_numba_and_its_reason(make_lexicon, isolated_cache, monkeypatch):
    lex = open_lexicon(make_lexicon(WORDS), "trie")
    texts = _boards(200)
    reference = Reference(WORDS)
    expected = [reference.score(["qu" if c == "q" else c for c in text], 4, 4) for text in texts]

    def no_compiler(*args):
        raise OSError("no C compiler here")

    monkeypatch.setattr(aot, "_build", no_compiler)
    chosen = []
    choose = cpu._driver
    monkeypatch.setattr(cpu, "_driver", lambda walk, example: chosen.append(d := choose(walk, example)) or d)
    assert lex.score_many(texts, jobs=1).tolist() == expected
    assert chosen == [jit.batch_driver(lex.walk.board_kernel)]
    [reason] = isolated_cache.rglob("*.failed")
    assert reason.read_text() == "OSError: no C compiler here\n"
    monkeypatch.setattr(aot, "_loaded", {})
    monkeypatch.setattr(aot, "_build", lambda *args: pytest.fail("built again after a failed build"))
    assert lex.score_many(texts, jobs=2).tolist() == expected  # the reason is read, nothing is built again


def test_each_argument_type_has_its_own_driver():
    """The extension trusts the types it was built for: any difference must name another one."""
    writable = np.zeros(4, np.int64)
    readonly = writable.copy()
    readonly.flags.writeable = False
    keys = {aot.type_key(value) for value in (writable, readonly, writable.astype(np.uint32), np.zeros((2, 2)),
                                              np.zeros((2, 4))[:, ::2], 7, np.uint32(7))}
    assert len(keys) == 7 and None not in keys
    assert aot.type_key((writable, (readonly, 3))) == f"({aot.type_key(writable)},({aot.type_key(readonly)},i8))"
    assert aot.type_key("text") is None and aot.type_key((writable, 1.5)) is None and aot.type_key(True) is None


def test_no_driver_where_the_kernels_run_as_python(monkeypatch, make_lexicon):
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    lex = open_lexicon(make_lexicon(WORDS), "trie")
    assert aot.batch_driver(lex.walk.board_kernel, (np.zeros(1, np.int64),)) is None


@pytest.mark.slow
def test_a_build_leaves_one_extension_in_its_walks_directory(isolated_cache, make_lexicon):
    lex = open_lexicon(make_lexicon(WORDS), "adtdawg")
    lex.score_many(_boards(10), jobs=1)
    [built] = (isolated_cache / aot.CACHE_KIND).iterdir()
    assert built.name.startswith("boggle_dawg.solver.formats.adtdawg.")
    assert len(list(built.glob("*.so"))) + len(list(built.glob("*.pyd"))) == 1
    assert not list(built.glob(".*")), "a build's private directory was left behind"


PREFIX_WORDS = ["tea", "teas", "teaset", "teasets", "quest", "quests", "questset", "set", "sets", "settee"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_prefixes_compiled_ahead_of_time_give_what_the_python_descent_gives(make_lexicon, fmt):
    lex = open_lexicon(make_lexicon(PREFIX_WORDS), fmt)
    assert lex._compiled_word_ends is not None
    asked = [*PREFIX_WORDS, "teasetsx", "TeaSets", "teas-ets", "QUESTSETS", "questsetsx", "qestset", "tea\nset", "teaé", "é", "",
             "teas" * 16, "tea" + "s" * 70]  # 64 and 73 letters: beyond one compiled call, the Python descent
    for word in asked:
        folded = lex._folded(word)
        spelled = lex.charset.unfold(folded) if folded else ""
        expected = [lex.charset.unfold(folded[:end]) for end in lex._descents.word_ends(folded)] if folded else []
        assert lex.prefixes(word) == expected == [w for w in PREFIX_WORDS if spelled.startswith(w)], word


def test_prefixes_without_a_build_descend_in_python(make_lexicon, isolated_cache, monkeypatch):
    def no_compiler(*args):
        raise OSError("no C compiler here")

    monkeypatch.setattr(aot, "_build", no_compiler)
    lex = open_lexicon(make_lexicon(PREFIX_WORDS), "dawg")
    assert lex.prefixes("Questsets") == ["quest", "quests", "questset"]
    assert lex._compiled_word_ends is None
    [reason] = isolated_cache.rglob("*.failed")
    assert reason.read_text() == "OSError: no C compiler here\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_word_queries_load_their_compiled_code_without_numba(make_lexicon, fmt):
    """prefixes, the word listing (keys, iteration, the identity) and the batch lookup: compiled ahead of time."""
    directory = make_lexicon(PREFIX_WORDS)
    script = ("import sys, json\n"
              "from boggle_dawg.solver.lexicon import open_lexicon\n"
              f"lex = open_lexicon({str(directory)!r}, {fmt!r})\n"
              "print(json.dumps([lex.prefixes('teasets'), list(lex.keys('qu')), lex.contains_many(['tea', 'x']).tolist(),\n"
              "                  len(lex.identity), 'numba' in sys.modules]))\n")

    def run() -> list:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
        return json.loads(done.stdout)

    run()  # builds the functions if this user's cache has none yet (the build imports numba)
    assert run() == [["tea", "teas", "teaset", "teasets"], ["quest", "quests", "questset"], [True, False], 64, False]


@pytest.mark.slow
def test_a_proof_never_imports_numba(make_lexicon):
    """A fresh process proves with the prover's kernels compiled ahead of time, finding what numba's find."""
    directory = make_lexicon(WORDS)
    script = ("import sys, json\n"
              "from boggle_dawg.solver.lexicon import open_lexicon\n"
              "from boggle_dawg.solver.proof import prove\n"
              f"result = prove(open_lexicon({str(directory)!r}), (2, 3), 14)\n"
              "print(json.dumps([result.boards, result.nodes, 'numba' in sys.modules]))\n")

    def run() -> tuple[list, int, bool]:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
        return tuple(json.loads(done.stdout))

    run()  # builds the prover's module if this user's cache has none yet (the build imports numba)
    boards, nodes, numba_loaded = run()
    assert not numba_loaded
    with pytest.MonkeyPatch.context() as patch:  # the same proof on numba's compilations of the same kernels
        patch.setattr(compiled, "kernels", lambda: SimpleNamespace(**compiled._numba()))
        for module in (entries, prover, tree):
            patch.setattr(module, "kernels", compiled.kernels)
        expected = prove(open_lexicon(directory), (2, 3), 14)
    assert boards and [list(b) for b in expected.boards] == boards and expected.nodes == nodes


def test_the_prover_kernels_take_other_argument_types_through_numba():
    """The extension would crash on argument types it was not built for: those calls go to numba's."""
    tokens = np.array([[0, 65, -1], [0, 66, -1], [64, -1, -1]], np.int16)
    points = np.array([3, 5, 2], np.int64)
    bound = compiled.kernels().tree_bound(tokens, points, 1)
    assert bound == 1 + 2 + 5
    assert compiled.kernels().tree_bound(tokens.astype(np.int32), points, 1) == bound
    assert compiled.kernels().tree_bound(tokens, points.astype(np.int32), np.int64(1)) == bound


def test_two_versions_used_in_turn_keep_their_compiled_code(isolated_cache):
    """Each version of a walk's sources has its directory; the least recently used go when a new one
    is made, and KEPT_VERSIONS stay (two checkouts used in turn do not rebuild each other's away)."""
    current = user_cache.kernel_cache_dir("aot", _a_walk)
    name = current.name.rsplit("-", 1)[0]
    older = [current.parent / f"{name}-{n:016x}" for n in range(4)]
    for age, directory in enumerate(older):
        directory.mkdir(parents=True)
        os.utime(directory, (1000.0 * (age + 1), 1000.0 * (age + 1)))  # the last one the most recently used
    assert user_cache.kernel_cache_dir("aot", _a_walk) == current and not current.exists()
    kept = sorted(p.name for p in current.parent.iterdir())
    assert kept == sorted(d.name for d in older[-(user_cache.KEPT_VERSIONS - 1):])
    current.mkdir()
    os.utime(current, (1.0, 1.0))
    user_cache.kernel_cache_dir("aot", _a_walk)  # a use: its time is now
    assert current.stat().st_mtime > 1000.0 * len(older)


def _a_walk():
    """A stand-in for a format's walk: kernel_cache_dir reads its name and its module's source."""
