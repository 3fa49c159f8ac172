"""Atomic builds: SIGKILL at every step and at random moments, concurrent builds, the lock,
stale temporaries, read-only files, and outputs that must not be replaced."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from test_build import language_text

import boggle_dawg.compiler.build
import boggle_dawg.compiler.write
from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.solver.charset import parse_charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.formats.base import Snapshot
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.language import ENGLISH
from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, assert_clean_error, run_cli

FIRST = ["cat", "cats", "dog", "dogs", "quit", "zebra", "tea", "teas"]
SECOND = ["ant", "ants", "bee", "bees", "cow", "quest", "net", "nets", "stent"]
RANDOM_KILLS = 70
CONCURRENT_ROUNDS = 12


@pytest.fixture(scope="module")
def trials(tmp_path_factory):
    """The worker's report: one dict per trial (see build_kill_worker.py)."""
    work = tmp_path_factory.mktemp("kills")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, str(REPO / "tests" / "build_kill_worker.py"), str(work), "13",
                           str(RANDOM_KILLS), str(CONCURRENT_ROUNDS)],
                          check=False, capture_output=True, text=True, timeout=300, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert not [row for row in rows if "child_error" in row], rows
    return rows


def of_kind(rows, kind):
    return [row for row in rows if row["kind"] == kind]


@pytest.mark.slow
def test_a_killed_build_leaves_exactly_the_old_or_the_new_lexicon(trials):
    steps = of_kind(trials, "count")[0]["steps"]
    killed = of_kind(trials, "step") + of_kind(trials, "random")
    assert len(killed) >= 100 and [row["kill_at"] for row in of_kind(trials, "step")] == list(range(1, steps + 1))
    wrong = [row for row in killed if row["holds"] not in ("A", "B")]
    assert not wrong, wrong[:3]
    signalled = [row["holds"] for row in killed if row["status"] == "signal 9"]
    assert "A" in signalled and "B" in signalled  # kills landed both before and after the switch


@pytest.mark.slow
def test_a_later_build_removes_what_killed_builds_left(trials):
    killed = of_kind(trials, "step") + of_kind(trials, "random")
    assert any(row["left"] for row in killed)  # kills did leave temporaries behind ...
    dirty = [row for row in killed if row["after_reset"] or row["reset_holds"] != "A"]
    assert not dirty, dirty[:3]  # ... and the next build removed every one


@pytest.mark.slow
def test_concurrent_builds_serialise_and_one_wins_whole(trials):
    rounds = of_kind(trials, "concurrent")
    assert len(rounds) == CONCURRENT_ROUNDS
    bad = [row for row in rounds if row["statuses"] != ["exit 0"] * 4 or row["holds"] not in ("B", "C")
           or row["left"]]
    assert not bad, bad[:3]


def holds(out, words) -> bool:
    return all(open_lexicon(out, fmt).word_list() == sorted(words) for fmt in FORMATS)


def write_list(tmp_path, name, words):
    path = tmp_path / name
    path.write_text("\n".join(words) + "\n")
    return path


