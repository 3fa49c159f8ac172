"""The format registries: a fourth format added here, in the test alone, is built, verified,
listed, opened and scored.

The toy format is a sorted word list searched by bisection: a file of words,
one per line after a header line naming the charset. Everything it needs lives
in this module: on the reader side its Lexicon subclass, its walk, its manifest
section and numbering, its registry entry; on the writer side its writer and
summary line, and its entry in the compiler's registry. The tests register it,
build it beside the other formats, verify and list the build, score boards with
both engines and check them against the independent brute-force scorer.
Nothing outside this file knows it exists.
"""

from __future__ import annotations

import random
from functools import cached_property
from pathlib import Path

import msgpack
import numpy as np
import pytest
from typer.testing import CliRunner

from boggle_dawg.compiler import writers
from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.format_writer import BuildWords, Writer, Written, file_entry
from boggle_dawg.compiler.verify import verify
from boggle_dawg.dawgc_cli import app
from boggle_dawg.solver import formats
from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.board_walk import Walk
from boggle_dawg.solver.charset import Charset, parse_charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import Format
from boggle_dawg.solver.formats.base import Lexicon, ManifestEntry, Snapshot, verify_sha256
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.lexicon import open_lexicon, read_manifest
from boggle_dawg.solver.schema import FILE_ENTRY, fields, integer
from boggle_dawg.solver.walk_kernels import DONE, FRAME, NO_LETTER, RUNNING, WORD_END, lowest_bit, neighbours_with, record

from bruteforce import Reference

SORTED_FILE = "words.sorted"
WORDS = ["tea", "teas", "tease", "eat", "eats", "seat", "sat", "set", "sets", "test", "state", "taste", "east",
         "quest", "quests", "squat", "equate", "thee", "these", "sheet", "theta", "hate", "heat", "haste"]


def sorted_board(keys, key_width, count, board, cell_len, nbr_mask, near, card, stack, stamps, stamp,
                 found, capacity, width, found_count):
    """Score one board on a sorted word array: the words sharing the current path's letters
    are a range [lo, hi) of the array, narrowed by bisection at each step; a word's id is its
    index."""
    score = 0
    cells = len(board)
    cell = -1
    lo = 0
    hi = count
    depth = 0  # letters of the path, as symbols (Qu = one)
    length = 0  # letters of the path, as scored (Qu = two)
    used = 0
    sp = 0
    todo = neighbours_with(near, cells, nbr_mask[cells], 0)
    while True:
        if todo:
            nb = lowest_bit(todo)
            todo &= todo - 1
            code = board[nb]
            new_lo = lo
            new_hi = hi
            d = depth
            steps = 2 if code > NO_LETTER else 1
            for step in range(steps):
                letter = (code & NO_LETTER) if step == 0 else (code >> 6) - 1
                if d == key_width:
                    new_lo = new_hi
                    break
                a = new_lo  # first index whose letter at d is >= letter
                b = new_hi
                while a < b:
                    m = (a + b) // 2
                    if keys[m * key_width + d] < letter:
                        a = m + 1
                    else:
                        b = m
                first = a
                b = new_hi  # first index whose letter at d is > letter
                while a < b:
                    m = (a + b) // 2
                    if keys[m * key_width + d] <= letter:
                        a = m + 1
                    else:
                        b = m
                new_lo = first
                new_hi = a
                d += 1
            if new_lo >= new_hi:
                continue
            child_length = length + cell_len[nb]
            if (d == key_width or keys[new_lo * key_width + d] < 0) and stamps[new_lo] != stamp:
                stamps[new_lo] = stamp
                score += card[child_length]
                if capacity:
                    record(found, capacity, width, found_count, stack, sp, cell, nb, new_lo, child_length)
            if d < key_width and keys[(new_hi - 1) * key_width + d] >= 0:
                top = sp * FRAME
                stack[top] = cell
                stack[top + 1] = todo
                stack[top + 2] = lo
                stack[top + 3] = hi
                stack[top + 4] = length
                stack[top + 5] = depth
                sp += 1
                cell = nb
                used |= 1 << nb
                todo = neighbours_with(near, nb, nbr_mask[nb], used)
                lo = new_lo
                hi = new_hi
                depth = d
                length = child_length
        elif sp:
            used ^= 1 << cell
            sp -= 1
            top = sp * FRAME
            cell = stack[top]
            todo = stack[top + 1]
            lo = stack[top + 2]
            hi = stack[top + 3]
            length = stack[top + 4]
            depth = stack[top + 5]
        else:
            return score


