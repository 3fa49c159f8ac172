"""Open-time validation that matches the kernels, files changed under a running lexicon, and
what a build directory offers (which format opens, what info and verify check).

Hand-built files here are valid in every respect the readers checked before (sizes,
checksums, indices, numbering equations) and wrong in one the kernels depend on.
"""

from __future__ import annotations

import json
import os
import pty
import resource
import shutil
import subprocess
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from boggle_dawg.compiler.adtdawg import child_set_words
from boggle_dawg.compiler.verify import verify
from boggle_dawg.solver.charset import JPA14, Charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats.adtdawg import ADT_FILES, TRACKING_DTYPE
from boggle_dawg.solver.formats.base import MAX_WORD_IDS, Snapshot
from boggle_dawg.solver.formats.common import HEADER, LEGACY_VERSION, MANIFEST_FILE
from boggle_dawg.solver.formats.dawg import DAWG_FILE, DAWG_MAGIC
from boggle_dawg.solver.formats.trie import TRIE_FILE, TRIE_MAGIC
from boggle_dawg.solver.layout import NARROW, AdtLayout
from boggle_dawg.solver.lexicon import open_all, open_lexicon

from support import REPO, assert_clean_error, run_cli

WORDS = ["tea", "teas", "tease", "eat", "eats", "seat", "state", "quest", "aqua", "date", "dated", "sated"]
BOARD = "teasdatequstaeds"
ALL = Charset("abcdefghijklmnopqrstuvwxyz")


# --- hand-built files -------------------------------------------------------------------


def header_and_body(magic: bytes, charset: Charset, words: int, nodes: int, edges: int, body: bytes,
                    max_length: int = 15) -> bytes:
    head = HEADER.pack(magic=magic, version=LEGACY_VERSION, charset_size=len(charset), max_length=max_length,
                       charset=charset.letters.upper().encode(), words=words, nodes=nodes, edges=edges,
                       crc32=zlib.crc32(body))
    return head + body


def write_trie(directory: Path, first, mask, eow) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    body = NARROW.pack(np.array(first), np.array(mask), np.array(eow)).astype("<u8").tobytes()
    (directory / TRIE_FILE).write_bytes(header_and_body(TRIE_MAGIC, ALL, int(np.sum(eow)), len(first), 0, body))
    return directory


def write_dawg(directory: Path, states: list[tuple[int, list[int]]], eow: list[int], max_length: int = 15) -> Path:
    """states[s] = (letter mask, children in letter order); skips and counts follow from them."""
    directory.mkdir(parents=True, exist_ok=True)
    count = [0] * len(states)
    for s in reversed(range(len(states))):  # children come after parents here
        count[s] = eow[s] + sum(count[c] for c in states[s][1])
    first, edges = [], []
    for s, (_, children) in enumerate(states):
        first.append(len(edges) if children else 0)
        skip = eow[s]
        for c in children:
            edges.append(c | (skip << 32))
            skip += count[c]
    body = (NARROW.pack(np.array(first), np.array([m for m, _ in states]), np.array(eow)).astype("<u8").tobytes()
            + np.array(edges, "<u8").tobytes() + np.array(count, "<u4").tobytes())
    (directory / DAWG_FILE).write_bytes(header_and_body(DAWG_MAGIC, ALL, count[0], len(states), len(edges), body,
                                                        max_length))
    return directory


def write_adtdawg(directory: Path, nodes: list[tuple[int, int, int, int]], child_sets: list[int]) -> Path:
    """Reference-layout (JPA14) part files, no manifest. nodes[i] = node i + 1 as (end of word,
    first child, child-set index, tracking number); child_sets are letter masks."""
    directory.mkdir(parents=True, exist_ok=True)
    lay = AdtLayout()
    eow, first, child_set, tracking = (np.array(col, np.uint64) for col in zip(*nodes))
    words = (first | (child_set << np.uint64(lay.first_child_bits)) | (eow << np.uint64(lay.eow_shift)))
    wide = np.flatnonzero(tracking > 255)
    k = int(wide[-1]) + 1 if len(wide) else 0
    parts = [np.uint32(len(nodes)).tobytes() + words.astype("<u4").tobytes(),
             np.uint64(len(child_sets)).tobytes() + child_set_words(child_sets, lay.letters).astype("<u8").tobytes(),
             np.uint32(k).tobytes() + tracking[:k].astype("<u4").tobytes(),
             tracking[k:].astype(np.uint8).tobytes()]
    for name, data in zip(ADT_FILES, parts):
        (directory / name).write_bytes(data)
    return directory