def test_two_cli_builds_into_one_output(tmp_path):
    sources = [write_list(tmp_path, "first.txt", FIRST), write_list(tmp_path, "second.txt", SECOND)]
    out = tmp_path / "parent" / "out"
    procs = [subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", str(source), "--out", str(out), "-q"],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for source in sources]
    results = [proc.communicate(timeout=120) + (proc.returncode,) for proc in procs]
    assert [code for _, _, code in results] == [0, 0], results
    assert holds(out, FIRST) or holds(out, SECOND)
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_build_files_are_read_only(make_lexicon):
    out = make_lexicon(FIRST)
    assert {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()} == \
        {p.name: 0o444 & ~current_umask() for p in out.iterdir()}


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("kind", ["file", "foreign directory"])
def test_an_output_that_is_not_a_build_is_refused_before_any_work(tmp_path, kind):
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("my thesis\n")
        fragment = "exists and is not a directory"
    else:
        out.mkdir()
        (out / "notes.txt").write_text("mine\n")
        (out / MANIFEST_FILE).write_bytes(b"")
        fragment = "holds 'notes.txt', which is not part of a lexicon build"
    before = sorted(tmp_path.rglob("*"))
    kept = (out if kind == "file" else out / "notes.txt").read_text()
    with pytest.raises(DawgError, match=fragment):
        build_lexicon(tmp_path / "missing.txt", parse_charset("26"), out)  # refused before reading the list
    assert sorted(tmp_path.rglob("*")) == before
    assert (out if kind == "file" else out / "notes.txt").read_text() == kept


def test_an_empty_directory_or_a_symlink_to_a_build_is_replaced(tmp_path):
    source = write_list(tmp_path, "first.txt", FIRST)
    empty = tmp_path / "empty"
    empty.mkdir()
    build_lexicon(source, parse_charset("26"), empty)
    assert holds(empty, FIRST)
    link = tmp_path / "link"
    link.symlink_to(empty)
    build_lexicon(write_list(tmp_path, "second.txt", SECOND), parse_charset("26"), link)
    assert link.is_symlink() and holds(empty, SECOND)


def test_stale_temporaries_are_removed_and_others_kept(tmp_path):
    source = write_list(tmp_path, "first.txt", FIRST)
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    for name in (".out.new-99999999-0123dead", ".out.old-99999999-4567beef", ".other.new-1-00000000",
                 ".out.new-1-keep"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "trie.bin").write_bytes(b"x" * 1000)
    (tmp_path / ".out.new-2-89abcdef").mkdir()  # killed before it wrote a file
    build_lexicon(source, parse_charset("26"), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.new-1-00000000", ".out.new-1-keep", "first.txt", "out"]
    assert holds(out, FIRST)


@pytest.mark.parametrize("sabotage, fragment", [
    ("tool", "field tool"),  # the manifest's schema refuses it
    ("language", "field title"),  # the schema takes it, the language's own check does not
])
def test_a_build_the_reader_refuses_is_not_switched_in(tmp_path, monkeypatch, sabotage, fragment):
    source = write_list(tmp_path, "first.txt", FIRST)
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    before = tree(tmp_path)
    if sabotage == "tool":
        monkeypatch.setattr(boggle_dawg.compiler.build, "__version__", "two\nlines")
    else:
        section = {**ENGLISH.manifest_section(), "name": "en2", "title": " "}
        monkeypatch.setattr(boggle_dawg.compiler.build, "manifest_fields", lambda charset, language, rules: {"language": section})
    with pytest.raises(DawgError) as err:
        build_lexicon(write_list(tmp_path, "second.txt", SECOND), parse_charset("26"), out)
    message = str(err.value)
    assert message.startswith(f"{out}: ") and fragment in message and "\n" not in message
    assert ".out.new" not in message  # the temporary directory is gone: not named
    (tmp_path / "second.txt").unlink()
    assert tree(tmp_path) == before and holds(out, FIRST)


@pytest.mark.parametrize("letters, tiles, folds, title, field", [
    ("aqu", '[["qu", "qu"]]', "[]", "X", "field tiles"),  # a tile of two letters: 'qu' in "aqu"
    ("ab", '[["a", "a' + "b" * 31 + '"]]', "[]", "X", "field tiles"),  # its drop reason: 41 characters
    ("ab", "[]", "[]", "X" * 201, "field title"),
    ("ab", "[]", "[" + ", ".join(['["z", "b"]'] * 1001) + "]", "X", "field folds"),
], ids=["two-letter-tile", "long-face", "long-title", "1001-folds"])
def test_a_language_the_reader_would_refuse_keeps_the_old_build(tmp_path, letters, tiles, folds, title, field):
    out = tmp_path / "out"
    build_lexicon(write_list(tmp_path, "first.txt", FIRST), parse_charset("26"), out)
    before = tree(out)
    language = tmp_path / "lang.toml"
    language.write_text(language_text(letters, tiles, folds, title))
    source = write_list(tmp_path, "second.txt", ["aaa", "aaaa"])
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", str(language), "--out", str(out))
    assert_clean_error(proc, str(language), field)
    assert tree(out) == before and holds(out, FIRST)


def tree(root) -> dict:
    """Every path under `root` with its kind and contents, to show that nothing changed."""
    return {str(p.relative_to(root)): "link" if p.is_symlink() else p.read_bytes() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}


def test_cli_build_refuses_directories_named_like_its_files(tmp_path):
    """The issue's case: a directory named like a build file and one named like a leftover temporary."""
    source = write_list(tmp_path, "small.txt", FIRST)
    out = tmp_path / "out"
    (out / "trie.bin").mkdir(parents=True)
    (out / "trie.bin" / "notes.txt").write_text("notes\n")
    (out / ".trie.bin.tmp-1").mkdir()
    (out / ".trie.bin.tmp-1" / "data.txt").write_text("data\n")
    before = tree(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "build", str(source), "--out", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "'.trie.bin.tmp-1'" in proc.stderr, proc.stderr
    assert tree(tmp_path) == before


@pytest.mark.parametrize("entry", ["directory dawg.bin", "symlink manifest", "old-style temporary",
                                   "fifo adtdawg part"])
def test_an_entry_of_the_wrong_kind_is_refused_untouched(tmp_path, entry):
    source = write_list(tmp_path, "first.txt", FIRST)
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    mine = tmp_path / "mine.txt"
    mine.write_text("mine\n")
    if entry == "directory dawg.bin":
        name = "dawg.bin"
        os.chmod(out / name, 0o644)
        os.unlink(out / name)
        (out / name).mkdir()
        (out / name / "notes.txt").write_text("notes\n")
    elif entry == "symlink manifest":
        name = MANIFEST_FILE
        os.unlink(out / name)
        (out / name).symlink_to(mine)
    elif entry == "old-style temporary":  # a user file that only looks like what old versions left
        name = ".trie.bin.tmp-4242"
        (out / name).write_text("my notes\n")
    else:
        name = "adtdawg-2.dat"
        os.unlink(out / name)
        os.mkfifo(out / name)
    before = tree(tmp_path)
    with pytest.raises(DawgError, match=f"holds {name!r}, which is not"):
        build_lexicon(source, parse_charset("26"), out)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("leftover", [".out.new-77-0123abcd", ".out.old-77-0123abcd", ".out.lock"])
@pytest.mark.parametrize("kind", ["user directory", "user file"])
def test_a_user_entry_named_like_a_leftover_is_refused_untouched(tmp_path, leftover, kind):
    source = write_list(tmp_path, "first.txt", FIRST)
    out = tmp_path / "out"
    build_lexicon(source, parse_charset("26"), out)
    if kind == "user directory":
        (tmp_path / leftover).mkdir()
        (tmp_path / leftover / "thesis.txt").write_text("chapter 1\n")
    else:
        (tmp_path / leftover).write_text("chapter 1\n")
    before = tree(tmp_path)
    with pytest.raises(DawgError, match=f"{leftover}: .*not a leftover of a build"):
        build_lexicon(source, parse_charset("26"), out)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("fmt, swap_after", [("trie", MANIFEST_FILE), ("dawg", MANIFEST_FILE),
                                             ("adtdawg", "adtdawg-2.dat")])
def test_a_reader_opening_during_a_rebuild_gets_one_whole_build(tmp_path, monkeypatch, fmt, swap_after):
    """A rebuild switches in and deletes the old directory between two files a reader opens."""
    out = tmp_path / "out"
    build_lexicon(write_list(tmp_path, "first.txt", FIRST), parse_charset("26"), out)
    second = write_list(tmp_path, "second.txt", SECOND)
    read = Snapshot.read
    rebuilt = []

    def rebuild_after(self, name, what="lexicon file"):
        data = read(self, name, what)
        if name == swap_after and not rebuilt:
            rebuilt.append(second)  # first: the rebuild opens its new files too, through this read
            build_lexicon(second, parse_charset("26"), out)
        return data

    monkeypatch.setattr(Snapshot, "read", rebuild_after)
    lex = open_lexicon(out, fmt)
    assert rebuilt and lex.word_list() == sorted(SECOND)


def test_a_build_waits_for_the_lock(tmp_path):
    out = tmp_path / "out"
    build_lexicon(write_list(tmp_path, "first.txt", FIRST), parse_charset("26"), out)
    second = write_list(tmp_path, "second.txt", SECOND)
    errors = []
    with open(tmp_path / ".out.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        builder = threading.Thread(target=lambda: errors.append(build_lexicon(second, parse_charset("26"), out)))
        builder.start()
        time.sleep(1.0)
        assert builder.is_alive() and holds(out, FIRST)
        fcntl.flock(lock, fcntl.LOCK_UN)
    builder.join(30)
    assert not builder.is_alive() and holds(out, SECOND)


def test_without_directory_exchange_the_fallback_switches_whole(tmp_path, monkeypatch):
    def unsupported(*args):
        ctypes.set_errno(errno.EINVAL)  # as from a filesystem without RENAME_EXCHANGE
        return -1

    monkeypatch.setattr(boggle_dawg.compiler.write, "_libc_renameat2", lambda: unsupported)
    out = tmp_path / "out"
    build_lexicon(write_list(tmp_path, "first.txt", FIRST), parse_charset("26"), out)
    build_lexicon(write_list(tmp_path, "second.txt", SECOND), parse_charset("26"), out)
    assert holds(out, SECOND)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.txt", "out", "second.txt"]


@pytest.mark.skipif(getattr(boggle_dawg.compiler.write, "_libc_renameat2", lambda: None)() is None,
                    reason="no renameat2 in this C library")
def test_exchange_swaps_two_directories(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x").write_text("from a")
    assert boggle_dawg.compiler.write._exchange(a, b)
    assert (b / "x").read_text() == "from a" and not (a / "x").exists()