def sorted_numbers(keys, key_width, count, codes, starts, ends, numbers):
    """Each word's row (codes[starts[i]:ends[i]]), found by bisection, or -1."""
    for i in range(len(numbers)):
        length = ends[i] - starts[i]
        lo, hi = 0, count
        while lo < hi:  # the first row not below the word
            mid = (lo + hi) // 2
            below = False
            for d in range(key_width):
                want = codes[starts[i] + d] if d < length else -1
                if keys[mid * key_width + d] != want:
                    below = keys[mid * key_width + d] < want
                    break
            if below:
                lo = mid + 1
            else:
                hi = mid
        found = lo < count and length <= key_width
        for d in range(key_width):
            if found and keys[lo * key_width + d] != (codes[starts[i] + d] if d < length else -1):
                found = False
        numbers[i] = lo if found else -1


def sorted_words(keys, key_width, count, prefix, status, frames, codes, numbers):
    """The rows that start with `prefix`, in order, as many as fit, resumed at row status[1]."""
    words = 0
    used = 0
    row = status[1]
    while row < count:
        match = len(prefix) <= key_width
        for d in range(len(prefix)):
            if match and keys[row * key_width + d] != prefix[d]:
                match = False
        if match:
            length = 0
            while len(prefix) + length < key_width and keys[row * key_width + len(prefix) + length] >= 0:
                length += 1
            if words == len(numbers) or used + length + 1 > len(codes):
                break
            for k in range(length):
                codes[used + k] = keys[row * key_width + len(prefix) + k]
            codes[used + length] = WORD_END
            used += length + 1
            numbers[words] = row
            words += 1
        row += 1
    status[1] = row
    status[0] = DONE if row == count else RUNNING
    return words, used


class SortedLexicon(Lexicon):
    """Words as rows of letter codes (-1 after the end), sorted."""

    format = "sorted"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], recorded: ManifestEntry | None) -> SortedLexicon:
        path, data = snap.path / names[0], snap.read(names[0])
        if recorded:
            verify_sha256(path, data, recorded.section)
        lines = data.tobytes().decode("ascii").split()
        if not lines or not lines[0].startswith("charset="):
            raise DawgError(f"{path}: not a sorted word file")
        charset = Charset(lines[0].removeprefix("charset="))
        words = lines[1:]
        if words != sorted(set(words)) or not words:
            raise DawgError(f"{path}: words are not unique and sorted")
        width = max(map(len, words))
        keys = np.full((len(words), width), -1, np.int64)
        for row, word in enumerate(words):
            keys[row, :len(word)] = [charset.letters.index(ch) for ch in word]
        lex = cls(path=path, charset=charset, word_count=len(words),
                  max_length=max(len(w) + w.count("q") for w in words))
        lex.rows = keys
        return lex

    @cached_property
    def walk(self) -> Walk:
        return Walk(sorted_board, (self.rows.ravel(), self.rows.shape[1], len(self.rows)), self.id_count,
                    sorted_numbers, sorted_words)

    @property
    def id_count(self) -> int:
        return len(self.rows)  # a word's number is its row


SORTED_FORMAT = Format("sorted", "a sorted word array searched by bisection", SortedLexicon,
                       owns=lambda name, magic: name.endswith(".sorted"),
                       files=lambda snap, name: [name] if name else
                       ([SORTED_FILE] if snap.is_file(SORTED_FILE) else None),
                       section=fields(**FILE_ENTRY, longest=integer(1, 255)),
                       numbering=lambda i, count: i)  # a word's number is its index


def sorted_bytes(folded: list[str], charset: str) -> bytes:
    return ("\n".join([f"charset={charset}", *folded]) + "\n").encode("ascii")


def write_sorted_file(words: BuildWords, built: dict[str, object]) -> Written:
    data = sorted_bytes(words.words, words.charset.letters)
    longest = max(map(len, words.words))
    return Written({SORTED_FILE: data}, {**file_entry(SORTED_FILE, data), "longest": longest}, None)


SORTED_WRITER = Writer("sorted", "sorting words", (SORTED_FILE,), write_sorted_file, lambda section: (
    f"longest {section['longest']} symbols, {section['bytes']} bytes  {section['file']}"))


def write_sorted(directory: Path, words: list[str], charset: str = "abcdefghijklmnopqrstuvwxyz") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / SORTED_FILE).write_bytes(sorted_bytes(sorted({w.replace("qu", "q") for w in words}), charset))
    return directory


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(formats.FORMATS, "sorted", SORTED_FORMAT)
    monkeypatch.setitem(writers.WRITERS, "sorted", SORTED_WRITER)