def layered_adtdawg(directory: Path, layers: int, live_starts: int) -> tuple[Path, int]:
    """Every string of 1..layers+1 JPA14 letters whose first letter is one of the first
    `live_starts`: a block of all 14 letters per layer, every node a word. Returns the word count."""
    letters = len(JPA14)
    per_node = [1]
    for _ in range(layers):
        per_node.insert(0, 1 + letters * per_node[0])
    nodes = [(1, 1 + letters, 1, (live_starts - i) * per_node[0]) if i < live_starts else (0, 0, 0, 0)
             for i in range(letters)]
    for layer in range(1, layers + 1):
        below = layer < layers
        for slot in range(letters):
            nodes.append((1, 1 + letters * (layer + 1) if below else 0, 1 if below else 0,
                          (letters - slot) * per_node[layer]))
    write_adtdawg(directory, nodes, [0, (1 << letters) - 1])
    return directory, live_starts * per_node[0]


def dead_start_block(*live: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
    return list(live) + [(0, 0, 0, 0)] * (len(JPA14) - len(live))


# --- validation in the kernels' types -----------------------------------------------


def test_hand_built_adtdawg_reads_as_built(tmp_path):
    directory, count = layered_adtdawg(tmp_path / "small", layers=2, live_starts=2)
    lex = open_lexicon(directory)
    assert lex.format == "adtdawg" and lex.word_count == count == 2 * (1 + 14 * (1 + 14))
    words = [w for w, _ in lex.numbered_words()]
    assert words[:3] == ["a", "aa", "aaa"] and len(words) == count and words == sorted(words)
    assert lex.score("cat/.../.../...") == lex.score_many(["cat/.../.../..."])[0] > 0


def test_word_numbers_beyond_the_walks_int32_are_refused(tmp_path):
    directory, count = layered_adtdawg(tmp_path / "big", layers=8, live_starts=2)
    assert np.iinfo(TRACKING_DTYPE).max < count < 2**32  # fits part 3's uint32, not the walk's int32
    with pytest.raises(DawgError, match=r"adtdawg-3\.dat: tracking number above 2147483647"):
        open_lexicon(directory)
    # one live letter less: every number fits the walk's int32, but there are more word numbers
    # than the solver keeps stamps for (4 bytes each per thread): refused at open, not at scoring
    directory, count = layered_adtdawg(tmp_path / "fits", layers=8, live_starts=1)
    assert MAX_WORD_IDS < count <= np.iinfo(TRACKING_DTYPE).max
    with pytest.raises(DawgError, match=f"{count + 1} word numbers, more than the {MAX_WORD_IDS}"):
        open_lexicon(directory)


# --- termination: no cycles, no node that leads to no word ---------------------------------


def test_cyclic_adtdawg_is_refused(tmp_path):
    # 'a' -> node 15, whose only child (letter a) is node 15 itself; every tracking equation holds
    directory = write_adtdawg(tmp_path / "cycle", dead_start_block((0, 15, 1, 1)) + [(0, 15, 1, 1)], [0, 1])
    assert sum(f.stat().st_size for f in directory.iterdir()) < 150
    with pytest.raises(DawgError, match=r"adtdawg-1\.dat: nodes form a cycle"):
        open_lexicon(directory)
    proc = run_cli("boggle_dawg.dawg_solve", str(directory), "aaaaaaaaaaaaaaaaaaaaaaaaa", timeout=60)
    assert_clean_error(proc, "nodes form a cycle")


def test_longer_adtdawg_cycle_is_refused(tmp_path):
    # a -> 15 -(c)-> 16 -(a)-> 15: non-words whose tracking numbers all equal 1
    nodes = dead_start_block((0, 15, 1, 1)) + [(0, 16, 2, 1), (0, 15, 1, 1)]
    with pytest.raises(DawgError, match="nodes form a cycle"):
        open_lexicon(write_adtdawg(tmp_path / "cycle2", nodes, [0, 1, 2]))


def test_adtdawg_child_leading_to_no_word_is_refused(tmp_path):
    # 'a' is a word with one child (c) that is no word and has no children
    nodes = dead_start_block((1, 15, 1, 1)) + [(0, 0, 0, 0)]
    with pytest.raises(DawgError, match="child node that leads to no word"):
        open_lexicon(write_adtdawg(tmp_path / "dead", nodes, [0, 2]))


def test_dawg_without_words_is_refused(tmp_path):
    # 18 states, 26 edges each to the next: 26^17 paths and not one word (about 3.6 KB)
    depth = 17
    states = [((1 << 26) - 1, [s + 1] * 26) for s in range(depth)] + [(0, [])]
    directory = write_dawg(tmp_path / "empty", states, [0] * (depth + 1))
    assert (directory / DAWG_FILE).stat().st_size < 4096
    with pytest.raises(DawgError, match="dawg.bin: holds no words"):
        open_lexicon(directory)


def test_dawg_state_leading_to_no_word_is_refused(tmp_path):
    # one word ("a"), and under 'b' the same wordless ladder
    depth = 17
    ladder = [((1 << 26) - 1, [s + 1] * 26) for s in range(2, depth + 2)] + [(0, [])]
    states = [(0b11, [1, 2]), (0, [])] + ladder
    directory = write_dawg(tmp_path / "dead", states, [0, 1] + [0] * len(ladder))
    with pytest.raises(DawgError, match="DAWG state that leads to no word"):
        open_lexicon(directory)


def test_trie_that_shares_children_is_refused(tmp_path):
    # nodes 1..26 all point at the same 26 children: a DAG in trie clothing, 26^3 paths
    full = (1 << 26) - 1
    first = [1] + [27] * 26 + [0] * 26
    mask = [full] + [full] * 26 + [0] * 26
    eow = [0] * 27 + [1] * 26
    with pytest.raises(DawgError, match="trie node without exactly one parent"):
        open_lexicon(write_trie(tmp_path / "dag", first, mask, eow))


def test_trie_leaf_that_ends_no_word_is_refused(tmp_path):
    # root -> a (word) and b (no word, no children)
    with pytest.raises(DawgError, match="trie leaf that ends no word"):
        open_lexicon(write_trie(tmp_path / "leaf", [1, 0, 0], [0b11, 0, 0], [0, 1, 0]))


def test_valid_hand_built_trie_and_dawg_open(tmp_path):
    trie = open_lexicon(write_trie(tmp_path / "t", [1, 0, 0], [0b11, 0, 0], [0, 1, 1]))
    dawg = open_lexicon(write_dawg(tmp_path / "d", [(0b11, [1, 1]), (0, [])], [0, 1]))
    assert trie.word_list() == dawg.word_list() == ["a", "b"]


# --- files changed under a running lexicon ----------------------------------------------------


def overwrite_body(path: Path, offset: int = HEADER.size) -> None:
    """Zero a file's bytes after `offset` in place (same inode, same size)."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(bytes(path.stat().st_size - offset))


@pytest.mark.parametrize("fmt", ["trie", "dawg", "adtdawg"])
def test_writable_file_changed_in_place_does_not_change_scores(make_lexicon, fmt):
    directory = make_lexicon(WORDS)
    names = [TRIE_FILE] if fmt == "trie" else [DAWG_FILE] if fmt == "dawg" else list(ADT_FILES)
    for name in names:  # builds are read-only; a user may make their files writable
        (directory / name).chmod(0o644)
    lex = open_lexicon(directory, fmt)
    expected = lex.score_many([BOARD]).tolist()
    assert expected[0] > 0
    for name in names:
        overwrite_body(directory / name, HEADER.size if fmt != "adtdawg" else 4)
    assert lex.score_many([BOARD]).tolist() == expected  # a private copy: unaffected
    assert lex.score(BOARD) == expected[0]
    lex.check_unchanged()


def read_only(directory: Path) -> Path:
    for path in directory.iterdir():
        path.chmod(0o444)
    return directory


@pytest.mark.parametrize("fmt", ["trie", "dawg", "adtdawg"])
def test_read_only_mapped_file_changed_in_place_fails_loudly(make_lexicon, fmt):
    directory = read_only(make_lexicon(WORDS))
    lex = open_lexicon(directory, fmt)
    assert lex.score_many([BOARD]).tolist()[0] > 0
    time.sleep(0.05)  # past the file system's timestamp granularity
    name = {"trie": TRIE_FILE, "dawg": DAWG_FILE, "adtdawg": ADT_FILES[3]}[fmt]
    (directory / name).chmod(0o644)
    overwrite_body(directory / name, len((directory / name).read_bytes()) - 1)
    (directory / name).chmod(0o444)
    with pytest.raises(DawgError, match=f"{name}: changed on disk while in use"):
        lex.score_many([BOARD])
    with pytest.raises(DawgError, match="changed on disk"):
        lex.check_unchanged()


def test_read_only_file_replaced_by_rename_keeps_its_snapshot(make_lexicon):
    directory = read_only(make_lexicon(WORDS))
    other = make_lexicon(["zzz", "zzzz"])
    lex = open_lexicon(directory)
    expected = lex.score_many([BOARD]).tolist()
    time.sleep(0.05)
    os.replace(other / TRIE_FILE, directory / TRIE_FILE)  # what an atomic rebuild does
    assert lex.score_many([BOARD]).tolist() == expected
    lex.check_unchanged()


def test_build_swapped_while_opening_gives_one_snapshot(make_lexicon, tmp_path, monkeypatch):
    """`current` is a link to a build; it is switched to another build after the manifest is
    read and before the trie is: the lexicon opened is still wholly the first build."""
    first, second = make_lexicon(WORDS), make_lexicon(["zzz", "zzzz", "zzzzz"])
    current = tmp_path / "current"
    current.symlink_to(first)
    read = Snapshot.read

    def swap_after_manifest(self, name, what="lexicon file"):
        data = read(self, name, what)
        if name == MANIFEST_FILE:
            swapped = tmp_path / "swapped"
            swapped.symlink_to(second)
            os.replace(swapped, current)
        return data

    monkeypatch.setattr(Snapshot, "read", swap_after_manifest)
    lex = open_lexicon(current)
    assert lex.word_list() == sorted(WORDS)


# --- huge word counts from small files ---------------------------------------------------------


def all_strings_dawg(directory: Path, longest: int) -> tuple[Path, int]:
    """Every string of 3..`longest` letters over {a, b}: a chain of `longest` + 1 states (under 1 KB)."""
    states = [(0b11, [s + 1, s + 1]) for s in range(longest)] + [(0, [])]
    write_dawg(directory, states, [0, 0, 0] + [1] * (longest - 2), max_length=longest)
    return directory, 2 ** (longest + 1) - 8


def limit_memory(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


def test_words_of_a_huge_lexicon_stream_in_bounded_memory(tmp_path):
    directory, count = all_strings_dawg(tmp_path / "huge", 27)
    assert count > 2.6e8 and (directory / DAWG_FILE).stat().st_size < 1024
    reader = subprocess.Popen([sys.executable, "-m", "boggle_dawg.dawgc_cli", "words", str(directory), "--numbers"],
                              cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              preexec_fn=limit_memory(600 << 20), env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    first = [reader.stdout.readline() for _ in range(4)]
    reader.stdout.close()  # as `| head -4` does
    try:
        status = reader.wait(timeout=30)
    except subprocess.TimeoutExpired:
        reader.kill()
        pytest.fail("dawgc words still running 30 s after its reader closed the pipe")
    assert first == [b"aaa\t0\n", b"aaaa\t1\n", b"aaaaa\t2\n", b"aaaaaa\t3\n"]
    assert status == 141 and reader.stderr.read() == b""


def test_verify_holds_no_word_list_in_memory(tmp_path):
    directory, count = all_strings_dawg(tmp_path / "big", 16)
    tracemalloc.start()
    try:
        result = verify(directory)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.ok and f"{count} words" in result.checks[0]
    assert peak < 4 << 20, peak  # the words alone would take over 10 MB


# --- what a build directory offers ---------------------------------------------------------


def test_directory_without_manifest_opens_the_trie_first(make_lexicon):
    directory = make_lexicon(WORDS, "14")  # without a manifest, an ADTDAWG is read as JPA14
    (directory / MANIFEST_FILE).unlink()
    assert open_lexicon(directory).format == "trie"
    (directory / TRIE_FILE).unlink()
    assert open_lexicon(directory).format == "dawg"
    (directory / DAWG_FILE).unlink()
    assert open_lexicon(directory).format == "adtdawg"
    with pytest.raises(DawgError, match="no trie lexicon here"):
        open_lexicon(directory, "trie")


def test_adtdawg_without_manifest_knows_its_longest_word(make_lexicon):
    long_word = "acdegilmnoprstacdegilmn"  # 23 letters, all of JPA14
    directory = make_lexicon(WORDS + [long_word], "14")
    for name in (MANIFEST_FILE, TRIE_FILE, DAWG_FILE):
        (directory / name).unlink()
    lex = open_lexicon(directory)
    assert lex.format == "adtdawg" and lex.max_length == 23 and long_word in lex.word_list()
    assert verify(directory).ok
    info = run_cli("boggle_dawg.dawgc_cli", "info", str(directory), "--json")
    assert json.loads(info.stdout)["formats"]["adtdawg"]["max_length"] == 23, info.stderr
    words = run_cli("boggle_dawg.dawgc_cli", "words", str(directory))
    assert words.returncode == 0 and long_word in words.stdout.split(), words.stderr


def corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("name", [TRIE_FILE, DAWG_FILE])
@pytest.mark.parametrize("command", ["info", "verify"])
def test_info_and_verify_check_every_file_of_a_directory_without_manifest(make_lexicon, name, command):
    directory = make_lexicon(WORDS, "14")
    (directory / MANIFEST_FILE).unlink()
    corrupt(directory / name)
    assert_clean_error(run_cli("boggle_dawg.dawgc_cli", command, str(directory)), f"{directory / name}: checksum mismatch")


def test_info_and_verify_list_every_format_of_a_directory_without_manifest(make_lexicon):
    directory = make_lexicon(WORDS, "14")
    (directory / MANIFEST_FILE).unlink()
    manifest, lexicons = open_all(directory)
    assert manifest is None and [lex.format for lex in lexicons] == ["trie", "dawg", "adtdawg"]
    result = verify(directory)
    assert result.ok and "trie, dawg, adtdawg hold the same" in result.checks[-1]


def test_info_on_the_manifest_prints_what_the_directory_does(make_lexicon):
    directory = make_lexicon(WORDS)
    on_dir = run_cli("boggle_dawg.dawgc_cli", "info", str(directory))
    on_manifest = run_cli("boggle_dawg.dawgc_cli", "info", str(directory / MANIFEST_FILE))
    assert on_dir.returncode == on_manifest.returncode == 0
    assert on_manifest.stdout.replace(str(directory / MANIFEST_FILE), str(directory)) == on_dir.stdout
    assert [line.split()[0] for line in on_dir.stdout.splitlines()[2:]] == ["trie", "dawg", "adtdawg"]


# --- verify's progress ------------------------------------------------------------------------


def test_verify_reports_progress_to_the_end(make_lexicon, tmp_path):
    words = [a + b + c for a in "abcdefghij" for b in "aeiou" for c in "abcdefghijklmnopqrstuvwxyz"] * 2
    directory = make_lexicon(words)
    source = tmp_path / "list1.txt"
    calls = []
    result = verify(directory, source, lambda what, done, total: calls.append((what, done, total)))
    assert result.ok
    total = calls[-1][2]
    assert total == 4 * open_lexicon(directory).word_count and calls[-1][1] == total
    assert [done for _, done, _ in calls] == sorted(done for _, done, _ in calls)
    assert {what for what, _, _ in calls} >= {"enumerating the trie", "enumerating the dawg",
                                              "enumerating the adtdawg", "reading list1.txt"}


def test_verify_on_a_terminal_prints_every_check_to_stdout(make_lexicon, tmp_path):
    """stderr a terminal (progress shown there), stdout a pipe: stdout holds every check."""
    directory = make_lexicon(WORDS)
    expected = run_cli("boggle_dawg.dawgc_cli", "verify", str(directory)).stdout
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "boggle_dawg.dawgc_cli", "verify", str(directory)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=slave, text=True, timeout=120, check=False)
        os.close(slave)
        slave = -1
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    assert proc.stdout == expected and expected.count("\n") == 6
    assert b"Traceback" not in shown


def test_cli_refuses_cyclic_file_given_directly(tmp_path):
    directory = write_adtdawg(tmp_path / "cycle", dead_start_block((0, 15, 1, 1)) + [(0, 15, 1, 1)], [0, 1])
    for command in ("info", "verify"):
        assert_clean_error(run_cli("boggle_dawg.dawgc_cli", command, str(directory / ADT_FILES[0])), "nodes form a cycle")
    shutil.rmtree(directory)
