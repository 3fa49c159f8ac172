"""The format registry: a fourth format added here, in the test alone, opens and scores boards.

The toy format is a sorted word list searched by bisection: a file of words,
one per line after a header line naming the charset. Everything it needs lives
in this module (its Lexicon subclass, its walk, its registry entry); the test
registers it, scores boards with both engines and checks them against the
independent brute-force scorer. Nothing outside this file knows it exists.
"""

from __future__ import annotations

import random
from functools import cached_property
from pathlib import Path

import numpy as np
import pytest

from boggle_dawg.solver import formats
from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.charset import Charset
from boggle_dawg.solver.engine import Walk
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import Format
from boggle_dawg.solver.formats.base import Lexicon, Snapshot
from boggle_dawg.solver.kernels import FRAME, NO_LETTER, lowest_bit, neighbours_with, record
from boggle_dawg.solver.lexicon import open_lexicon

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


class SortedLexicon(Lexicon):
    """Words as rows of letter codes (-1 after the end), sorted."""

    format = "sorted"

    @classmethod
    def load(cls, snap: Snapshot, names: list[str], manifest) -> SortedLexicon:
        path = snap.path / names[0]
        lines = snap.read(names[0]).tobytes().decode("ascii").split()
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
        lex.words_sorted, lex.keys = words, keys
        return lex

    @cached_property
    def walk(self) -> Walk:
        return Walk(sorted_board, (self.keys.ravel(), self.keys.shape[1], len(self.keys)), len(self.keys))

    def iter_numbered_words(self, progress=None):
        return ((word, number) for number, word in enumerate(self.words_sorted))


SORTED_FORMAT = Format("sorted", "a sorted word array searched by bisection", SortedLexicon,
                       owns=lambda name, magic: name.endswith(".sorted"),
                       files=lambda snap, name: [name] if name else
                       ([SORTED_FILE] if snap.is_file(SORTED_FILE) else None))


def write_sorted(directory: Path, words: list[str], charset: str = "abcdefghijklmnopqrstuvwxyz") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    folded = sorted({w.replace("qu", "q") for w in words})
    (directory / SORTED_FILE).write_text("\n".join([f"charset={charset}", *folded]) + "\n")
    return directory


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(formats.FORMATS, "sorted", SORTED_FORMAT)


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


def test_the_registry_finds_a_single_file_of_the_new_format(tmp_path, registered):
    directory = write_sorted(tmp_path / "toy", WORDS)
    lex = open_lexicon(directory / SORTED_FILE)
    board = parse_board("sets/tate/aqes/tesu")
    assert lex.score(board) == Reference(WORDS).score(list(board.faces), 4, 4) > 0