def test_the_reader_and_writer_registries_name_the_same_formats_in_the_same_order():
    assert list(writers.WRITERS) == list(formats.FORMATS)


def random_board(rng: random.Random, shape: Shape) -> str:
    faces = [rng.choice("aesthq" if rng.random() < 0.9 else ["(th)", "(he)", "."]) for _ in range(shape.cells)]
    return "/".join("".join(faces[r * shape.cols:(r + 1) * shape.cols]) for r in range(shape.rows))


def test_a_fourth_format_scores_through_the_registry(tmp_path, registered):
    directory = write_sorted(tmp_path / "toy", WORDS)
    lex = open_lexicon(directory)  # the only format here: found through the registry
    assert lex.format == "sorted" and lex.word_list() == sorted(WORDS)
    reference = Reference(WORDS)
    rng = random.Random(7)
    boards = [random_board(rng, shape) for shape in (Shape(2, 2), Shape(3, 3), Shape(4, 4), Shape(3, 5))
              for _ in range(60)]
    expected = []
    for text in boards:
        board = parse_board(text)
        expected.append(reference.score(list(board.faces), board.shape.rows, board.shape.cols))
    assert [lex.score(b) for b in boards] == expected  # the walk in CPython
    assert sum(expected) > 0
    for jobs in (1, 2):
        assert lex.score_many(boards, jobs=jobs).tolist() == expected  # the walk compiled in a batch
    found = lex.words("tea/ses/tat")
    assert {f.word for f in found} == reference.found(list(parse_board("tea/ses/tat").faces), 3, 3)
    asked = [*WORDS, "Quest", "eats", "tease", "x", "", "qest"]
    assert lex.key_ids(asked).tolist() == [sorted(WORDS).index(w.lower()) if w.lower() in WORDS else -1
                                           for w in asked]  # the batch lookup, compiled, through the registry
    assert list(lex.keys("te")) == sorted(w for w in WORDS if w.startswith("te"))  # the word listing, compiled


def test_the_registry_finds_a_single_file_of_the_new_format(tmp_path, registered):
    directory = write_sorted(tmp_path / "toy", WORDS)
    lex = open_lexicon(directory / SORTED_FILE)
    board = parse_board("sets/tate/aqes/tesu")
    assert lex.score(board) == Reference(WORDS).score(list(board.faces), 4, 4) > 0


def test_a_fourth_format_is_built_verified_listed_and_scored(tmp_path, registered):
    """Registered on both sides, the toy format is written by `dawgc build` beside the others, with
    its manifest section and summary line; `dawgc verify` checks its numbering and that it holds the
    words of the others; `dawgc info` lists it; it opens from the build and scores boards."""
    source = tmp_path / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    out = tmp_path / "build"
    runner = CliRunner()
    built = runner.invoke(app, ["build", str(source), "--out", str(out)])
    assert built.exit_code == 0, built.output
    section = read_manifest(out / MANIFEST_FILE).data["sorted"]
    longest = max(len(w.replace("qu", "q")) for w in WORDS)
    assert f"  sorted   longest {longest} symbols, {section['bytes']} bytes  {SORTED_FILE}" in built.output.splitlines()
    result = verify(out, source)
    assert result.ok, result.checks
    assert f"ok    sorted ({out / SORTED_FILE}): structure valid, {len(WORDS)} words, numbering as documented" in result.checks
    assert f"ok    trie, dawg, adtdawg, sorted hold the same {len(WORDS)} words" in result.checks
    listed = runner.invoke(app, ["info", str(out)])
    assert listed.exit_code == 0, listed.output
    assert f"  sorted   {out / SORTED_FILE}: charset A" in listed.output
    lex = open_lexicon(out, "sorted")
    assert lex.format == "sorted" and lex.word_list() == sorted(WORDS)
    board = parse_board("sets/tate/aqes/tesu")
    assert lex.score(board) == lex.score_many([board])[0] == Reference(WORDS).score(list(board.faces), 4, 4) > 0


def test_the_manifest_checks_a_new_format_s_section(tmp_path, registered):
    source = tmp_path / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    out = build_lexicon(source, parse_charset("26"), tmp_path / "build").out_dir
    manifest = out / MANIFEST_FILE
    data = msgpack.unpackb(manifest.read_bytes())
    del data["sorted"]["longest"]
    manifest.chmod(0o644)
    manifest.write_bytes(msgpack.packb(data))
    with pytest.raises(DawgError, match=f"^{manifest}: field sorted.longest: missing$"):
        open_lexicon(out)
